import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../config.ts';
import { BROWSER_DATA, cardPayment, CIT_INITIAL, connectorTo, STORE_KINDS, warnIfPostgresSkipped } from '../../testing/harness.ts';
import { startLiveFront, type LiveFront } from '../../testing/liveFront.ts';
import { startUpstream, type Upstream } from '../../testing/upstream.ts';
import { runTrigger } from '../../control/triggers.ts';

warnIfPostgresSkipped('the opp connector');

/**
 * The `opp` connector (issue 33) with real parts: a live gateway (this process, on each store) pays through a provider
 * that is this gateway in test mode in a process of its own, speaking the platform's API. What the provider did is
 * read from the provider itself, through its own API.
 */

let upstream: Upstream;
const ADMIN_TOKEN = 'front-admin-token-for-connector-tests-0123456789';
/** The secret the provider encrypts its notifications with, and the acquirer's notificationKey. */
const NOTIFICATION_KEY = 'C0FFEE'.repeat(10) + 'ABCD';

/**
 * The settlement cut-off of both gateways. The default (22:00 UTC) unless the suite runs after 21:00 UTC: then the
 * payments a test makes belong to tomorrow's settlement, which cannot be run yet, so the day ends at 23:59 instead.
 */
const CUTOFF_UTC = new Date().getUTCHours() >= 21 ? '23:59' : '22:00';

beforeAll(async () => {
  upstream = await startUpstream({ SETTLEMENT_CUTOFF_UTC: CUTOFF_UTC });
}, 60_000);
afterAll(async () => {
  await upstream?.close();
});

describe.each(STORE_KINDS)('a live gateway paying through the opp connector, on %s', (kind) => {
  let front: LiveFront;

  beforeAll(async () => {
    front = await startLiveFront(kind, { hyperpay: connectorTo(upstream.url, { notificationKey: NOTIFICATION_KEY }) }, { hyperpay: upstream.credentials }, {
      adminToken: ADMIN_TOKEN,
      // The tests read answers again at once (the reports' summary, then a detail): reads are not limited here.
      limits: { ...loadConfig({}).limits, listQueriesPerSecond: 0, paymentReadsPerMinute: 0 },
      settlement: loadConfig({ SETTLEMENT_CUTOFF_UTC: CUTOFF_UTC }).settlement,
    });
    // The provider's webhook for the merchant's entity there notifies this gateway (its activation message first).
    const webhook = await upstream.admin('POST', '/admin/v1/webhooks', {
      entityId: upstream.credentials.entityId,
      url: `${front.url}/v1/acquirers/hyperpay/notifications`,
      secret: NOTIFICATION_KEY,
      types: ['PAYMENT'],
    });
    expect(webhook.status).toBe(201);
    expect(webhook.body.webhook.status).toBe('active');
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

  it('keeps a payment the provider answers long pending (waiting for the money) pending, awaiting its final word', async () => {
    const waiting = await front.post('/v1/payments', cardPayment(front.entityId, { 'card.holder': '800.400.500' }));
    expect(waiting.body.result.code).toBe('800.400.500');
    const recorded = await front.gateway.store.query<{ status: string }>('SELECT status FROM payments WHERE id = $1', [waiting.body.id]);
    expect(recorded.rows).toEqual([{ status: 'pending' }]);
    const attempt = await front.gateway.store.query<{ finished_at: Date | null; next_inquiry_at: Date | null }>('SELECT finished_at, next_inquiry_at FROM acquirer_attempts WHERE payment_id = $1', [waiting.body.id]);
    expect(attempt.rows).toEqual([{ finished_at: null, next_inquiry_at: expect.any(Date) }]);
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

  it('sends the other instruments as the provider takes them: a network token, a wallet’s token, an MB WAY account', async () => {
    const token = await front.post('/v1/payments', {
      entityId: front.entityId, amount: '12.00', currency: 'EUR', paymentType: 'DB', paymentBrand: 'VISA',
      'tokenAccount.type': 'NETWORK', 'tokenAccount.number': '4200000000000000', 'tokenAccount.expiryMonth': '05',
      'tokenAccount.expiryYear': '2034', 'tokenAccount.cryptogram': 'AgAAAAAABk4DWZ4C28yUQAAAAAA=', 'threeDSecure.eci': '05',
    });
    expect(token.body.result.code).toBe('000.100.110');
    expect(await atProvider(token.body.id)).toMatchObject({ tokenAccount: { type: 'NETWORK', number: '420000******0000' }, threeDSecure: { eci: '05' } });
    // The wallet's token goes as it came: the provider holds the merchant's wallet keys (its test system reads it).
    const appleToken = JSON.stringify({ version: 'EC_v1', data: 'c2VjcmV0LWFwcGxlLXRva2VuLWJsb2I=', signature: 'c2lnbmF0dXJl', header: { transactionId: 'abc123' } });
    const wallet = await front.post('/v1/payments', { entityId: front.entityId, amount: '13.00', currency: 'EUR', paymentType: 'DB', paymentBrand: 'APPLEPAY', 'applePay.paymentToken': appleToken });
    expect(wallet.body.result.code).toBe('000.100.110');
    expect(await atProvider(wallet.body.id)).toMatchObject({ paymentBrand: 'APPLEPAY', card: { bin: '420000' } });
    expect(JSON.stringify(wallet.body)).not.toContain('c2VjcmV0LWFwcGxlLXRva2VuLWJsb2I=');
    const mbway = await front.post('/v1/payments', { entityId: front.entityId, amount: '14.00', currency: 'EUR', paymentType: 'DB', paymentBrand: 'MBWAY', 'virtualAccount.accountId': '351#911222111' });
    expect(mbway.body.result.code).toBe('000.100.110');
    expect(await atProvider(mbway.body.id)).toMatchObject({ paymentBrand: 'MBWAY' });
  });

  it('captures a PA.CP at once, and authorizes an increment on the provider’s preauthorization', async () => {
    const captured = await front.post('/v1/payments', cardPayment(front.entityId, { paymentType: 'PA.CP' }));
    expect(captured.body).toMatchObject({ paymentType: 'CP', result: { code: '000.100.110' } });
    expect(await atProvider(captured.body.id)).toMatchObject({ paymentType: 'CP', referencedId: (await atProvider(captured.body.referencedId)).id });
    const original = await front.post('/v1/payments', cardPayment(front.entityId, { paymentType: 'PA', amount: '100.00' }));
    const increment = await front.post('/v1/payments', {
      entityId: front.entityId, paymentType: 'PA', amount: '50.00', currency: 'EUR', referenceUuid: original.body.id, 'standingInstruction.industryPractice': 'INCREMENTAL_AUTH',
    });
    expect(increment.body).toMatchObject({ referencedId: original.body.id, result: { code: '000.100.110' } });
    expect(await atProvider(increment.body.id)).toMatchObject({ paymentType: 'PA', referencedId: (await atProvider(original.body.id)).id });
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

  /** Waits (the provider's delivery worker polls each second) until the payment is as expected (read in the store: reads through the API are limited). */
  const eventually = async (paymentId: string, code: RegExp) => {
    const codeOf = async () => (await front.gateway.store.query<{ result_code: string }>('SELECT result_code FROM payments WHERE id = $1', [paymentId])).rows[0]?.result_code;
    await expect.poll(codeOf, { timeout: 15_000, interval: 200 }).toMatch(code);
  };

  it('finishes a payment the shopper left pending at the provider when the provider notifies its result', async () => {
    const pending = await front.post('/v1/payments', {
      entityId: front.entityId,
      amount: '40.00',
      currency: 'EUR',
      paymentType: 'DB',
      paymentBrand: 'SOFORTUEBERWEISUNG',
      'bankAccount.country': 'DE',
      shopperResultUrl: 'https://shop.example/back',
    });
    expect(pending.status).toBe(200);
    expect(pending.body.redirect.url.startsWith(`${upstream.url}/v1/redirects/`)).toBe(true);
    // On the provider's page the shopper leaves it pending (the bank confirms later), and comes back to the shop.
    const left = await fetch(`${pending.body.redirect.url}/answer`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ action: 'pending', paymentId: pending.body.redirect.parameters[0].value }),
    });
    const back = /window\.location\.replace\("([^"]+)"\)/.exec(await left.text())?.[1] as string;
    expect((await fetch(back.replace(/\\u0026/g, '&'))).status).toBe(200);
    expect((await front.get(`/v1/payments/${pending.body.id}`, { entityId: front.entityId })).body.result.code).toBe('000.200.000');
    // The provider's word (its operator confirms the transfer): its notification finishes the payment — no job of this
    // gateway runs meanwhile (jobs run only when a test says), so nothing but the notification can.
    const reference = (await front.gateway.store.query<{ acquirer_reference: string }>('SELECT acquirer_reference FROM payments WHERE id = $1', [pending.body.id])).rows[0]?.acquirer_reference;
    expect((await upstream.admin('POST', `/admin/v1/payments/${reference}/settlement`, { outcome: 'approved' })).status).toBe(200);
    await eventually(pending.body.id, /^000\.100\.110$/);
    const events = await front.gateway.store.query<{ action: string }>("SELECT action FROM events WHERE resource_id = $1 AND type = 'PAYMENT' ORDER BY id", [pending.body.id]);
    expect(events.rows.map((row) => row.action)).toEqual(['CREATED', 'UPDATED']);
  });

  it('records the chargeback the provider notifies, and its reversal, on the payment it charged back, once each', async () => {
    const paid = await front.post('/v1/payments', cardPayment(front.entityId, { amount: '30.00' }));
    const reference = (await front.gateway.store.query<{ acquirer_reference: string }>('SELECT acquirer_reference FROM payments WHERE id = $1', [paid.body.id])).rows[0]?.acquirer_reference as string;
    // The issuer's dispute reaches the provider, which records the chargeback and notifies it.
    const chargeback = await upstream.api('POST', `/v1/payments/${reference}`, { paymentType: 'CB', amount: '30.00', currency: 'EUR', chargebackResultCode: '000.100.210' });
    expect(chargeback.status).toBe(200);
    const children = async () =>
      (await front.gateway.store.query<{ id: string; payment_type: string; result_code: string; acquirer_reference: string }>(
        'SELECT id, payment_type, result_code, acquirer_reference FROM payments WHERE parent_id = $1 ORDER BY created_at',
        [paid.body.id],
      )).rows;
    await expect.poll(async () => (await children()).length, { timeout: 15_000, interval: 200 }).toBe(1);
    expect((await children())[0]).toMatchObject({ payment_type: 'CB', result_code: '000.100.210', acquirer_reference: chargeback.body.id });
    const recorded = (await children())[0]?.id as string;
    const answer = await front.get(`/v1/payments/${recorded}`, { entityId: front.entityId });
    expect(answer.body).toMatchObject({ paymentType: 'CB', referencedId: paid.body.id, amount: '30.00' });
    // Its reversal, on the chargeback.
    const reversal = await upstream.api('POST', `/v1/payments/${chargeback.body.id}`, { paymentType: 'CR', amount: '30.00', currency: 'EUR' });
    expect(reversal.status).toBe(200);
    await expect
      .poll(async () => (await front.gateway.store.query('SELECT 1 FROM payments WHERE parent_id = $1 AND payment_type = $2', [recorded, 'CR'])).rows.length, { timeout: 15_000, interval: 200 })
      .toBe(1);
  });

  it('records what the control API’s upstream-notification trigger says the provider notified: a chargeback on a payment', async () => {
    const paid = await front.post('/v1/payments', cardPayment(front.entityId, { amount: '20.00' }));
    expect(paid.body.result.code).toBe('000.100.110');
    // The trigger a test gateway's control API runs (this front is live: its services, without the route).
    const settlement = { acquirers: [], settlement: front.gateway.config.settlement };
    const deps = { payments: front.gateway.payments, store: front.gateway.store, runUntilQuiet: async () => 0, settlement, pspId: front.gateway.config.pspEntityId };
    const notified = await runTrigger(deps, 'upstream-notification', new Map([['paymentId', paid.body.id], ['paymentType', 'CB'], ['resultCode', '000.100.203']]));
    expect(notified.caused).toEqual({ paymentId: paid.body.id, outcome: 'chargeback' });
    const chargebacks = await front.gateway.store.query<{ id: string; result_code: string; amount_minor: number }>("SELECT id, result_code, amount_minor FROM payments WHERE parent_id = $1 AND payment_type = 'CB'", [paid.body.id]);
    expect(chargebacks.rows).toEqual([{ id: expect.any(String), result_code: '000.100.203', amount_minor: 2000 }]);
    expect(notified.events).toContainEqual(expect.objectContaining({ type: 'PAYMENT', action: 'CREATED', resourceId: chargebacks.rows[0]?.id }));
  });

  it('refuses a notification that does not decrypt with the acquirer’s key, and answers the provider’s test', async () => {
    const forged = await fetch(`${front.url}/v1/acquirers/hyperpay/notifications`, {
      method: 'POST',
      headers: { 'Content-Type': 'text/plain', 'X-Initialization-Vector': '00'.repeat(12), 'X-Authentication-Tag': '00'.repeat(16) },
      body: 'AB'.repeat(40),
    });
    expect(forged.status).toBe(401);
    const test = await upstream.admin('GET', '/admin/v1/webhooks');
    const webhook = test.body.webhooks.find((candidate: { url: string }) => candidate.url.startsWith(front.url));
    const tested = await upstream.admin('POST', `/admin/v1/webhooks/${webhook.id}/test`);
    expect(tested.status).toBe(200);
    expect(tested.body.activation).toMatchObject({ delivered: true });
  });

  it('imports what the provider reports it settled: its amounts and fees, each record naming the gateway’s payment, once', async () => {
    // A merchant of its own at the provider, so the provider's batch of the day is this merchant's alone.
    const made = await upstream.admin('POST', '/admin/v1/entities', { name: `Settled ${kind}` });
    const merchant = await front.newMerchant();
    await front.setCredentials(merchant.entityId, 'hyperpay', { entityId: made.body.entity.id, accessToken: made.body.token.accessToken });
    const debit = await front.post('/v1/payments', cardPayment(merchant.entityId, { amount: '50.00', merchantTransactionId: 'order-settled-1' }), { token: merchant.token });
    const refund = await front.post(`/v1/payments/${debit.body.id}`, { entityId: merchant.entityId, paymentType: 'RF', amount: '10.00', currency: 'EUR' }, { token: merchant.token });
    expect(refund.status).toBe(200);
    // A chargeback the provider records and does not notify (no webhook for this account): its report lists it.
    const debitReference = (await front.gateway.store.query<{ acquirer_reference: string }>('SELECT acquirer_reference FROM payments WHERE id = $1', [debit.body.id])).rows[0]?.acquirer_reference;
    const chargeback = await fetch(`${upstream.url}/v1/payments/${debitReference}`, {
      method: 'POST',
      headers: { Authorization: `Bearer ${made.body.token.accessToken}`, 'Content-Type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ entityId: made.body.entity.id, paymentType: 'CB', amount: '5.00', currency: 'EUR', chargebackResultCode: '000.100.203' }),
    });
    expect(chargeback.status).toBe(200);
    // The provider settles its day; the gateway imports the provider's report of it.
    const today = new Date().toISOString().slice(0, 10);
    const settled = await upstream.admin('POST', '/admin/v1/settlements/runs', { date: today });
    const providerBatch = settled.body.settlementRun.settlements.find((batch: { entityId: string }) => batch.entityId === made.body.entity.id);
    expect(providerBatch.transactionCount).toBe(3);
    const run = async () =>
      (
        await fetch(`${front.url}/admin/v1/settlements/runs`, {
          method: 'POST',
          headers: { Authorization: `Bearer ${ADMIN_TOKEN}`, 'Content-Type': 'application/json' },
          body: JSON.stringify({ date: today }),
        })
      ).json() as Promise<{ settlementRun: { settlements: { entityId: string; clearingInstitute: string; settlementAmount: string; transactionCount: number }[] } }>;
    const imported = (await run()).settlementRun.settlements.filter((batch) => batch.entityId === merchant.entityId);
    expect(imported).toEqual([expect.objectContaining({ clearingInstitute: 'hyperpay/simulator', settlementAmount: providerBatch.settlementAmount, transactionCount: 3 })]);
    // The chargeback is the gateway's now too, on the payment it charged back.
    const recordedChargeback = (await front.gateway.store.query<{ id: string; result_code: string; amount_minor: string }>("SELECT id, result_code, amount_minor FROM payments WHERE parent_id = $1 AND payment_type = 'CB'", [debit.body.id])).rows;
    expect(recordedChargeback).toEqual([{ id: expect.any(String), result_code: '000.100.203', amount_minor: expect.anything() }]);
    expect((await run()).settlementRun.settlements.filter((batch) => batch.entityId === merchant.entityId)).toEqual([]);

    // The merchant's settlement report: the provider's figures, on the gateway's payments.
    const summary = await front.get('/reports/v1/reconciliations/aggregations', { entityId: merchant.entityId, 'date.from': today, 'date.to': today }, { token: merchant.token });
    const aggregation = summary.body.aggregations[0];
    const detail = await front.get(`/reports/v2/reconciliations/aggregations/${aggregation.id}`, { entityId: merchant.entityId }, { token: merchant.token });
    const providerDetail = await fetch(`${upstream.url}/reports/v2/reconciliations/aggregations/${providerBatch.id}?entityId=${made.body.entity.id}`, {
      headers: { Authorization: `Bearer ${made.body.token.accessToken}` },
    }).then((response) => response.json() as Promise<{ records: { settlement: { amount: string; fee: string } }[] }>);
    const records = detail.body.records as {
      recordType: string;
      payment: { id: string };
      merchantTransactionId: string;
      settlement: { amount: string; fee: string };
      matchedTransactions: { status: string };
      chargebackTransaction?: { id: string };
    }[];
    expect(records.map((record) => [record.recordType, record.payment.id, record.matchedTransactions.status])).toEqual(
      expect.arrayContaining([
        ['SETTLED', debit.body.id, 'MATCHED'],
        ['SETTLED', refund.body.id, 'MATCHED'],
        ['CHARGEBACK', debit.body.id, 'MATCHED'],
      ]),
    );
    expect(records.find((record) => record.recordType === 'CHARGEBACK')?.chargebackTransaction).toEqual({ id: recordedChargeback[0]?.id });
    expect(records.find((record) => record.payment.id === debit.body.id)?.merchantTransactionId).toBe('order-settled-1');
    expect(records.map((record) => record.settlement)).toEqual(providerDetail.records.map((record) => expect.objectContaining({ amount: record.settlement.amount, fee: record.settlement.fee })));
    // The reconciliation file of the day carries them too: the gateway's payment, the provider's fee.
    const file = await fetch(`${front.url}/admin/v1/entities/${merchant.entityId}/reconciliation/files/${today}/csv`, { headers: { Authorization: `Bearer ${ADMIN_TOKEN}` } });
    const lines = (await file.text()).trim().split('\n');
    const header = (lines[0] as string).split(';');
    const debitLine = lines.find((line) => line.includes(debit.body.id))?.split(';') ?? [];
    expect(debitLine[header.indexOf('SettlementFee')]).toBe(providerDetail.records[0]?.settlement.fee);
    expect(debitLine[header.indexOf('MatchingStatus')]).toBe('MATCHED');
  });
});
