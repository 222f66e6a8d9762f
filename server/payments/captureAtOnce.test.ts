import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  answerRedirect,
  BROWSER_DATA,
  cardPayment,
  createTestClock,
  startTestGateway,
  STORE_KINDS,
  warnIfPostgresSkipped,
  type TestClock,
  type TestGateway,
} from '../testing/harness.ts';
import { CAPTURE_SAFETY_NET_MS } from './authorize.ts';

warnIfPostgresSkipped('captureAtOnce.test.ts');

/**
 * `paymentType=PA.CP` (what ActiveMerchant and shop plugins send for "authorize and capture"): a preauthorization
 * followed by its capture, in one request. The answer is the capture (paymentType CP, referencedId the
 * preauthorization); a preauthorization that is declined or waits for the shopper is answered as itself.
 */
describe.each(STORE_KINDS)('PA.CP on %s', (kind) => {
  let t: TestGateway;
  let clock: TestClock;
  beforeAll(async () => {
    clock = createTestClock();
    t = await startTestGateway(kind, {}, { now: clock.now });
  });
  afterAll(async () => {
    await t?.close();
  });

  const capturesOf = async (preauthorizationId: string): Promise<{ id: string; result_code: string; amount_minor: number }[]> =>
    (
      await t.gateway.store.query<{ id: string; result_code: string; amount_minor: number }>(
        "SELECT id, result_code, amount_minor FROM payments WHERE parent_id = $1 AND payment_type = 'CP'",
        [preauthorizationId],
      )
    ).rows;
  const read = (id: string) => t.get(`/v1/payments/${id}`, { entityId: t.entityId });

  it('answers the capture of an approved preauthorization, made once even when the safety-net job runs', async () => {
    const answer = await t.post('/v1/payments', cardPayment(t.entityId, { paymentType: 'PA.CP', amount: '25.00' }));
    expect(answer.status).toBe(200);
    expect(answer.body).toMatchObject({ paymentType: 'CP', amount: '25.00', currency: 'EUR', result: { code: '000.100.110' } });
    const preauthorizationId = answer.body.referencedId as string;
    expect(preauthorizationId).toMatch(/^[0-9a-f]{32}$/);
    expect((await read(preauthorizationId)).body).toMatchObject({ paymentType: 'PA', result: { code: '000.100.110' } });
    expect((await read(answer.body.id)).body).toMatchObject({ paymentType: 'CP', referencedId: preauthorizationId });

    clock.advance(CAPTURE_SAFETY_NET_MS + 1000);
    await t.gateway.jobs.runDueJobs();
    expect(await capturesOf(preauthorizationId)).toEqual([{ id: answer.body.id, result_code: '000.100.110', amount_minor: 2500 }]);
  });

  it('answers a declined preauthorization as itself, and captures nothing', async () => {
    const answer = await t.post('/v1/payments', cardPayment(t.entityId, { paymentType: 'PA.CP', 'card.holder': '800.100.151' }));
    expect(answer.status).toBe(400);
    expect(answer.body).toMatchObject({ paymentType: 'PA', result: { code: '800.100.151' } });
    clock.advance(CAPTURE_SAFETY_NET_MS + 1000);
    await t.gateway.jobs.runDueJobs();
    expect(await capturesOf(answer.body.id)).toEqual([]);
  });

  it('captures a preauthorization approved after its 3-D Secure challenge, once the job runs', async () => {
    const pending = await t.post(
      '/v1/payments',
      cardPayment(t.entityId, { paymentType: 'PA.CP', 'card.number': '4200000000000042', shopperResultUrl: 'https://shop.example/r', ...BROWSER_DATA }),
    );
    expect(pending.body).toMatchObject({ paymentType: 'PA', result: { code: '000.200.000' } });
    expect((await answerRedirect(pending)).status).toBe(200);
    expect((await read(pending.body.id)).body.result.code).toBe('000.100.110');
    await t.gateway.jobs.runDueJobs();
    await t.gateway.jobs.runDueJobs();
    expect(await capturesOf(pending.body.id)).toEqual([expect.objectContaining({ result_code: '000.100.110', amount_minor: 9200 })]);
  });

  it('captures nothing after a challenge the shopper failed', async () => {
    const pending = await t.post(
      '/v1/payments',
      cardPayment(t.entityId, { paymentType: 'PA.CP', 'card.number': '4200000000000042', shopperResultUrl: 'https://shop.example/r', ...BROWSER_DATA }),
    );
    await answerRedirect(pending, { action: 'cancel' });
    expect((await read(pending.body.id)).body.result.code).not.toMatch(/^000\./);
    clock.advance(CAPTURE_SAFETY_NET_MS + 1000);
    await t.gateway.jobs.runDueJobs();
    expect(await capturesOf(pending.body.id)).toEqual([]);
  });
});
