import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ConfigError, loadConfig } from '../config.ts';
import { setShopperResultUrlBase } from '../merchants/repository.ts';
import { startReceiver, type Receiver } from '../testing/receiver.ts';
import { cardPayment, STORE_KINDS, startTestGateway, testCard, warnIfPostgresSkipped, type TestGateway } from '../testing/harness.ts';
import { createWebhook } from '../webhooks/service.ts';

warnIfPostgresSkipped('control/control.test.ts');

/**
 * Issue 24: the test-only control API. A CI pipeline moves the gateway's clock and sees what time does (the 29-minute
 * call, a webhook retried after its receiver failed), and reads what the gateway last sent; refused in live, absent
 * unless enabled.
 */

describe.each(STORE_KINDS)('the control API on %s', (kind) => {
  let t: TestGateway;
  let receiver: Receiver;
  beforeAll(async () => {
    receiver = await startReceiver();
    t = await startTestGateway(kind, { testControlApi: true });
    await setShopperResultUrlBase(t.gateway.store, t.entityId, `${receiver.url}/`);
  });
  afterAll(async () => {
    await t?.close();
    await receiver?.close();
  });

  const advance = (seconds: string) => t.post('/test/v1/clock', { advanceSeconds: seconds }, { token: null });

  it('moves the clock, and the 29-minute call to shopperResultUrl comes when it is due, not before', async () => {
    const before = (await t.get('/test/v1/clock', {}, { token: null })).body as { now: string; advancedSeconds: number };
    const created = await t.post('/v1/checkouts', { entityId: t.entityId, amount: '12.00', currency: 'EUR', paymentType: 'DB' });
    const id = created.body.id as string;
    const paid = await t.post(`/v1/checkouts/${id}/payment`, testCard({ shopperResultUrl: `${receiver.url}/shop/result` }), { token: null });
    expect(paid.status).toBe(200);

    const early = await advance('60');
    expect(early.status).toBe(200);
    expect(receiver.requestsFor(id)).toEqual([]);
    // 29 minutes and a half after the checkout was made (at 30 it has expired, and the call is no use any more).
    const due = await advance(String(28 * 60 + 30));
    expect(due.body).toMatchObject({ advancedSeconds: before.advancedSeconds + 60 + 28 * 60 + 30 });
    expect(Date.parse(due.body.now as string) - Date.parse(before.now)).toBeGreaterThanOrEqual((60 + 28 * 60 + 30) * 1000);
    expect((due.body.ran as number) >= 1).toBe(true);
    expect(receiver.requestsFor(id).map((request) => request.path)).toEqual(['/shop/result']);
    const sent = await t.get('/test/v1/sent/notification', {}, { token: null });
    expect(sent.body).toMatchObject({ kind: 'checkout.shopperResultCall', checkoutId: id, outcome: 'done', attempts: 1 });
  });

  it('shows the last webhook sent, decrypted, and a retry after the receiver failed once the clock reaches it', async () => {
    const { webhook } = await createWebhook(t.gateway.webhooks.services, t.entityId, { url: `${receiver.url}/hook`, secret: randomBytes(32).toString('hex'), types: ['PAYMENT'] });
    receiver.answer('/hook', 500);
    const paid = await t.post('/v1/payments', cardPayment(t.entityId));
    await advance('1');
    const failed = await t.get('/test/v1/sent/webhook', { entityId: t.entityId }, { token: null });
    expect(failed.body).toMatchObject({ webhookId: webhook.id, httpStatus: 500, type: 'PAYMENT', action: 'CREATED', payload: { id: paid.body.id } });
    // The retry comes a while later: an hour on is past it.
    await advance('3600');
    const retried = await t.get('/test/v1/sent/webhook', { entityId: t.entityId }, { token: null });
    expect(retried.body).toMatchObject({ webhookId: webhook.id, httpStatus: 200, payload: { id: paid.body.id } });
    expect(Date.parse(retried.body.attemptedAt as string)).toBeGreaterThan(Date.parse(failed.body.attemptedAt as string));
  });

  it('answers each step and the total, shows the moved time in every answer, and resets to the machine’s time', async () => {
    await t.delete('/test/v1/clock', {}, { token: null });
    const first = await advance('3600');
    expect(first.body).toMatchObject({ steppedSeconds: 3600, advancedSeconds: 3600 });
    const second = await advance('86400');
    expect(second.body).toMatchObject({ steppedSeconds: 86400, advancedSeconds: 90000 });
    // A payment made now, and its answer's envelope, are a day and an hour ahead of the machine.
    const paid = await t.post('/v1/payments', cardPayment(t.entityId));
    const ahead = Date.parse(`${(paid.body.timestamp as string).replace(' ', 'T').replace(/\+0000$/, 'Z')}`) - Date.now();
    expect(ahead).toBeGreaterThan(90000 * 1000 - 60_000);
    expect(ahead).toBeLessThan(90000 * 1000 + 60_000);
    const back = await t.post('/test/v1/clock', { reset: 'true' }, { token: null });
    expect(back.body).toMatchObject({ steppedSeconds: -90000, advancedSeconds: 0, ran: 0 });
    expect(Math.abs(Date.parse(back.body.now as string) - Date.now())).toBeLessThan(60_000);
    const read = await t.get(`/v1/payments/${paid.body.id}`, { entityId: t.entityId });
    expect(Math.abs(Date.parse(`${(read.body.timestamp as string).replace(' ', 'T').replace(/\+0000$/, 'Z')}`) - Date.now())).toBeLessThan(60_000);
    expect((await t.delete('/test/v1/clock', {}, { token: null })).body).toMatchObject({ steppedSeconds: 0, advancedSeconds: 0 });
    for (const bad of [{ reset: 'yes' }, { reset: 'true', advanceSeconds: '60' }] as Record<string, string>[]) {
      const refused = await t.post('/test/v1/clock', bad, { token: null });
      expect([refused.status, refused.body.result.parameterErrors?.[0]?.name]).toEqual([400, 'reset']);
    }
  });

  it('refuses an advance that is not a whole number of seconds in range', async () => {
    for (const bad of ['', '0', '-5', '1.5', 'soon', String(400 * 86_400 + 1)]) {
      const answer = await advance(bad);
      expect(answer.status, bad).toBe(400);
      expect(answer.body.result.parameterErrors?.[0]?.name).toBe('advanceSeconds');
    }
  });
});

describe('the control API, off', () => {
  let t: TestGateway;
  beforeAll(async () => {
    t = await startTestGateway('PGlite');
  });
  afterAll(async () => {
    await t?.close();
  });

  it('does not exist unless enabled, and cannot be enabled in live', async () => {
    expect((await t.get('/test/v1/clock', {}, { token: null })).status).toBe(404);
    expect((await t.post('/test/v1/clock', { advanceSeconds: '60' }, { token: null })).status).toBe(404);
    expect(() => loadConfig({ GATEWAY_ENV: 'live', CARD_DATA_KEY: 'ab'.repeat(32), TEST_CONTROL_API: 'true' })).toThrow(ConfigError);
    expect(() => loadConfig({ GATEWAY_ENV: 'live', CARD_DATA_KEY: 'ab'.repeat(32), TEST_CONTROL_API: 'true' })).toThrow(/TEST_CONTROL_API is for tests/);
  });
});
