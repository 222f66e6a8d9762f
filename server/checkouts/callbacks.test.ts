import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startGateway } from '../gateway.ts';
import { findJobByKey } from '../jobs/repository.ts';
import { setShopperResultUrlBase } from '../merchants/repository.ts';
import {
  createTestClock,
  STORE_KINDS,
  startTestGateway,
  warnIfPostgresSkipped,
  type TestClock,
  type TestGateway,
  testCard,
} from '../testing/harness.ts';
import { startReceiver, type ReceivedRequest, type Receiver } from '../testing/receiver.ts';
import { CHECKOUT_NOTIFICATION, SHOPPER_RESULT_CALL } from './callbacks.ts';

warnIfPostgresSkipped('callbacks.test.ts');

/**
 * The gateway's own calls to merchant URLs (the 29-minute call, notificationUrl), received by a real HTTP
 * server on 127.0.0.1. Time moves with the injected clock; jobs run when the test says so.
 */

const MINUTE = 60_000;

const shopperCard = testCard;

function expectResultCall(request: ReceivedRequest | undefined, path: string, checkoutId: string, kind: 'payment' | 'registration' = 'payment'): void {
  expect(request).toBeDefined();
  expect(request?.method).toBe('GET');
  expect(request?.path).toBe(path);
  expect(request?.query.get('id')).toBe(checkoutId);
  expect(request?.query.get('resourcePath')).toBe(`/v1/checkouts/${checkoutId}/${kind}`);
}

describe.each(STORE_KINDS)('checkout callbacks on %s', (kind) => {
  let t: TestGateway;
  let clock: TestClock;
  let receiver: Receiver;
  beforeAll(async () => {
    receiver = await startReceiver();
    clock = createTestClock();
    t = await startTestGateway(kind, {}, { now: clock.now, outboundTimeoutMs: 500 });
    // The merchant's registered return address: result URLs the page posts under it get the 29-minute call.
    await setShopperResultUrlBase(t.gateway.store, t.entityId, `${receiver.url}/`);
  });
  afterAll(async () => {
    await t?.close();
    await receiver?.close();
  });

  const create = async (overrides: Record<string, string> = {}): Promise<string> => {
    const created = await t.post('/v1/checkouts', { entityId: t.entityId, amount: '12.00', currency: 'EUR', paymentType: 'DB', ...overrides });
    expect(created.status).toBe(200);
    return created.body.id as string;
  };
  const submit = (id: string, overrides: Record<string, string> = {}) =>
    t.post(`/v1/checkouts/${id}/payment`, shopperCard({ shopperResultUrl: `${receiver.url}/shop/result?order=7`, ...overrides }), { token: null });
  const read = (id: string) => t.get(`/v1/checkouts/${id}/payment`, { entityId: t.entityId });
  const runJobs = () => t.gateway.jobs.runDueJobs();

  describe('the 29-minute call to shopperResultUrl', () => {
    it('arrives 29 minutes after creation when the shopper paid and the merchant did not read the result', async () => {
      const id = await create();
      clock.advance(5 * MINUTE);
      expect((await submit(id)).status).toBe(200);
      await runJobs();
      clock.advance(24 * MINUTE - 1000);
      await runJobs();
      expect(receiver.requestsFor(id)).toEqual([]);

      clock.advance(1000);
      await runJobs();
      const calls = receiver.requestsFor(id);
      expect(calls).toHaveLength(1);
      expectResultCall(calls[0], '/shop/result', id);
      // The merchant's own query is kept as sent, the gateway's parameters follow it.
      expect(calls[0]?.target).toMatch(/^\/shop\/result\?order=7&id=/);
      expect(calls[0]?.query.get('order')).toBe('7');
      expect((await findJobByKey(t.gateway.store, `${SHOPPER_RESULT_CALL}:${id}`))?.doneAt).not.toBeNull();

      // The call lets the merchant fetch the result in the checkout's last minute.
      const result = await read(id);
      expect(result.status).toBe(200);
      expect(result.body.result.code).toBe('000.100.110');
      clock.advance(MINUTE);
      await runJobs();
      expect(receiver.requestsFor(id)).toHaveLength(1);
    });

    it('names /registration for a registration-only checkout, whose result the merchant then reads there', async () => {
      const created = await t.post('/v1/checkouts', { entityId: t.entityId, createRegistration: 'true' });
      const id = created.body.id as string;
      const registered = await t.post(
        `/v1/checkouts/${id}/registration`,
        shopperCard({ shopperResultUrl: `${receiver.url}/shop/registered` }),
        { token: null },
      );
      expect(registered.status).toBe(200);
      clock.advance(29 * MINUTE);
      await runJobs();
      const calls = receiver.requestsFor(id);
      expect(calls).toHaveLength(1);
      expectResultCall(calls[0], '/shop/registered', id, 'registration');
      const result = await t.get(calls[0]?.query.get('resourcePath') ?? '', { entityId: t.entityId });
      expect(result.status).toBe(200);
      expect(result.body).toMatchObject({ paymentBrand: 'VISA', result: { code: '000.100.110' }, ndc: id });
    });

    it('does not arrive when the merchant has read the result', async () => {
      const id = await create();
      expect((await submit(id)).status).toBe(200);
      expect((await read(id)).status).toBe(200);
      clock.advance(29 * MINUTE);
      await runJobs();
      expect(receiver.requestsFor(id)).toEqual([]);
      const job = await findJobByKey(t.gateway.store, `${SHOPPER_RESULT_CALL}:${id}`);
      expect(job?.doneAt).not.toBeNull();
      expect(job?.attempts).toBe(1);
    });

    it('does not arrive when the pay button was never used', async () => {
      const id = await create({ shopperResultUrl: `${receiver.url}/own/result` });
      clock.advance(29 * MINUTE);
      await runJobs();
      expect(receiver.requestsFor(id)).toEqual([]);
      expect(await findJobByKey(t.gateway.store, `${SHOPPER_RESULT_CALL}:${id}`)).toBeUndefined();
    });

    it("goes once to the checkout's own shopperResultUrl when the submits carry none, however often the shopper retried", async () => {
      const id = await create({ shopperResultUrl: `${receiver.url}/own/result` });
      const declined = await t.post(`/v1/checkouts/${id}/payment`, shopperCard({ 'card.holder': '800.100.203' }), { token: null });
      expect(declined.status).toBe(400);
      const paid = await t.post(`/v1/checkouts/${id}/payment`, shopperCard(), { token: null });
      expect(paid.status).toBe(200);
      clock.advance(29 * MINUTE);
      await runJobs();
      const calls = receiver.requestsFor(id);
      expect(calls).toHaveLength(1);
      expectResultCall(calls[0], '/own/result', id);
    });

    it('survives a restart: scheduled by one gateway, sent by the next one on the same store', async () => {
      const restartClock = createTestClock();
      const first = await startTestGateway(kind, {}, { now: restartClock.now });
      await setShopperResultUrlBase(first.gateway.store, first.entityId, `${receiver.url}/restart/`);
      let second: Awaited<ReturnType<typeof startGateway>> | undefined;
      try {
        const created = await first.post('/v1/checkouts', { entityId: first.entityId, amount: '3.00', currency: 'EUR', paymentType: 'DB' });
        const id = created.body.id as string;
        const paid = await first.post(
          `/v1/checkouts/${id}/payment`,
          shopperCard({ shopperResultUrl: `${receiver.url}/restart/result` }),
          { token: null },
        );
        expect(paid.status).toBe(200);
        await first.gateway.close();

        second = await startGateway(first.gateway.config, { now: restartClock.now, jobPollMs: 0, logSink: () => undefined });
        restartClock.advance(29 * MINUTE);
        // The scheduled call, and the gateway's own housekeeping that may fall due within the same 29 minutes.
        expect(await second.jobs.runDueJobs()).toBeGreaterThanOrEqual(1);
        expect((await findJobByKey(second.store, `${SHOPPER_RESULT_CALL}:${id}`))?.doneAt).not.toBeNull();
        const calls = receiver.requestsFor(id);
        expect(calls).toHaveLength(1);
        expectResultCall(calls[0], '/restart/result', id);
      } finally {
        await second?.close();
        await first.location.dispose();
      }
    });

    it('is never scheduled for a shopperResultUrl that is not http(s): the submit is refused first', async () => {
      const id = await create();
      const refused = await submit(id, { shopperResultUrl: 'ftp://shop.example/result' });
      expect(refused.status).toBe(400);
      expect(refused.body.result).toMatchObject({ code: '200.300.404', parameterErrors: [expect.objectContaining({ name: 'shopperResultUrl' })] });
      expect(await findJobByKey(t.gateway.store, `${SHOPPER_RESULT_CALL}:${id}`)).toBeUndefined();
    });
  });

  describe('notificationUrl', () => {
    it('gives up a URL that is not http(s) at once, and the gateway carries on', async () => {
      const id = await create({ notificationUrl: 'ftp://shop.example/notify' });
      const paid = await submit(id);
      expect(paid.status).toBe(200);
      await runJobs();
      const job = await findJobByKey(t.gateway.store, `${CHECKOUT_NOTIFICATION}:${paid.body.id}`);
      expect(job?.failedAt).not.toBeNull();
      expect(job?.attempts).toBe(1);
      expect(job?.lastError).toMatch(/must be http or https/);
      expect((await read(id)).status).toBe(200);
    });

    it('gets a GET with id and resourcePath after a final result, retried with backoff after HTTP 500', async () => {
      receiver.answer('/notify', 500);
      const id = await create({ notificationUrl: `${receiver.url}/notify?secret=s3cr3t-value` });
      const paid = await submit(id);
      expect(paid.status).toBe(200);
      const key = `${CHECKOUT_NOTIFICATION}:${paid.body.id}`;

      await runJobs();
      expect(receiver.requestsFor(id).filter((request) => request.path === '/notify')).toHaveLength(1);
      const failed = await findJobByKey(t.gateway.store, key);
      expect(failed).toMatchObject({ attempts: 1, doneAt: null, failedAt: null });
      expect(failed?.lastError).toMatch(/HTTP 500/);
      expect(failed?.lastError).not.toContain('s3cr3t');
      expect(failed?.runAt.getTime()).toBe(clock.now().getTime() + 30_000);

      await runJobs();
      expect(receiver.requestsFor(id).filter((request) => request.path === '/notify')).toHaveLength(1);
      clock.advance(30_000);
      await runJobs();
      const notifications = receiver.requestsFor(id).filter((request) => request.path === '/notify');
      expect(notifications).toHaveLength(2);
      for (const notification of notifications) {
        expectResultCall(notification, '/notify', id);
        expect(notification.query.get('secret')).toBe('s3cr3t-value');
      }
      expect((await findJobByKey(t.gateway.store, key))?.doneAt).not.toBeNull();
      for (const line of t.logLines) expect(line).not.toContain('s3cr3t');
    });

    it('names /registration for a registration-only checkout', async () => {
      const created = await t.post('/v1/checkouts', { entityId: t.entityId, createRegistration: 'true', notificationUrl: `${receiver.url}/notify-registration` });
      const id = created.body.id as string;
      expect((await t.post(`/v1/checkouts/${id}/registration`, shopperCard(), { token: null })).status).toBe(200);
      await runJobs();
      const notifications = receiver.requestsFor(id).filter((request) => request.path === '/notify-registration');
      expect(notifications).toHaveLength(1);
      expectResultCall(notifications[0], '/notify-registration', id, 'registration');
    });

    it('goes to each of several checkouts paid at once (one transaction records them), and not to one that named none', async () => {
      const notified = await Promise.all(Array.from({ length: 6 }, (_, i) => create({ notificationUrl: `${receiver.url}/notify-batch-${i}` })));
      const silent = await create();
      const paid = await Promise.all([...notified, silent].map((id) => submit(id)));
      expect(paid.map((answer) => answer.status)).toEqual(Array(7).fill(200));
      await runJobs();
      notified.forEach((id, i) => {
        const calls = receiver.requestsFor(id);
        expect(calls.map((call) => call.path)).toEqual([`/notify-batch-${i}`]);
        expectResultCall(calls[0], `/notify-batch-${i}`, id);
      });
      expect(receiver.requestsFor(silent)).toEqual([]);
      expect(await findJobByKey(t.gateway.store, `${CHECKOUT_NOTIFICATION}:${paid[6]?.body.id}`)).toBeUndefined();
    });

    it('is sent for a declined payment too, once per final result', async () => {
      const id = await create({ notificationUrl: `${receiver.url}/notify-each` });
      expect((await submit(id, { 'card.holder': '800.100.151' })).status).toBe(400);
      expect((await submit(id)).status).toBe(200);
      await runJobs();
      await runJobs();
      expect(receiver.requestsFor(id).filter((request) => request.path === '/notify-each')).toHaveLength(2);
    });

    it('records a receiver that does not answer in time as a failed attempt', async () => {
      receiver.answer('/slow', 'hang');
      const id = await create({ notificationUrl: `${receiver.url}/slow` });
      const paid = await submit(id);
      await runJobs();
      const job = await findJobByKey(t.gateway.store, `${CHECKOUT_NOTIFICATION}:${paid.body.id}`);
      expect(job).toMatchObject({ attempts: 1, doneAt: null, failedAt: null });
      expect(job?.lastError).toMatch(/no answer within 500 ms/);
    });
  });
});
