import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cardPayment, CIT_INITIAL, STORE_KINDS, warnIfPostgresSkipped, BROWSER_DATA } from '../../testing/harness.ts';
import { connectorTo, startLiveFront, type LiveFront } from '../../testing/liveFront.ts';
import { startUpstream, type Upstream } from '../../testing/upstream.ts';

warnIfPostgresSkipped('the opp connector');

/**
 * The `opp` connector (issue 33) with real parts: a live gateway (this process, on each store) pays through a provider
 * that is this gateway in test mode in a process of its own, speaking the platform's API. What the provider did is
 * read from the provider itself, through its own API.
 */

let upstream: Upstream;

beforeAll(async () => {
  upstream = await startUpstream();
}, 60_000);
afterAll(async () => {
  await upstream?.close();
});

describe.each(STORE_KINDS)('a live gateway paying through the opp connector, on %s', (kind) => {
  let front: LiveFront;

  beforeAll(async () => {
    front = await startLiveFront(kind, { hyperpay: connectorTo(upstream.url) }, { hyperpay: upstream.credentials });
  });
  afterAll(async () => {
    await front?.close();
  });

  /** The provider's payment a payment of ours was made as (its reference), read from the provider. */
  const atProvider = async (paymentId: string) => {
    const row = await front.gateway.store.query<{ acquirer: string; acquirer_reference: string }>('SELECT acquirer, acquirer_reference FROM payments WHERE id = $1', [paymentId]);
    expect(row.rows[0]?.acquirer).toBe('hyperpay');
    const read = await upstream.api('GET', `/v1/payments/${row.rows[0]?.acquirer_reference}`);
    expect(read.status).toBeLessThan(500);
    return read.body;
  };

  it('sends a card payment to the provider, once, under the attempt’s id, and records its answer and reference', async () => {
    const paid = await front.post('/v1/payments', cardPayment(front.entityId, { merchantTransactionId: 'order-1001', 'customer.givenName': 'Jane', 'customer.surname': 'Jones', 'customer.email': 'jane@example.com' }));
    expect(paid.status).toBe(200);
    // The provider's answer as it gave it (its test-mode success), its reference the payment's.
    expect(paid.body.result.code).toBe('000.100.110');
    expect(paid.body.merchantTransactionId).toBe('order-1001');
    const provider = await atProvider(paid.body.id);
    expect(provider).toMatchObject({ paymentType: 'DB', amount: '92.00', currency: 'EUR', card: { bin: '420000', last4Digits: '0000' }, customer: { givenName: 'Jane', email: 'jane@example.com' } });
    const attempt = await front.gateway.store.query<{ id: string }>('SELECT id FROM acquirer_attempts WHERE payment_id = $1', [paid.body.id]);
    expect(provider.merchantTransactionId).toBe(attempt.rows[0]?.id);
    const byAttempt = await upstream.api('GET', '/v1/query', { merchantTransactionId: attempt.rows[0]?.id as string });
    expect(byAttempt.body.payments).toHaveLength(1);
  });

  it('records the provider’s decline as the payment’s, with its code', async () => {
    const declined = await front.post('/v1/payments', cardPayment(front.entityId, { 'card.holder': '800.100.203' }));
    expect(declined.status).toBe(400);
    expect(declined.body.result.code).toBe('800.100.203');
    expect((await atProvider(declined.body.id)).result.code).toBe('800.100.203');
  });

  it('captures, refunds and reverses at the provider, naming its payment', async () => {
    const preauthorization = await front.post('/v1/payments', cardPayment(front.entityId, { paymentType: 'PA' }));
    expect(preauthorization.status).toBe(200);
    const capture = await front.post(`/v1/payments/${preauthorization.body.id}`, { entityId: front.entityId, paymentType: 'CP', amount: '50.00', currency: 'EUR' });
    expect(capture.status).toBe(200);
    const refund = await front.post(`/v1/payments/${capture.body.id}`, { entityId: front.entityId, paymentType: 'RF', amount: '20.00', currency: 'EUR' });
    expect(refund.status).toBe(200);
    const providerPa = await atProvider(preauthorization.body.id);
    const providerCp = await atProvider(capture.body.id);
    expect(providerCp).toMatchObject({ paymentType: 'CP', amount: '50.00', referencedId: providerPa.id });
    expect(await atProvider(refund.body.id)).toMatchObject({ paymentType: 'RF', amount: '20.00', referencedId: providerCp.id });

    const other = await front.post('/v1/payments', cardPayment(front.entityId, { paymentType: 'PA' }));
    const reversal = await front.post(`/v1/payments/${other.body.id}`, { entityId: front.entityId, paymentType: 'RV' });
    expect(reversal.status).toBe(200);
    expect(await atProvider(reversal.body.id)).toMatchObject({ paymentType: 'RV', referencedId: (await atProvider(other.body.id)).id });
  });

  it('keeps the card in its own vault and pays with it later as a merchant-initiated payment the provider accepts', async () => {
    const first = await front.post('/v1/payments', cardPayment(front.entityId, { createRegistration: 'true', ...CIT_INITIAL }));
    expect(first.status).toBe(200);
    expect(first.body.registrationId).toMatch(/^[0-9a-f]{32}$/);
    const scheme = first.body.resultDetails.CardholderInitiatedTransactionID as string;
    expect(scheme).toMatch(/^[0-9]{15}$/);
    const repeated = await front.post(`/v1/registrations/${first.body.registrationId}/payments`, {
      entityId: front.entityId,
      amount: '9.99',
      currency: 'EUR',
      paymentType: 'DB',
      'standingInstruction.type': 'RECURRING',
      'standingInstruction.mode': 'REPEATED',
      'standingInstruction.source': 'MIT',
    });
    expect(repeated.status).toBe(200);
    // The provider was sent the card from the vault and the agreement's scheme reference.
    expect(await atProvider(repeated.body.id)).toMatchObject({
      card: { bin: '420000', last4Digits: '0000' },
      standingInstruction: { mode: 'REPEATED', source: 'MIT', initialTransactionId: scheme },
    });
  });

  it('debits a SEPA account at the provider', async () => {
    const debit = await front.post('/v1/payments', {
      entityId: front.entityId,
      amount: '15.00',
      currency: 'EUR',
      paymentType: 'DB',
      paymentBrand: 'DIRECTDEBIT_SEPA',
      'bankAccount.holder': 'Jane Jones',
      'bankAccount.iban': 'DE23100000001234567890',
      'bankAccount.country': 'DE',
    });
    expect(debit.status).toBe(200);
    expect(await atProvider(debit.body.id)).toMatchObject({ paymentBrand: 'DIRECTDEBIT_SEPA', bankAccount: { holder: 'Jane Jones' } });
  });

  it('refuses a payment of an entity with no credentials at the acquirer, sending nothing', async () => {
    const other = await front.newMerchant();
    const before = await upstream.api('GET', '/v1/query', { 'date.from': '2000-01-01 00:00:00', 'date.to': '2100-01-01 00:00:00', limit: '500' });
    const refused = await front.post('/v1/payments', cardPayment(other.entityId), { token: other.token });
    expect(refused.status).toBe(400);
    expect(refused.body.result.code).toBe('500.100.302');
    expect(refused.body.result.description).toMatch(/no credentials at the acquirer hyperpay/);
    const after = await upstream.api('GET', '/v1/query', { 'date.from': '2000-01-01 00:00:00', 'date.to': '2100-01-01 00:00:00', limit: '500' });
    expect(after.body.payments?.length).toBe(before.body.payments?.length);
    const attempts = await front.gateway.store.query<{ outcome: string }>('SELECT outcome FROM acquirer_attempts WHERE entity_id = $1', [other.entityId]);
    expect(attempts.rows).toEqual([{ outcome: 'refused' }]);
  });

  it('answers the provider’s refusal of a parameter with its parameterErrors, recording no payment', async () => {
    // The provider runs 3-D Secure itself: an enrolled card without the browser's data is refused there.
    const refused = await front.post('/v1/payments', cardPayment(front.entityId, { 'card.number': '4200000000000042', shopperResultUrl: 'https://shop.example/back' }));
    expect(refused.status).toBe(400);
    expect(refused.body.result.code).toBe('200.300.404');
    expect(refused.body.result.parameterErrors.map((error: { name: string }) => error.name)).toContain('customer.browser.userAgent');
    expect(refused.body.id).toBeUndefined();
  });

  it('sends the shopper to the provider’s 3-D Secure challenge and back through the gateway to the merchant', async () => {
    const pending = await front.post('/v1/payments', cardPayment(front.entityId, { 'card.number': '4200000000000042', shopperResultUrl: 'https://shop.example/back', ...BROWSER_DATA }));
    expect(pending.status).toBe(200);
    expect(pending.body.result.code).toBe('000.200.000');
    expect(pending.body.redirect.url.startsWith(`${upstream.url}/v1/redirects/`)).toBe(true);
    // The shopper answers the provider's challenge on its page.
    const answered = await fetch(`${pending.body.redirect.url}/answer`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ action: 'submit', otp: '1234', paymentId: pending.body.redirect.parameters[0].value }),
    });
    const page = await answered.text();
    // The provider's page goes on to the gateway's return address, wherever it is shown.
    const back = /window\.location\.replace\("([^"]+)"\)/.exec(page)?.[1] as string;
    expect(back).toMatch(new RegExp(`^${front.url}/v1/acquirers/hyperpay/returns/[0-9a-f]{32}\\?`));
    const returned = await fetch(back.replace(/\\u0026/g, '&'));
    expect(returned.status).toBe(200);
    const returnPage = await returned.text();
    expect(returnPage).toContain(`https://shop.example/back?id=${pending.body.id}`);
    const finished = await front.get(`/v1/payments/${pending.body.id}`, { entityId: front.entityId });
    expect(finished.body.result.code).toBe('000.100.110');
    expect(finished.body.threeDSecure).toMatchObject({ authenticationStatus: 'Y', eci: '05' });
  });
});
