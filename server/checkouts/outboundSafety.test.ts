import { lookup } from 'node:dns/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { findJobByKey } from '../jobs/repository.ts';
import { setShopperResultUrlBase } from '../merchants/repository.ts';
import { createTestClock, startTestGateway, testCard, type TestClock, type TestGateway } from '../testing/harness.ts';
import { startReceiver, type Receiver } from '../testing/receiver.ts';
import { CHECKOUT_NOTIFICATION, SHOPPER_RESULT_CALL } from './callbacks.ts';

/**
 * The gateway's calls to addresses merchants and shoppers name (the 29-minute call, notificationUrl) cannot be
 * turned against the gateway's own network: a shopper does not choose where the gateway calls, private addresses
 * are refused unless allowed, redirects are not followed, and the address checked is the address connected to.
 * Made-up host names are resolved by the test (DNS for arbitrary names does not exist here), localhost by the system.
 */

const MINUTE = 60_000;

interface Lookup {
  readonly hostname: string;
  readonly answered: string;
}

describe('outbound calls', () => {
  let receiver: Receiver;
  let clock: TestClock;
  /** The live-like gateway: private addresses refused. */
  let strict: TestGateway;
  /** The test-environment gateway: private addresses allowed (the default in test). */
  let open: TestGateway;
  const lookups: Lookup[] = [];
  /** What the test's resolver answers, per host name, in turn (the last answer repeats). */
  const zone = new Map<string, string[]>();
  const resolve = async (hostname: string) => {
    const answers = zone.get(hostname);
    // Names the test does not define (localhost) are resolved by the system, as in production.
    if (!answers) return lookup(hostname, { all: true });
    const address = (answers.length > 1 ? answers.shift() : answers[0]) as string;
    lookups.push({ hostname, answered: address });
    return [{ address, family: address.includes(':') ? 6 : 4 }];
  };

  beforeAll(async () => {
    receiver = await startReceiver();
    clock = createTestClock();
    // The strict gateway's calls to an address where nothing listens end at its short timeout; the open gateway's
    // calls reach the receiver, and must not time out on a machine busy with other test files.
    strict = await startTestGateway('PGlite', { outboundAllowPrivate: false }, { now: clock.now, outboundTimeoutMs: 500, resolve });
    open = await startTestGateway('PGlite', {}, { now: clock.now, outboundTimeoutMs: 10_000, resolve });
  });
  afterAll(async () => {
    await strict?.close();
    await open?.close();
    await receiver?.close();
  });

  const port = () => new URL(receiver.url).port;
  async function paidCheckout(t: TestGateway, checkout: Record<string, string>, page: Record<string, string> = {}) {
    const created = await t.post('/v1/checkouts', { entityId: t.entityId, amount: '9.00', currency: 'EUR', paymentType: 'DB', ...checkout });
    const id = created.body.id as string;
    const paid = await t.post(`/v1/checkouts/${id}/payment`, testCard(page), { token: null });
    expect(paid.status).toBe(200);
    return { id, paymentId: paid.body.id as string };
  }
  const notificationJob = (t: TestGateway, paymentId: string) => findJobByKey(t.gateway.store, `${CHECKOUT_NOTIFICATION}:${paymentId}`);

  describe('the 29-minute call', () => {
    it("never goes to a result URL the page chose, unless it lies under the merchant's registered base", async () => {
      const outside = await paidCheckout(open, {}, { shopperResultUrl: `${receiver.url}/attacker/collect` });
      expect(await findJobByKey(open.gateway.store, `${SHOPPER_RESULT_CALL}:${outside.id}`)).toBeUndefined();

      await setShopperResultUrlBase(open.gateway.store, open.entityId, `${receiver.url}/shop/`);
      const elsewhere = await paidCheckout(open, {}, { shopperResultUrl: `${receiver.url}/attacker/collect` });
      expect(await findJobByKey(open.gateway.store, `${SHOPPER_RESULT_CALL}:${elsewhere.id}`)).toBeUndefined();
      const under = await paidCheckout(open, {}, { shopperResultUrl: `${receiver.url}/shop/result` });
      // The checkout's own URL, set by the merchant's server, wins over whatever the page posted.
      const own = await paidCheckout(open, { shopperResultUrl: `${receiver.url}/own/result` }, { shopperResultUrl: `${receiver.url}/shop/result` });

      clock.advance(29 * MINUTE);
      await open.gateway.jobs.runDueJobs();
      expect(receiver.requests.filter((request) => request.path === '/attacker/collect')).toEqual([]);
      expect(receiver.requestsFor(under.id).map((request) => request.path)).toEqual(['/shop/result']);
      expect(receiver.requestsFor(own.id).map((request) => request.path)).toEqual(['/own/result']);
    });
  });

  describe('with private addresses refused (live)', () => {
    it.each([
      ['a loopback address', () => `${receiver.url}/notify`],
      ['localhost', () => `http://localhost:${port()}/notify`],
      ['a name resolving to a private address', () => `http://intranet.shop.test:${port()}/notify`],
      ['a name resolving to the metadata service', () => `http://metadata.shop.test/latest/meta-data/`],
      ['an IPv4-mapped loopback address', () => `http://[::ffff:127.0.0.1]:${port()}/notify`],
    ])('refuses %s at once, and sends nothing', async (_what, url) => {
      zone.set('intranet.shop.test', ['10.1.2.3']);
      zone.set('metadata.shop.test', ['169.254.169.254']);
      const before = receiver.requests.length;
      const { paymentId } = await paidCheckout(strict, { notificationUrl: url() });
      await strict.gateway.jobs.runDueJobs();
      const job = await notificationJob(strict, paymentId);
      expect(job?.failedAt).not.toBeNull();
      expect(job?.attempts).toBe(1);
      expect(job?.lastError).toMatch(/refused: .*loopback, private or link-local address/);
      expect(receiver.requests.length).toBe(before);
    });

    it('connects to the address it checked, not to what the name resolves to a moment later (DNS rebinding)', async () => {
      // A public address first (checked, and connected to: nothing listens there), then the gateway's own.
      zone.set('rebind.shop.test', ['93.184.216.34', '127.0.0.1']);
      lookups.length = 0;
      const before = receiver.requests.length;
      const { paymentId } = await paidCheckout(strict, { notificationUrl: `http://rebind.shop.test:${port()}/notify` });
      await strict.gateway.jobs.runDueJobs();
      expect(lookups).toEqual([{ hostname: 'rebind.shop.test', answered: '93.184.216.34' }]);
      const job = await notificationJob(strict, paymentId);
      expect(job?.failedAt).toBeNull();
      expect(job?.doneAt).toBeNull();
      expect(receiver.requests.length).toBe(before);
    });
  });

  describe('with private addresses allowed (test)', () => {
    it('reaches a local receiver by a resolved name, connecting to the resolved address', async () => {
      zone.set('shop.test', ['127.0.0.1']);
      const { id } = await paidCheckout(open, { notificationUrl: `http://shop.test:${port()}/by-name` });
      await open.gateway.jobs.runDueJobs();
      const [call] = receiver.requestsFor(id).filter((request) => request.path === '/by-name');
      expect(call?.headers.host).toBe(`shop.test:${port()}`);
    });

    it('does not follow a redirect: the attempt fails and the target is never called', async () => {
      receiver.answer('/moved', { redirectTo: `${receiver.url}/internal-admin` });
      const { id, paymentId } = await paidCheckout(open, { notificationUrl: `${receiver.url}/moved` });
      await open.gateway.jobs.runDueJobs();
      expect(receiver.requestsFor(id).map((request) => request.path)).toEqual(['/moved']);
      expect(receiver.requests.some((request) => request.path === '/internal-admin')).toBe(false);
      const job = await notificationJob(open, paymentId);
      expect(job?.lastError).toMatch(/answered HTTP 302 \(redirects are not followed\)/);
    });
  });
});
