import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { acquirerAttemptsOf } from '../../dashboard/paymentViews.ts';
import { RECOVERY_INTERVAL_MS } from '../../payments/recovery.ts';
import { startFaultProxy, type Fault, type FaultProxy } from '../../testing/faultProxy.ts';
import { cardPayment, connectorTo, warnIfPostgresSkipped } from '../../testing/harness.ts';
import { LIVE_STORE, startLiveFront, type LiveFront } from '../../testing/liveFront.ts';
import { startUpstream, type Upstream } from '../../testing/upstream.ts';

warnIfPostgresSkipped('the opp connector’s faults');

/**
 * The unknown outcome (issue 33, DESIGN principle 13): between a live gateway and its provider (this gateway in test
 * mode, a process of its own) a real TCP proxy makes the network fail — a hung provider, a reset, a connection dropped
 * after the request was sent or after the provider answered, a 502 in place of the answer, a request that arrives late.
 * Whatever happens, the payment ends with one recorded outcome that is what the provider did, and the authorization
 * is never sent twice: an answer that is lost is asked for (GET /v1/query?merchantTransactionId=<attempt id>), and
 * "not found" counts as never received only once the request cannot still be on its way.
 */

const TIMEOUT_MS = 3000;
const METRICS_TOKEN = 'metrics-token-for-the-connector-fault-tests-0123';
const NEVER_RECEIVED_AFTER_MS = 120_000;

let upstream: Upstream;
let proxy: FaultProxy;

beforeAll(async () => {
  upstream = await startUpstream();
  proxy = await startFaultProxy(upstream.url);
}, 60_000);
afterAll(async () => {
  await proxy?.close();
  await upstream?.close();
});

describe.each([LIVE_STORE])('a live gateway whose provider’s network fails, on %s', (kind) => {
  let front: LiveFront;

  beforeAll(async () => {
    front = await startLiveFront(kind, { hyperpay: connectorTo(proxy.url, { timeoutMs: TIMEOUT_MS, neverReceivedAfterMs: NEVER_RECEIVED_AFTER_MS }) }, { hyperpay: upstream.credentials }, {
      metrics: { port: undefined, host: '127.0.0.1', token: METRICS_TOKEN },
    });
  });
  afterAll(async () => {
    await front?.close();
  });

  const store = () => front.gateway.store;
  const attemptsOf = async (paymentId: string) =>
    (await store().query<{ id: string; outcome: string | null }>('SELECT id, outcome FROM acquirer_attempts WHERE payment_id = $1 ORDER BY created_at', [paymentId])).rows;
  const recorded = async (paymentId: string) =>
    (await store().query<{ status: string; result_code: string }>('SELECT status, result_code FROM payments WHERE id = $1', [paymentId])).rows[0];
  /** What the provider made of an attempt: its payments under the attempt's id (our merchantTransactionId there). */
  const atProvider = async (attemptId: string) => {
    const found = await upstream.api('GET', '/v1/query', { merchantTransactionId: attemptId });
    return found.status === 200 ? (found.body.payments as { id: string; result: { code: string } }[]) : [];
  };
  /** The recovery's rounds, `ms` of the gateway's clock later. */
  const recoverAfter = async (ms: number) => {
    front.clock.advance(ms);
    await front.gateway.jobs.runDueJobs();
  };
  const authorizationsSent = () => proxy.requests.filter((line) => line.startsWith('POST /v1/payments ')).length;

  it.each<[Fault, 'approved' | 'pending', 'approved' | 'never received']>([
    ['hang', 'pending', 'never received'],
    ['reset', 'pending', 'never received'],
    ['dropAfterAnswer', 'approved', 'approved'],
    ['badGateway', 'approved', 'approved'],
    ['hangAfterForward', 'pending', 'approved'],
  ])('%s: the merchant is answered %s, and the payment ends %s, once', async (fault, answered, ends) => {
    const sentBefore = authorizationsSent();
    proxy.plan(/^POST \/v1\/payments /, fault);
    const paid = await front.post('/v1/payments', cardPayment(front.entityId, { merchantTransactionId: `fault-${fault}` }));
    expect(paid.body.result.code).toBe(answered === 'approved' ? '000.100.110' : '000.200.000');
    const [attempt] = await attemptsOf(paid.body.id);
    expect(authorizationsSent()).toBe(sentBefore + 1);

    // The recovery's first round comes before the request could be called never received: what was made is recorded.
    await recoverAfter(RECOVERY_INTERVAL_MS + 1000);
    if (ends === 'never received') {
      expect(await recorded(paid.body.id)).toEqual({ status: 'pending', result_code: '000.200.000' });
      await recoverAfter(NEVER_RECEIVED_AFTER_MS);
      expect(await recorded(paid.body.id)).toEqual({ status: 'declined', result_code: '900.100.100' });
      expect(await atProvider(attempt?.id as string)).toEqual([]);
    } else {
      expect(await recorded(paid.body.id)).toEqual({ status: 'approved', result_code: '000.100.110' });
      const made = await atProvider(attempt?.id as string);
      expect(made.map((payment) => payment.result.code)).toEqual(['000.100.110']);
    }
    // Asked, never sent again; the attempt closed with its payment written.
    expect(authorizationsSent()).toBe(sentBefore + 1);
    expect((await attemptsOf(paid.body.id)).map((row) => row.outcome)).toEqual(['recorded']);
    const events = await store().query<{ action: string }>("SELECT action FROM events WHERE resource_id = $1 AND type = 'PAYMENT' ORDER BY id", [paid.body.id]);
    expect(events.rows.map((row) => row.action)).toEqual(answered === 'pending' ? ['CREATED', 'UPDATED'] : ['CREATED']);
  });

  it('dropAfterRequest: whether the provider had finished when asked at once or not, one payment, recorded as made', async () => {
    const sentBefore = authorizationsSent();
    proxy.plan(/^POST \/v1\/payments /, 'dropAfterRequest');
    const paid = await front.post('/v1/payments', cardPayment(front.entityId));
    expect(['000.100.110', '000.200.000']).toContain(paid.body.result.code);
    await recoverAfter(RECOVERY_INTERVAL_MS + 1000);
    expect(await recorded(paid.body.id)).toEqual({ status: 'approved', result_code: '000.100.110' });
    const [attempt] = await attemptsOf(paid.body.id);
    expect(await atProvider(attempt?.id as string)).toHaveLength(1);
    expect(authorizationsSent()).toBe(sentBefore + 1);
  });

  it('a request that reaches the provider after the gateway gave up is found, never called never received', async () => {
    // The provider gets the authorization after the gateway's timeout, and after the recovery's first inquiry.
    proxy.plan(/^POST \/v1\/payments /, { delayMs: TIMEOUT_MS + 6000 });
    const paid = await front.post('/v1/payments', cardPayment(front.entityId));
    expect(paid.body.result.code).toBe('000.200.000');
    const [attempt] = await attemptsOf(paid.body.id);
    await recoverAfter(RECOVERY_INTERVAL_MS + 1000);
    expect(await recorded(paid.body.id)).toMatchObject({ status: 'pending' });
    await expect.poll(async () => (await atProvider(attempt?.id as string)).length, { timeout: 15_000, interval: 250 }).toBe(1);
    await recoverAfter(NEVER_RECEIVED_AFTER_MS);
    expect(await recorded(paid.body.id)).toEqual({ status: 'approved', result_code: '000.100.110' });
  });

  it('answers the merchant’s retry with the same Idempotency-Key with the payment awaiting the provider, sending nothing again', async () => {
    const key = { 'Idempotency-Key': `awaiting-${kind}` };
    proxy.plan(/^POST \/v1\/payments /, 'hangAfterForward');
    const first = await front.post('/v1/payments', cardPayment(front.entityId), { headers: key });
    expect(first.body.result.code).toBe('000.200.000');
    const sentBefore = authorizationsSent();
    const again = await front.post('/v1/payments', cardPayment(front.entityId), { headers: key });
    expect(again.body.id).toBe(first.body.id);
    expect(again.body.result.code).toBe('000.200.000');
    expect(authorizationsSent()).toBe(sentBefore);
    // The operator sees it: a call whose outcome is unknown, a payment awaiting the acquirer.
    const scraped = await (await fetch(`${front.url}/metrics`, { headers: { Authorization: `Bearer ${METRICS_TOKEN}` } })).text();
    expect(Number(/^gateway_acquirer_calls_total\{acquirer="hyperpay",outcome="unknown"\} (\d+)/m.exec(scraped)?.[1])).toBeGreaterThanOrEqual(1);
    expect(Number(/^gateway_acquirer_attempts_awaiting\{acquirer="hyperpay"\} (\d+)/m.exec(scraped)?.[1])).toBeGreaterThanOrEqual(1);
    // And the payment's page in the back office says the gateway is waiting for the acquirer, and when it asks next.
    expect(await acquirerAttemptsOf(store(), [first.body.id])).toEqual([
      { paymentId: first.body.id, acquirer: 'hyperpay', at: expect.any(String), outcome: 'awaiting', inquiries: 0, nextInquiryAt: expect.any(String) },
    ]);
    await recoverAfter(RECOVERY_INTERVAL_MS + 1000);
    expect(await recorded(first.body.id)).toMatchObject({ status: 'approved' });
  });

  it('holds an unknown capture’s amount until the provider is asked, then records it', async () => {
    const preauthorization = await front.post('/v1/payments', cardPayment(front.entityId, { paymentType: 'PA' }));
    proxy.plan(/^POST \/v1\/payments\/[0-9a-f]{32} /, 'hangAfterForward');
    const capture = await front.post(`/v1/payments/${preauthorization.body.id}`, { entityId: front.entityId, paymentType: 'CP', amount: '92.00', currency: 'EUR' });
    expect(capture.body.result.code).toBe('000.200.000');
    // A second capture of the whole amount is refused while the first may have been made.
    const second = await front.post(`/v1/payments/${preauthorization.body.id}`, { entityId: front.entityId, paymentType: 'CP', amount: '92.00', currency: 'EUR' });
    expect(second.body.result.code).toBe('700.400.100');
    await recoverAfter(RECOVERY_INTERVAL_MS + 1000);
    expect(await recorded(capture.body.id)).toEqual({ status: 'approved', result_code: '000.100.110' });
  });

  it('asks again later when the inquiry itself fails', async () => {
    proxy.plan(/^POST \/v1\/payments /, 'hangAfterForward');
    const paid = await front.post('/v1/payments', cardPayment(front.entityId));
    expect(paid.body.result.code).toBe('000.200.000');
    proxy.plan(/^GET \/v1\/query\?/, 'hang');
    await recoverAfter(RECOVERY_INTERVAL_MS + 1000);
    expect(await recorded(paid.body.id)).toMatchObject({ status: 'pending' });
    const [attempt] = await store().query<{ inquiries: number }>('SELECT inquiries FROM acquirer_attempts WHERE payment_id = $1', [paid.body.id]).then((found) => found.rows);
    expect(attempt?.inquiries).toBe(1);
    await recoverAfter(5 * RECOVERY_INTERVAL_MS);
    expect(await recorded(paid.body.id)).toMatchObject({ status: 'approved' });
  });
});
