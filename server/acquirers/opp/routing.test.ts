import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { saveRoutingRules } from '../../merchants/routingRules.ts';
import { saveSmartRetry } from '../../merchants/smartRetrySettings.ts';
import { DEFAULT_SOFT_DECLINE_CODES } from '../../domain/smartRetryRules.ts';
import { cardPayment, connectorTo, testCard, warnIfPostgresSkipped } from '../../testing/harness.ts';
import { LIVE_STORE, startLiveFront, type LiveFront } from '../../testing/liveFront.ts';
import { startUpstream, type Upstream } from '../../testing/upstream.ts';

warnIfPostgresSkipped('routing over connectors');

/**
 * Routing and smart retry over real acquirers (issue 33): a live gateway with three connectors — `hyperpay` and
 * `peach`, two merchant accounts at a provider (this gateway in test mode, a process of its own), and `down`, a
 * provider that cannot be reached. The entity's rules choose by brand, currency and amount (first match, then the
 * default); a soft decline at one account, or a provider that cannot be reached, goes once to the fallback.
 */


let upstream: Upstream;

beforeAll(async () => {
  upstream = await startUpstream();
}, 60_000);
afterAll(async () => {
  await upstream?.close();
});

describe.each([LIVE_STORE])('routing and smart retry across connectors, on %s', (kind) => {
  let front: LiveFront;
  /** The two merchant accounts at the provider. */
  const accounts: Record<'hyperpay' | 'peach', { entityId: string; accessToken: string }> = {} as never;

  beforeAll(async () => {
    for (const name of ['hyperpay', 'peach'] as const) {
      const made = await upstream.admin('POST', '/admin/v1/entities', { name: `${name} account` });
      accounts[name] = { entityId: made.body.entity.id, accessToken: made.body.token.accessToken };
    }
    // A port nothing listens on for the whole file: a free port taken now could be another test file's server by the
    // time a payment is routed there (it once answered 401, a refusal of credentials, not an unreachable acquirer).
    // Port 9 is privileged (the discard service), which no test binds.
    const nowhere = 'http://127.0.0.1:9';
    front = await startLiveFront(
      kind,
      { hyperpay: connectorTo(upstream.url), peach: connectorTo(upstream.url), down: connectorTo(nowhere) },
      { hyperpay: accounts.hyperpay, peach: accounts.peach, down: accounts.hyperpay },
    );
  });
  afterAll(async () => {
    await front?.close();
  });

  /** Which merchant account at the provider made the payment (its reference is that account's transaction). */
  const accountOf = async (paymentId: string) => {
    const row = (await front.gateway.store.query<{ acquirer: string; acquirer_reference: string }>('SELECT acquirer, acquirer_reference FROM payments WHERE id = $1', [paymentId])).rows[0];
    const account = accounts[row?.acquirer as 'hyperpay' | 'peach'];
    const read = await fetch(`${upstream.url}/v1/payments/${row?.acquirer_reference}?entityId=${account.entityId}`, { headers: { Authorization: `Bearer ${account.accessToken}` } });
    return read.status === 200 ? row?.acquirer : undefined;
  };

  it('sends each payment where the first matching rule says, else to the default acquirer', async () => {
    await saveRoutingRules(
      front.gateway.store,
      front.gateway.config.acquirers,
      front.entityId,
      [
        { brands: ['MASTER'], acquirer: 'peach' },
        { currencies: ['USD'], maxAmount: '500.00', acquirer: 'peach' },
      ],
      front.clock.now(),
    );
    front.gateway.payments.routing.forget(front.entityId);
    const visa = await front.post('/v1/payments', cardPayment(front.entityId));
    const master = await front.post('/v1/payments', cardPayment(front.entityId, testCard({ paymentBrand: 'MASTER', 'card.number': '5454545454545454' })));
    const dollars = await front.post('/v1/payments', cardPayment(front.entityId, { currency: 'USD' }));
    const manyDollars = await front.post('/v1/payments', cardPayment(front.entityId, { currency: 'USD', amount: '900.00' }));
    expect([visa, master, dollars, manyDollars].map((paid) => paid.body.result.code)).toEqual(['000.100.110', '000.100.110', '000.100.110', '000.100.110']);
    expect(await accountOf(visa.body.id)).toBe('hyperpay');
    expect(await accountOf(master.body.id)).toBe('peach');
    expect(await accountOf(dollars.body.id)).toBe('peach');
    expect(await accountOf(manyDollars.body.id)).toBe('hyperpay');
    // Later operations go where the payment went, whatever the rules say now.
    await saveRoutingRules(front.gateway.store, front.gateway.config.acquirers, front.entityId, [], front.clock.now());
    front.gateway.payments.routing.forget(front.entityId);
    const refund = await front.post(`/v1/payments/${master.body.id}`, { entityId: front.entityId, paymentType: 'RF', amount: '10.00', currency: 'EUR' });
    expect(await accountOf(refund.body.id)).toBe('peach');
  });

  it('retries a payment one merchant account soft-declines at the other, and operates on it there', async () => {
    const merchant = await front.newMerchant();
    for (const name of ['hyperpay', 'peach']) await front.setCredentials(merchant.entityId, name, accounts[name as 'hyperpay' | 'peach']);
    // The first account's limit at the provider (its MID/CI limit) is reached: a soft decline the merchant retries on.
    const limited = await upstream.admin('PUT', `/admin/v1/entities/${accounts.hyperpay.entityId}/throttling`, { risk: { merchantAccountVolume: { max: 1, windowMinutes: 1440 } } });
    expect(limited.status).toBe(200);
    await saveSmartRetry(
      front.gateway.store,
      { acquirers: front.gateway.config.acquirers, defaultAcquirer: 'hyperpay' },
      merchant.entityId,
      { enabled: true, codes: [...DEFAULT_SOFT_DECLINE_CODES, '800.120.401'], fallbackAcquirer: 'peach' },
      front.clock.now(),
    );
    try {
      const paid = await front.post('/v1/payments', cardPayment(merchant.entityId, { paymentType: 'PA' }), { token: merchant.token });
      expect(paid.body.result.code).toBe('000.100.110');
      expect(paid.body.resultDetails).toMatchObject({ SoftDeclineFallback: 'true' });
      expect(await accountOf(paid.body.id)).toBe('peach');
      const rejected = (await front.gateway.store.query<{ acquirer: string; result_code: string }>('SELECT acquirer, result_code FROM payments WHERE id = $1', [paid.body.resultDetails.SoftDeclineTransactionId])).rows[0];
      expect(rejected).toEqual({ acquirer: 'hyperpay', result_code: '800.120.401' });
      const capture = await front.post(`/v1/payments/${paid.body.id}`, { entityId: merchant.entityId, paymentType: 'CP', amount: '92.00', currency: 'EUR' }, { token: merchant.token });
      expect(capture.body.result.code).toBe('000.100.110');
      expect(await accountOf(capture.body.id)).toBe('peach');
    } finally {
      await upstream.admin('DELETE', `/admin/v1/entities/${accounts.hyperpay.entityId}/throttling`);
    }
  });

  it('retries a payment whose acquirer cannot be reached at the fallback, and declines it as unreachable without one', async () => {
    const merchant = await front.newMerchant();
    for (const name of ['down', 'peach']) await front.setCredentials(merchant.entityId, name, accounts.peach);
    await saveRoutingRules(front.gateway.store, front.gateway.config.acquirers, merchant.entityId, [{ minAmount: '1000.00', acquirer: 'down' }], front.clock.now());
    const declined = await front.post('/v1/payments', cardPayment(merchant.entityId, { amount: '1500.00' }), { token: merchant.token });
    expect(declined.body.result.code).toBe('900.100.100');
    await saveSmartRetry(front.gateway.store, { acquirers: front.gateway.config.acquirers, defaultAcquirer: 'hyperpay' }, merchant.entityId, { enabled: true, fallbackAcquirer: 'peach' }, front.clock.now());
    front.gateway.payments.smartRetry.forget(merchant.entityId);
    const paid = await front.post('/v1/payments', cardPayment(merchant.entityId, { amount: '1500.00' }), { token: merchant.token });
    expect(paid.body.result.code).toBe('000.100.110');
    expect(await accountOf(paid.body.id)).toBe('peach');
  });
});
