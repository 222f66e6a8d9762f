import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AcquirerUnreachableError, type Acquirer } from '../acquirers/types.ts';
import { eventsOf } from '../events/outbox.ts';
import { RECOVERY_INTERVAL_MS } from './recovery.ts';
import {
  answerRedirect,
  BROWSER_DATA,
  cardPayment,
  createTestClock,
  readResponse,
  STORE_KINDS,
  startTestGateway,
  testCard,
  warnIfPostgresSkipped,
  type ApiResponse,
  type TestGateway,
} from '../testing/harness.ts';

warnIfPostgresSkipped('payments/smartRetry.test.ts');

/**
 * Smart retry (COMPAT §15, spec 01 §4): a DB or PA the default acquirer (`simulator`) rejects softly, or cannot
 * reach, is made once more at the entity's fallback acquirer (`fallback`, a second simulator with references of its
 * own). Which acquirer saw which operation is read from the simulators' own records (simulator_operations).
 */

const ADMIN_TOKEN = 'admin-token-for-smart-retry-tests-0123456789';
const SOFT = '800.100.152';
const HARD = '800.100.151';
const CIT_INITIAL = {
  'standingInstruction.type': 'UNSCHEDULED',
  'standingInstruction.mode': 'INITIAL',
  'standingInstruction.source': 'CIT',
};

/**
 * The acquirers as a network would make them fail: a holder of `UNREACHABLE` is refused at the connection by the
 * default acquirer, and `<soft code> FALLBACK UNREACHABLE` by the fallback after the default's soft reject; with
 * `<soft code> DEFAULT LOST` the default acquirer, with `<soft code> FALLBACK LOST` the fallback, decides as usual
 * but its answer never comes back (an uncertain failure).
 */
function failing(acquirer: Acquirer): Acquirer {
  return {
    ...acquirer,
    async authorize(request) {
      const holder = request.card?.holder;
      if (holder === 'UNREACHABLE' && acquirer.name === 'simulator') throw new AcquirerUnreachableError(acquirer.name, 'connect ECONNREFUSED');
      if (holder === `${SOFT} FALLBACK UNREACHABLE`) {
        if (acquirer.name === 'fallback') throw new AcquirerUnreachableError(acquirer.name, 'connect ECONNREFUSED');
        return acquirer.authorize({ ...request, card: request.card ? { ...request.card, holder: SOFT } : undefined });
      }
      const lostAt = holder === `${SOFT} DEFAULT LOST` ? 'simulator' : holder === `${SOFT} FALLBACK LOST` ? 'fallback' : undefined;
      if (!lostAt) return acquirer.authorize(request);
      const answer = await acquirer.authorize({ ...request, card: request.card ? { ...request.card, holder: SOFT } : undefined });
      if (acquirer.name === lostAt) throw new Error('socket hang up');
      return answer;
    },
  };
}

describe.each(STORE_KINDS)('smart retry on %s', (kind) => {
  let t: TestGateway;
  const clock = createTestClock();

  beforeAll(async () => {
    t = await startTestGateway(kind, { acquirers: ['simulator', 'fallback'], defaultAcquirer: 'simulator', adminToken: ADMIN_TOKEN }, { wrapAcquirer: failing, now: clock.now });
  });
  afterAll(async () => {
    await t?.close();
  });

  const configure = async (entityId: string, settings: Record<string, unknown>): Promise<ApiResponse> =>
    readResponse(
      await fetch(`${t.url}/admin/v1/entities/${entityId}/smart-retry`, {
        method: 'PUT',
        headers: { Authorization: `Bearer ${ADMIN_TOKEN}`, 'Content-Type': 'application/json' },
        body: JSON.stringify(settings),
      }),
    );
  /** A merchant of its own with these settings (none: smart retry off). */
  const merchant = async (settings?: Record<string, unknown>) => {
    const made = await t.newMerchant();
    if (settings) expect((await configure(made.entityId, settings)).status).toBe(200);
    const pay = (overrides: Record<string, string> = {}, headers: Record<string, string> = {}) =>
      t.post('/v1/payments', cardPayment(made.entityId, overrides), { token: made.token, headers });
    const operate = (id: string, params: Record<string, string>) =>
      t.post(`/v1/payments/${id}`, { entityId: made.entityId, currency: 'EUR', ...params }, { token: made.token });
    const read = (id: string) => t.get(`/v1/payments/${id}`, { entityId: made.entityId }, { token: made.token });
    return { ...made, pay, operate, read };
  };
  /** What each simulator recorded for a payment's attempts: `acquirer operation`. */
  const operationsOf = async (paymentId: string): Promise<string[]> =>
    (
      await t.gateway.store.query<{ acquirer: string; operation: string }>(
        `SELECT o.acquirer, o.operation FROM simulator_operations o JOIN acquirer_attempts a ON a.id = o.attempt_id
          WHERE a.payment_id = $1 ORDER BY o.created_at, o.acquirer`,
        [paymentId],
      )
    ).rows.map((row) => `${row.acquirer} ${row.operation}`);
  const stored = async (id: string) =>
    (await t.gateway.store.query<{ acquirer: string; acquirer_reference: string | null; result_code: string; payment_type: string }>(
      'SELECT acquirer, acquirer_reference, result_code, payment_type FROM payments WHERE id = $1',
      [id],
    )).rows[0];

  it('makes a soft-declined DB at the fallback: one answer, marked as §15 says, and the rejection readable by its own id', async () => {
    const m = await merchant({ fallbackAcquirer: 'fallback' });
    const paid = await m.pay({ 'card.holder': SOFT, merchantTransactionId: 'order-0001' });
    expect(paid.status).toBe(200);
    expect(paid.body.result.code).toBe('000.100.110');
    const rejectedId = paid.body.resultDetails.SoftDeclineTransactionId as string;
    expect(paid.body.resultDetails).toMatchObject({ SoftDeclineFallback: 'true', SoftDeclineTransactionId: expect.stringMatching(/^[0-9a-f]{32}$/) });
    expect(paid.body.resultDetails.ConnectorTxID1).toMatch(/^FALLBACK-/);
    expect(rejectedId).not.toBe(paid.body.id);

    const rejected = await m.read(rejectedId);
    expect(rejected.status).toBe(400);
    expect(rejected.body).toMatchObject({ id: rejectedId, paymentType: 'DB', amount: '92.00', merchantTransactionId: 'order-0001', result: { code: SOFT } });
    expect(rejected.body.resultDetails.SoftDeclineFallback).toBeUndefined();
    expect((await m.read(paid.body.id)).body.resultDetails).toMatchObject({ SoftDeclineFallback: 'true', SoftDeclineTransactionId: rejectedId });

    expect(await stored(rejectedId)).toMatchObject({ acquirer: 'simulator', acquirer_reference: expect.stringMatching(/^SIMULATOR-/), result_code: SOFT });
    expect(await stored(paid.body.id)).toMatchObject({ acquirer: 'fallback', acquirer_reference: expect.stringMatching(/^FALLBACK-/) });
    // Both attempts were made for the merchant's payment id: the default acquirer's first, then the fallback's.
    expect(await operationsOf(paid.body.id)).toEqual(['simulator authorize DB', 'fallback authorize DB']);
    // Each row has its PAYMENT event, the rejection's first.
    const [rejectedEvent] = await eventsOf(t.gateway.store, rejectedId);
    const [paidEvent] = await eventsOf(t.gateway.store, paid.body.id);
    expect(rejectedEvent).toMatchObject({ type: 'PAYMENT', action: 'CREATED', payload: { result: { code: SOFT } } });
    expect(paidEvent).toMatchObject({ type: 'PAYMENT', action: 'CREATED', payload: { resultDetails: { SoftDeclineTransactionId: rejectedId } } });
    expect((rejectedEvent?.id ?? 0) < (paidEvent?.id ?? 0)).toBe(true);
  });

  it('is off by default: the same holder is a plain decline that only the default acquirer saw', async () => {
    const m = await merchant();
    const declined = await m.pay({ 'card.holder': SOFT });
    expect(declined.status).toBe(400);
    expect(declined.body.result.code).toBe(SOFT);
    expect(declined.body.resultDetails.SoftDeclineFallback).toBeUndefined();
    expect(await operationsOf(declined.body.id)).toEqual(['simulator authorize DB']);
  });

  it('retries nothing when the settings are stored switched off (enabled: false): one payment, the default acquirer’s decline', async () => {
    const m = await merchant({ enabled: false, fallbackAcquirer: 'fallback' });
    const shown = await readResponse(await fetch(`${t.url}/admin/v1/entities/${m.entityId}/smart-retry`, { headers: { Authorization: `Bearer ${ADMIN_TOKEN}` } }));
    expect(shown.body.smartRetry).toMatchObject({ enabled: false, fallbackAcquirer: 'fallback', inEffect: false });
    const declined = await m.pay({ 'card.holder': SOFT, merchantTransactionId: 'switched-off-0001' });
    expect(declined.status).toBe(400);
    expect(declined.body.result.code).toBe(SOFT);
    expect(declined.body.resultDetails.SoftDeclineFallback).toBeUndefined();
    expect(declined.body.resultDetails.SoftDeclineTransactionId).toBeUndefined();
    expect(await operationsOf(declined.body.id)).toEqual(['simulator authorize DB']);
    expect(await stored(declined.body.id)).toMatchObject({ acquirer: 'simulator', result_code: SOFT, payment_type: 'DB' });
    const made = await t.gateway.store.query<{ id: string }>("SELECT id FROM payments WHERE merchant_transaction_id = 'switched-off-0001'");
    expect(made.rows.map((row) => row.id)).toEqual([declined.body.id]);
    const atFallback = await t.gateway.store.query(
      "SELECT 1 FROM acquirer_attempts WHERE acquirer = 'fallback' AND payment_id = $1",
      [declined.body.id],
    );
    expect(atFallback.rows).toEqual([]);
  });

  it('retries nothing but the listed codes: a hard decline stays one, a custom list replaces the default', async () => {
    const m = await merchant({ fallbackAcquirer: 'fallback' });
    const hard = await m.pay({ 'card.holder': HARD });
    expect(hard.status).toBe(400);
    expect(hard.body.result.code).toBe(HARD);
    expect(await operationsOf(hard.body.id)).toEqual(['simulator authorize DB']);

    const custom = await merchant({ fallbackAcquirer: 'fallback', codes: [HARD] });
    expect((await custom.pay({ 'card.holder': HARD })).body.resultDetails.SoftDeclineFallback).toBe('true');
    const notListed = await custom.pay({ 'card.holder': SOFT });
    expect(notListed.body.result.code).toBe(SOFT);
    expect(await operationsOf(notListed.body.id)).toEqual(['simulator authorize DB']);
  });

  it('answers the fallback’s own decline, marked, when the fallback declines too', async () => {
    const m = await merchant({ fallbackAcquirer: 'fallback' });
    const declined = await m.pay({ 'card.holder': `${SOFT}/${HARD}` });
    expect(declined.status).toBe(400);
    expect(declined.body.result.code).toBe(HARD);
    expect(declined.body.resultDetails).toMatchObject({ SoftDeclineFallback: 'true', ConnectorTxID1: expect.stringMatching(/^FALLBACK-/) });
    expect((await m.read(declined.body.resultDetails.SoftDeclineTransactionId)).body.result.code).toBe(SOFT);
  });

  it('applies to standalone or card-on-file payments as set: a stored card or a standing instruction is card on file', async () => {
    const standaloneOnly = await merchant({ fallbackAcquirer: 'fallback', standalone: true, cardOnFile: false });
    const cardOnFileOnly = await merchant({ fallbackAcquirer: 'fallback', standalone: false, cardOnFile: true });
    const retried = (answer: ApiResponse) => answer.body.resultDetails?.SoftDeclineFallback === 'true';

    expect(retried(await standaloneOnly.pay({ 'card.holder': SOFT }))).toBe(true);
    expect(retried(await standaloneOnly.pay({ 'card.holder': SOFT, ...CIT_INITIAL }))).toBe(false);
    expect(retried(await cardOnFileOnly.pay({ 'card.holder': SOFT }))).toBe(false);
    const initial = await cardOnFileOnly.pay({ 'card.holder': SOFT, ...CIT_INITIAL });
    expect(retried(initial)).toBe(true);
    // The fallback's approval is the INITIAL payment of the agreement: it carries the scheme reference.
    expect(initial.body.standingInstruction.initialTransactionId).toMatch(/^[1-9][0-9]{14}$/);

    // A stored card: the registration's holder asks for the soft reject.
    for (const [m, expected] of [[standaloneOnly, false], [cardOnFileOnly, true]] as const) {
      const registration = await t.post('/v1/registrations', { entityId: m.entityId, ...testCard({ 'card.holder': SOFT }) }, { token: m.token });
      expect(registration.status).toBe(200);
      const paid = await t.post(
        `/v1/registrations/${registration.body.id}/payments`,
        { entityId: m.entityId, amount: '9.99', currency: 'EUR', paymentType: 'DB' },
        { token: m.token },
      );
      expect(retried(paid)).toBe(expected);
      expect(paid.body.registrationId ?? registration.body.id).toBe(registration.body.id);
    }
  });

  it('sends captures, refunds, reversals, chargebacks and their reversals of a retried payment to the fallback acquirer', async () => {
    const m = await merchant({ fallbackAcquirer: 'fallback' });
    const debit = await m.pay({ 'card.holder': SOFT });
    const authorization = await m.pay({ 'card.holder': SOFT, paymentType: 'PA' });
    const toReverse = await m.pay({ 'card.holder': SOFT, paymentType: 'PA' });
    for (const retried of [debit, authorization, toReverse]) expect(retried.body.resultDetails.SoftDeclineFallback).toBe('true');

    const refund = await m.operate(debit.body.id, { paymentType: 'RF', amount: '10.00' });
    const chargeback = await m.operate(debit.body.id, { paymentType: 'CB', amount: '20.00' });
    const chargebackReversal = await m.operate(chargeback.body.id, { paymentType: 'CR', amount: '20.00' });
    const capture = await m.operate(authorization.body.id, { paymentType: 'CP', amount: '92.00' });
    const reversal = await m.operate(toReverse.body.id, { paymentType: 'RV' });
    const children = { RF: refund, CB: chargeback, CR: chargebackReversal, CP: capture, RV: reversal };
    for (const [type, child] of Object.entries(children)) {
      expect(child.status, type).toBe(200);
      expect(await operationsOf(child.body.id)).toEqual([`fallback ${type}`]);
      expect(await stored(child.body.id)).toMatchObject({ acquirer: 'fallback', acquirer_reference: expect.stringMatching(/^FALLBACK-/) });
    }
    // The rejected attempts are declined payments: nothing can be done with them.
    const rejectedId = debit.body.resultDetails.SoftDeclineTransactionId as string;
    expect((await m.operate(rejectedId, { paymentType: 'RF', amount: '1.00' })).status).toBe(400);
  });

  it('captures a retried PA.CP at the fallback acquirer: the answer is the capture, its preauthorization is marked', async () => {
    const m = await merchant({ fallbackAcquirer: 'fallback' });
    const captured = await m.pay({ 'card.holder': SOFT, paymentType: 'PA.CP' });
    expect(captured.status).toBe(200);
    expect(captured.body).toMatchObject({ paymentType: 'CP', result: { code: '000.100.110' } });
    expect(await operationsOf(captured.body.id)).toEqual(['fallback CP']);
    const preauthorization = await m.read(captured.body.referencedId);
    expect(preauthorization.body).toMatchObject({ paymentType: 'PA', resultDetails: { SoftDeclineFallback: 'true' } });
  });

  it('retries a payment whose request never reached the default acquirer (connection refused) as 900.100.100', async () => {
    const m = await merchant({ fallbackAcquirer: 'fallback' });
    const paid = await m.pay({ 'card.holder': 'UNREACHABLE' });
    expect(paid.status).toBe(200);
    const rejectedId = paid.body.resultDetails.SoftDeclineTransactionId as string;
    expect((await m.read(rejectedId)).body.result.code).toBe('900.100.100');
    expect(await stored(rejectedId)).toMatchObject({ acquirer: 'simulator', acquirer_reference: null });
    expect(await operationsOf(paid.body.id)).toEqual(['fallback authorize DB']);

    // A list without 900.100.100 leaves the failure as it was: declined as unreachable, nothing left open.
    const without = await merchant({ fallbackAcquirer: 'fallback', codes: [SOFT] });
    const failed = await without.pay({ 'card.holder': 'UNREACHABLE' });
    expect(failed.status).toBe(400);
    expect(failed.body.result.code).toBe('900.100.100');
    expect(await operationsOf(failed.body.id)).toEqual([]);
    const open = await t.gateway.store.query('SELECT 1 FROM acquirer_attempts WHERE payment_id = $1 AND finished_at IS NULL', [failed.body.id]);
    expect(open.rows).toEqual([]);
  });

  it('retries a checkout’s payment submitted by the widget: the checkout’s result is the fallback’s payment, notified once', async () => {
    const m = await merchant({ fallbackAcquirer: 'fallback' });
    const checkout = await t.post(
      '/v1/checkouts',
      { entityId: m.entityId, amount: '25.00', currency: 'EUR', paymentType: 'DB', notificationUrl: 'https://shop.example/notify' },
      { token: m.token },
    );
    const submitted = await t.post(`/v1/checkouts/${checkout.body.id}/payment`, testCard({ 'card.holder': SOFT, shopperResultUrl: 'https://shop.example/r' }), { token: null });
    expect(submitted.status).toBe(200);
    const result = await t.get(`/v1/checkouts/${checkout.body.id}/payment`, { entityId: m.entityId }, { token: m.token });
    expect(result.body).toMatchObject({ id: submitted.body.id, result: { code: '000.100.110' }, resultDetails: { SoftDeclineFallback: 'true' } });
    const rejectedId = result.body.resultDetails.SoftDeclineTransactionId as string;
    expect((await m.read(rejectedId)).body.result.code).toBe(SOFT);
    expect(await operationsOf(submitted.body.id)).toEqual(['simulator authorize DB', 'fallback authorize DB']);
    const notifications = await t.gateway.store.query<{ unique_key: string }>("SELECT unique_key FROM jobs WHERE kind = 'checkout.notification' AND unique_key LIKE $1", [
      `%${submitted.body.id}`,
    ]);
    expect(notifications.rows).toHaveLength(1);
    const ofRejection = await t.gateway.store.query("SELECT 1 FROM jobs WHERE unique_key LIKE $1", [`%${rejectedId}`]);
    expect(ofRejection.rows).toEqual([]);
  });

  it('keeps the id an Idempotency-Key chose, and answers a replay with the same payment', async () => {
    const m = await merchant({ fallbackAcquirer: 'fallback' });
    const key = { 'Idempotency-Key': 'smart-retry-order-7' };
    const first = await m.pay({ 'card.holder': SOFT }, key);
    const replay = await m.pay({ 'card.holder': SOFT }, key);
    expect(replay.body.id).toBe(first.body.id);
    expect(replay.body.resultDetails).toEqual(first.body.resultDetails);
    expect(await operationsOf(first.body.id)).toEqual(['simulator authorize DB', 'fallback authorize DB']);
  });

  it('passes a frictionless 3-D Secure authentication on to the fallback', async () => {
    const m = await merchant({ fallbackAcquirer: 'fallback' });
    const frictionless = await m.pay({ 'card.holder': SOFT, 'card.number': '4200000000000091', shopperResultUrl: 'https://shop.example/back', ...BROWSER_DATA });
    expect(frictionless.status).toBe(200);
    expect(frictionless.body.resultDetails.SoftDeclineFallback).toBe('true');
    expect(frictionless.body.threeDSecure).toMatchObject({ eci: '05', authenticationStatus: 'Y' });
    expect((await m.read(frictionless.body.resultDetails.SoftDeclineTransactionId)).body.threeDSecure).toEqual(frictionless.body.threeDSecure);
  });

  it('answers a challenge with the pending redirect as usual, and retries the authorization after it at the fallback', async () => {
    const m = await merchant({ fallbackAcquirer: 'fallback' });
    const pending = await m.pay({
      'card.holder': SOFT,
      'card.number': '4200000000000042',
      paymentType: 'PA',
      shopperResultUrl: 'https://shop.example/back',
      ...BROWSER_DATA,
    });
    expect(pending.body.result.code).toBe('000.200.000');
    expect(pending.body.redirect.url).toContain('/v1/redirects/');
    expect(await operationsOf(pending.body.id)).toEqual([]);
    expect((await answerRedirect(pending)).status).toBe(200);

    const finished = await m.read(pending.body.id);
    expect(finished.status).toBe(200);
    expect(finished.body.result.code).toBe('000.100.110');
    expect(finished.body.threeDSecure).toMatchObject({ authenticationStatus: 'Y' });
    const rejectedId = finished.body.resultDetails.SoftDeclineTransactionId as string;
    expect(finished.body.resultDetails).toMatchObject({ SoftDeclineFallback: 'true', ConnectorTxID1: expect.stringMatching(/^FALLBACK-/) });
    const rejected = await m.read(rejectedId);
    expect(rejected.body).toMatchObject({ paymentType: 'PA', result: { code: SOFT }, threeDSecure: { authenticationStatus: 'Y' } });
    expect(rejected.body.redirect).toBeUndefined();
    expect(await stored(pending.body.id)).toMatchObject({ acquirer: 'fallback', acquirer_reference: expect.stringMatching(/^FALLBACK-/) });
    expect(await operationsOf(pending.body.id)).toEqual(['simulator authorize PA', 'fallback authorize PA']);
    const capture = await m.operate(pending.body.id, { paymentType: 'CP', amount: '92.00' });
    expect(await operationsOf(capture.body.id)).toEqual(['fallback CP']);
    const events = await eventsOf(t.gateway.store, pending.body.id);
    expect(events.map((event) => event.action)).toEqual(['CREATED', 'UPDATED']);
  });

  it('recovers a lost answer without charging twice: before the switch the rejection is the payment, after it the fallback’s answer', async () => {
    const m = await merchant({ fallbackAcquirer: 'fallback' });
    // The default acquirer decided but its answer was lost: pending until the acquirer is asked, never retried.
    const key = { 'Idempotency-Key': 'smart-retry-lost-1' };
    const lostFirst = await m.pay({ 'card.holder': `${SOFT} DEFAULT LOST` }, key);
    expect(lostFirst.status).toBe(200);
    expect(lostFirst.body.result.code).toBe('000.200.000');
    const again = await m.pay({ 'card.holder': `${SOFT} DEFAULT LOST` }, key);
    expect(again.body.id).toBe(lostFirst.body.id);
    clock.advance(RECOVERY_INTERVAL_MS * 2);
    await t.gateway.jobs.runDueJobs();
    const afterFirst = await m.read(lostFirst.body.id);
    expect(afterFirst.status).toBe(400);
    expect(afterFirst.body.result.code).toBe(SOFT);
    expect(await operationsOf(afterFirst.body.id)).toEqual(['simulator authorize DB']);
    expect((await eventsOf(t.gateway.store, lostFirst.body.id)).map((event) => event.action)).toEqual(['CREATED', 'UPDATED']);

    // The fallback decided but its answer was lost: pending under the merchant's id until the recovery records it, marked.
    const lostSecond = await m.pay({ 'card.holder': `${SOFT} FALLBACK LOST`, merchantTransactionId: 'lost-0002' });
    expect(lostSecond.status).toBe(200);
    expect(lostSecond.body.result.code).toBe('000.200.000');
    const made = await t.gateway.store.query<{ id: string; acquirer: string; status: string }>(
      "SELECT id, acquirer, status FROM payments WHERE merchant_transaction_id = 'lost-0002' ORDER BY created_at",
    );
    expect(made.rows.map((row) => [row.acquirer, row.status])).toEqual([
      ['simulator', 'declined'],
      ['fallback', 'pending'],
    ]);
    clock.advance(RECOVERY_INTERVAL_MS * 2);
    await t.gateway.jobs.runDueJobs();
    const recovered = await m.read(lostSecond.body.id);
    expect(recovered.status).toBe(200);
    expect(recovered.body.result.code).toBe('000.100.110');
    expect(recovered.body.resultDetails).toMatchObject({ SoftDeclineFallback: 'true', SoftDeclineTransactionId: made.rows[0]?.id });
    expect(await operationsOf(lostSecond.body.id)).toEqual(['simulator authorize DB', 'fallback authorize DB']);
    const charged = await t.gateway.store.query<{ n: number }>("SELECT count(*)::int AS n FROM payments WHERE merchant_transaction_id = 'lost-0002' AND status = 'approved'");
    expect(charged.rows[0]?.n).toBe(1);

    // The fallback was never reached after the switch: nothing moved there, and the payment is declined as unreachable.
    const unreached = await m.pay({ 'card.holder': `${SOFT} FALLBACK UNREACHABLE`, merchantTransactionId: 'unreached-0003' });
    expect(unreached.status).toBe(400);
    expect(unreached.body.result.code).toBe('900.100.100');
    expect(unreached.body.resultDetails).toMatchObject({ SoftDeclineFallback: 'true' });
    const closed = await t.gateway.store.query<{ acquirer: string; outcome: string }>('SELECT acquirer, outcome FROM acquirer_attempts WHERE payment_id = $1 ORDER BY acquirer DESC', [
      unreached.body.id,
    ]);
    expect(closed.rows).toEqual([
      { acquirer: 'simulator', outcome: 'recorded' },
      { acquirer: 'fallback', outcome: 'recorded' },
    ]);
    expect(await operationsOf(unreached.body.id)).toEqual(['simulator authorize DB']);
    const recorded = await t.gateway.store.query<{ result_code: string }>("SELECT result_code FROM payments WHERE merchant_transaction_id = 'unreached-0003' ORDER BY created_at");
    expect(recorded.rows).toEqual([{ result_code: SOFT }, { result_code: '900.100.100' }]);
  });

  it('makes no statement for the settings when a payment is approved, and one per cache period for the declines of an entity without smart retry', async () => {
    const m = await merchant();
    const store = t.gateway.store;
    const original = store.query.bind(store);
    let settingsReads = 0;
    (store as { query: typeof store.query }).query = ((sql: string, ...rest: unknown[]) => {
      if (sql.includes('smart_retry_settings')) settingsReads += 1;
      return (original as (...args: unknown[]) => ReturnType<typeof store.query>)(sql, ...rest);
    }) as typeof store.query;
    try {
      for (let i = 0; i < 5; i += 1) expect((await m.pay()).status).toBe(200);
      expect(settingsReads).toBe(0);
      for (let i = 0; i < 5; i += 1) expect((await m.pay({ 'card.holder': SOFT })).status).toBe(400);
      expect(settingsReads).toBe(1);
    } finally {
      (store as { query: typeof store.query }).query = original;
    }
  });
});
