import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { WEBHOOK_DELIVERY_JOB } from '../events/outbox.ts';
import { findJobByKey } from '../jobs/repository.ts';
import {
  answerRedirect,
  BROWSER_DATA,
  cardPayment,
  createTestClock,
  STORE_KINDS,
  startTestGateway,
  testCard,
  warnIfPostgresSkipped,
  type TestClock,
  type TestGateway,
} from '../testing/harness.ts';
import { phpBinary, startNodeReceiver, startPhpReceiver, warnIfPhpMissing, type NodeReceiver } from '../testing/webhookReceivers.ts';
import { DELIVERY_LIFETIME_MS, FAILING_WEBHOOK_CUTOFF_MS } from './delivery.ts';
import { findWebhook, listDeliveries } from './repository.ts';
import { changeWebhook, createWebhook, removeWebhook, resendDelivery, WebhookConfigError } from './service.ts';

warnIfPostgresSkipped('webhooks.test.ts');
warnIfPhpMissing('webhooks.test.ts');

/** Webhooks (COMPAT §13) against real receivers on loopback that decrypt as published receiver code does. */

const SECRET = '000102030405060708090A0B0C0D0E0F000102030405060708090A0B0C0D0E0F';
const MINUTE = 60_000;
const DAY = 24 * 60 * MINUTE;

describe.each(STORE_KINDS)('webhooks on %s', (kind) => {
  let t: TestGateway;
  let clock: TestClock;
  const receivers: NodeReceiver[] = [];
  beforeAll(async () => {
    clock = createTestClock();
    // A short timeout: receivers that hang or trickle fail within a test, not after 30 s.
    t = await startTestGateway(kind, {}, { now: clock.now, outboundTimeoutMs: 1500 });
  });
  afterAll(async () => {
    await t?.close();
  });
  afterEach(async () => {
    await Promise.all(receivers.splice(0).map((receiver) => receiver.close()));
  });

  const services = () => t.gateway.webhooks.services;
  const deliver = () => t.gateway.webhooks.deliveries.runDueJobs();
  async function receiver(behaviour: Parameters<typeof startNodeReceiver>[1] = 200): Promise<NodeReceiver> {
    const started = await startNodeReceiver(SECRET, behaviour);
    receivers.push(started);
    return started;
  }
  /** A webhook of a merchant of its own, activated by the receiver's first answer. */
  async function webhookFor(target: { url: string }, settings: Record<string, unknown> = {}) {
    const merchant = await t.newMerchant();
    const created = await createWebhook(services(), merchant.entityId, { url: target.url, secret: SECRET, ...settings });
    return { ...created, merchant };
  }
  const payAs = (merchant: { entityId: string; token: string }, overrides: Record<string, string> = {}) =>
    t.post('/v1/payments', cardPayment(merchant.entityId, overrides), { token: merchant.token });
  const notificationsOf = (target: NodeReceiver) => target.received.map((request) => request.json as { type: string; action: string; payload: Record<string, unknown> });

  it('is activated by a 2xx to its activation message, and only then notified', async () => {
    const target = await receiver(500);
    const { webhook, activation, merchant, secret } = await webhookFor(target);
    expect(secret).toBe(SECRET);
    expect(activation).toMatchObject({ delivered: false, httpStatus: 500 });
    expect(webhook.status).toBe('pending');
    expect(notificationsOf(target)).toEqual([
      { type: 'test', action: 'webhook activation', payload: { result: { code: '000.100.110', description: expect.any(String) } } },
    ]);
    await payAs(merchant);
    await deliver();
    expect(target.received).toHaveLength(1);

    // Switched on again by the operator: the activation goes again, and this time gets its 2xx.
    target.setBehaviour(200);
    const retried = await changeWebhook(services(), webhook.id, { active: true });
    expect(retried.activation).toMatchObject({ delivered: true, httpStatus: 200 });
    expect(retried.webhook.status).toBe('active');
    const paid = await payAs(merchant);
    await deliver();
    const [, , payment] = notificationsOf(target);
    expect(payment).toMatchObject({ type: 'PAYMENT', action: 'CREATED', payload: { id: paid.body.id } });
  });

  it('sends each PAYMENT encrypted as COMPAT §13 says: headers, upper-case hex, every field a receiver relies on', async () => {
    const target = await receiver();
    const { merchant, webhook } = await webhookFor(target);
    expect(webhook.status).toBe('active');
    const paid = await payAs(merchant, { 'customer.givenName': 'Jane', 'customer.surname': 'Jones' });
    expect(await deliver()).toBe(1);
    const request = target.received.at(-1);
    expect(request?.method).toBe('POST');
    expect(request?.rawHeaders).toEqual(expect.arrayContaining(['X-Initialization-Vector', 'X-Authentication-Tag']));
    expect(request?.headers['x-initialization-vector']).toMatch(/^[0-9A-F]{24}$/);
    expect(request?.headers['x-authentication-tag']).toMatch(/^[0-9A-F]{32}$/);
    expect(request?.headers['content-type']).toBe('text/plain; charset=UTF-8');
    expect(request?.body).toMatch(/^[0-9A-F]+$/);
    expect(request?.json).toMatchObject({
      type: 'PAYMENT',
      action: 'CREATED',
      payload: {
        id: paid.body.id,
        paymentType: 'DB',
        amount: '92.00',
        currency: 'EUR',
        presentationAmount: '92.00',
        presentationCurrency: 'EUR',
        authentication: { entityId: merchant.entityId },
        paymentMethod: 'CC',
        shortId: expect.stringMatching(/^\d{4}\.\d{4}\.\d{4}$/),
        source: 'API',
        result: { code: '000.100.110' },
        card: { bin: '420000', last4Digits: '0000', holder: 'Jane Jones' },
        customer: { givenName: 'Jane', surname: 'Jones' },
        ndc: expect.stringMatching(new RegExp(`^${merchant.entityId}_[0-9a-f]{32}$`)),
        timestamp: expect.any(String),
      },
    });
    // A refund notifies too, naming what it refunds.
    await t.post(`/v1/payments/${paid.body.id}`, { entityId: merchant.entityId, paymentType: 'RF', amount: '1.00', currency: 'EUR' }, { token: merchant.token });
    await deliver();
    expect(notificationsOf(target).at(-1)).toMatchObject({ type: 'PAYMENT', payload: { paymentType: 'RF', referencedId: paid.body.id } });
    const log = await listDeliveries(t.gateway.store, webhook.id, 10);
    expect(log).toHaveLength(2);
    expect(log.every((delivery) => delivery.deliveredAt !== null && delivery.attempts.length === 1 && delivery.attempts[0]?.httpStatus === 200)).toBe(true);
  });

  it('notifies a pending payment twice: pending with its redirect, then final', async () => {
    const target = await receiver();
    const { merchant } = await webhookFor(target);
    const pending = await payAs(merchant, { 'card.number': '4200000000000042', shopperResultUrl: 'https://shop.example/r', ...BROWSER_DATA });
    // Delivered one by one here: the order of deliveries is not guaranteed (COMPAT §13).
    await deliver();
    await answerRedirect(pending);
    await deliver();
    const payments = notificationsOf(target).filter((notification) => notification.type === 'PAYMENT');
    expect(payments.map((notification) => [notification.action, (notification.payload.result as { code: string }).code])).toEqual([
      ['CREATED', '000.200.000'],
      ['UPDATED', '000.100.110'],
    ]);
    expect(payments[0]?.payload.redirect).toBeDefined();
    expect(payments[1]?.payload.redirect).toBeUndefined();
  });

  it('notifies REGISTRATION created and deleted, only the types subscribed, without customer data when asked', async () => {
    const target = await receiver();
    const { merchant } = await webhookFor(target, { types: ['REGISTRATION'], fields: 'NON_CUSTOMER_DATA', wrapper: 'JSON' });
    const stored = await t.post('/v1/registrations', { entityId: merchant.entityId, ...testCard(), 'customer.givenName': 'Jane', 'customer.surname': 'Jones' }, { token: merchant.token });
    await payAs(merchant);
    await deliver();
    await t.delete(`/v1/registrations/${stored.body.id}`, { entityId: merchant.entityId }, { token: merchant.token });
    await deliver();
    const notifications = notificationsOf(target).slice(1);
    expect(notifications.map((notification) => [notification.type, notification.action, notification.payload.paymentType])).toEqual([
      ['REGISTRATION', 'CREATED', 'RG'],
      ['REGISTRATION', 'DELETED', 'DR'],
    ]);
    expect(notifications[0]?.payload).toMatchObject({ id: stored.body.id, authentication: { entityId: merchant.entityId }, card: { last4Digits: '0000' } });
    expect(notifications[0]?.payload.customer).toBeUndefined();
    expect((notifications[0]?.payload.card as Record<string, unknown>).holder).toBeUndefined();
    const request = target.received.at(-1);
    expect(request?.headers['content-type']).toBe('application/json; charset=UTF-8');
    expect(JSON.parse(request?.body ?? '{}')).toEqual({ encryptedBody: expect.stringMatching(/^[0-9A-F]+$/) });
  });

  it('retries after 1, 2 and 4 minutes with a fresh IV each time, logging every attempt, until a 2xx', async () => {
    const target = await receiver([200, 500, 500, 500, 200]);
    const { merchant, webhook } = await webhookFor(target);
    await payAs(merchant);
    for (const wait of [0, MINUTE, 2 * MINUTE, 4 * MINUTE]) {
      clock.advance(wait);
      await deliver();
    }
    const attempts = target.received.slice(1);
    expect(attempts.map((request) => request.status)).toEqual([500, 500, 500, 200]);
    expect(new Set(attempts.map((request) => request.headers['x-initialization-vector'])).size).toBe(4);
    expect(new Set(attempts.map((request) => request.plaintext)).size).toBe(1);
    const [delivery] = await listDeliveries(t.gateway.store, webhook.id, 10);
    expect(delivery?.deliveredAt).not.toBeNull();
    expect(delivery?.attempts.map((attempt) => attempt.httpStatus)).toEqual([500, 500, 500, 200]);
    expect(delivery?.attempts[0]?.error).toBe('answered HTTP 500');
    // Nothing due any more.
    clock.advance(DAY);
    expect(await deliver()).toBe(0);
  });

  it('fails an attempt for a receiver that hangs, trickles, floods, redirects or hangs up, and delays no one else', async () => {
    const healthy = await receiver();
    const { merchant: other } = await webhookFor(healthy);
    const behaviours = [
      { kind: 'hang' as const },
      { kind: 'slow' as const, intervalMs: 200, bytes: 200 },
      { kind: 'huge' as const, bytes: 5 * 1024 * 1024 },
      { kind: 'redirect' as const, location: `${healthy.url}/elsewhere` },
      { kind: 'close' as const },
    ];
    const expected = [/no answer within 1500 ms/, /no answer within 1500 ms/, /exceeded 65536 bytes/, /answered HTTP 302/, /socket hang up|ECONNRESET|closed/];
    const webhooks = [];
    for (const behaviour of behaviours) {
      const target = await receiver();
      const created = await webhookFor(target);
      target.setBehaviour(behaviour);
      webhooks.push(created);
      await payAs(created.merchant);
    }
    await payAs(other);
    const started = performance.now();
    await deliver();
    // The healthy receiver got its payment in the same run, though five others failed (two of them by timeout).
    expect(notificationsOf(healthy).some((notification) => notification.type === 'PAYMENT')).toBe(true);
    expect(performance.now() - started).toBeLessThan(10_000);
    for (const [index, { webhook }] of webhooks.entries()) {
      const [delivery] = await listDeliveries(t.gateway.store, webhook.id, 1);
      expect(delivery?.deliveredAt ?? null, String(index)).toBeNull();
      expect(delivery?.attempts[0]?.error ?? '', String(index)).toMatch(expected[index] as RegExp);
    }
    // The redirect was not followed.
    expect(healthy.received.some((request) => request.path.startsWith('/elsewhere'))).toBe(false);
  });

  it('switches a webhook off after 5 days of failures and gives a delivery up 30 days after it was created', async () => {
    const target = await receiver();
    const { merchant, webhook } = await webhookFor(target);
    target.setBehaviour(503);
    await payAs(merchant);
    await deliver();
    let waited = 0;
    // Tried every day after the first hours; the attempt past 5 days switches the webhook off, the next gives up.
    while (waited < FAILING_WEBHOOK_CUTOFF_MS + 2 * DAY) {
      clock.advance(60 * MINUTE);
      waited += 60 * MINUTE;
      await deliver();
    }
    const off = await findWebhook(t.gateway.store, webhook.id);
    expect(off?.status).toBe('inactive');
    expect(off?.statusReason).toMatch(/failed for 5 days/);
    const [delivery] = await listDeliveries(t.gateway.store, webhook.id, 1);
    expect(delivery?.givenUpAt).not.toBeNull();
    // Inactive: new events make no deliveries.
    await payAs(merchant);
    expect(await listDeliveries(t.gateway.store, webhook.id, 10)).toHaveLength(1);
    expect(DELIVERY_LIFETIME_MS).toBe(30 * DAY);
  });

  /** Counts the statements (by their first words) and transactions the gateway's store runs while `work` does. */
  async function countingStatements<T>(work: () => Promise<T>): Promise<{ result: T; statements: Map<string, number>; transactions: number }> {
    const store = t.gateway.store as { -readonly [K in keyof typeof t.gateway.store]: (typeof t.gateway.store)[K] };
    const { query, transaction } = store;
    const statements = new Map<string, number>();
    let transactions = 0;
    store.query = ((sql: string, ...rest: Parameters<typeof query> extends [string, ...infer R] ? R : never) => {
      const key = sql.trim().split(/\s+/).slice(0, 3).join(' ');
      statements.set(key, (statements.get(key) ?? 0) + 1);
      return query(sql, ...rest);
    }) as typeof query;
    store.transaction = ((work: Parameters<typeof transaction>[0]) => {
      transactions += 1;
      return transaction(work);
    }) as typeof transaction;
    try {
      return { result: await work(), statements, transactions };
    } finally {
      store.query = query;
      store.transaction = transaction;
    }
  }

  it('sends a batch with one read and records it with one write: delivered, failed, given up, and a job taken over meanwhile', async () => {
    const delivered = await webhookFor(await receiver());
    const failingTarget = await receiver();
    const failing = await webhookFor(failingTarget);
    failingTarget.setBehaviour(500);
    const switchedOff = await webhookFor(await receiver());
    const oldTarget = await receiver();
    const old = await webhookFor(oldTarget);
    // A receiver that, while it answers, sees its job taken over by another worker (as after an expired lease).
    let takeOverJob: string | undefined;
    const takingOver = createServer((request, response) => {
      request.resume();
      const job = takeOverJob;
      if (!job) return void response.end('ok');
      void t.gateway.store.query('UPDATE jobs AS taken SET claim_token = $1 WHERE unique_key = $2', ['f'.repeat(32), job]).then(() => response.end('ok'));
    });
    await new Promise<void>((resolve) => takingOver.listen(0, '127.0.0.1', resolve));
    try {
      const taken = await webhookFor({ url: `http://127.0.0.1:${(takingOver.address() as AddressInfo).port}/hook` });
      for (const { merchant } of [delivered, failing, switchedOff, old, taken]) await payAs(merchant);
      const deliveryOf = async (webhookId: string) => (await listDeliveries(t.gateway.store, webhookId, 1))[0]?.id as string;
      const jobOf = async (webhookId: string) => findJobByKey(t.gateway.store, `${WEBHOOK_DELIVERY_JOB}:${await deliveryOf(webhookId)}`);
      takeOverJob = `${WEBHOOK_DELIVERY_JOB}:${await deliveryOf(taken.webhook.id)}`;
      await changeWebhook(services(), switchedOff.webhook.id, { active: false });
      await t.gateway.store.query("UPDATE webhook_deliveries SET created_at = created_at - interval '31 days' WHERE webhook_id = $1", [old.webhook.id]);
      const startedAt = clock.now().getTime();

      const first = await countingStatements(deliver);
      expect(first.result).toBe(5);
      // One claim, one read of the five deliveries, one write of their outcomes, one of the jobs' marks (and the
      // secrets of the three webhooks sent to, opened once per process); the failing webhook's first failure is the
      // one change of a webhook's state.
      expect(Object.fromEntries(first.statements)).toEqual({
        'UPDATE jobs SET': 1,
        'SELECT d.id, d.webhook_id,': 1,
        'SELECT key_id, iv,': 3,
        'WITH entries AS': 1,
        'UPDATE jobs j': 1,
        'UPDATE jobs AS': 1,
      });
      expect(first.transactions).toBe(1);

      const [sent] = await listDeliveries(t.gateway.store, delivered.webhook.id, 1);
      expect(sent?.deliveredAt).not.toBeNull();
      expect(sent?.attempts).toEqual([expect.objectContaining({ httpStatus: 200, error: null })]);
      expect((await jobOf(delivered.webhook.id))?.doneAt).not.toBeNull();

      const [retried] = await listDeliveries(t.gateway.store, failing.webhook.id, 1);
      expect(retried).toMatchObject({ deliveredAt: null, givenUpAt: null });
      expect(retried?.attempts).toEqual([expect.objectContaining({ httpStatus: 500, error: 'answered HTTP 500' })]);
      const retryJob = await jobOf(failing.webhook.id);
      expect(retryJob).toMatchObject({ doneAt: null, failedAt: null, lastError: 'answered HTTP 500' });
      expect(retryJob?.runAt.getTime()).toBe(startedAt + MINUTE);
      expect((await findWebhook(t.gateway.store, failing.webhook.id))?.failingSince?.getTime()).toBe(startedAt);

      for (const [{ webhook }, reason] of [
        [switchedOff, /is not active/],
        [old, /not delivered within 30 days/],
      ] as const) {
        const [givenUp] = await listDeliveries(t.gateway.store, webhook.id, 1);
        expect(givenUp).toMatchObject({ deliveredAt: null, attempts: [] });
        expect(givenUp?.givenUpAt).not.toBeNull();
        const job = await jobOf(webhook.id);
        expect(job?.failedAt).not.toBeNull();
        expect(job?.lastError).toMatch(reason);
      }
      expect(notificationsOf(oldTarget).filter((notification) => notification.type === 'PAYMENT')).toEqual([]);

      // Sent and logged, but the job is its new holder's: this worker's late result does not count.
      const [takenOver] = await listDeliveries(t.gateway.store, taken.webhook.id, 1);
      expect(takenOver?.deliveredAt).not.toBeNull();
      expect(takenOver?.attempts).toHaveLength(1);
      expect(await jobOf(taken.webhook.id)).toMatchObject({ doneAt: null, failedAt: null });
      expect((await t.gateway.store.query('SELECT claim_token FROM jobs WHERE unique_key = $1', [takeOverJob])).rows).toEqual([{ claim_token: 'f'.repeat(32) }]);

      // Failing again changes nothing of the webhook: its state is not written again.
      clock.advance(MINUTE);
      const second = await countingStatements(deliver);
      expect(second.result).toBe(1);
      expect(Object.fromEntries(second.statements)).toEqual({ 'UPDATE jobs SET': 1, 'SELECT d.id, d.webhook_id,': 1, 'WITH entries AS': 1, 'UPDATE jobs j': 1 });
      expect(second.transactions).toBe(0);
      const [again] = await listDeliveries(t.gateway.store, failing.webhook.id, 1);
      expect(again?.attempts.map((attempt) => attempt.httpStatus)).toEqual([500, 500]);
      expect((await findWebhook(t.gateway.store, failing.webhook.id))?.failingSince?.getTime()).toBe(startedAt);
      // Failures are logged; deliveries done are in their attempt rows, not in a log line each.
      expect(t.logLines.filter((line) => line.includes('job failed, will retry') && line.includes(WEBHOOK_DELIVERY_JOB)).length).toBeGreaterThanOrEqual(2);
      expect(t.logLines.some((line) => line.includes('"job done"') && line.includes(WEBHOOK_DELIVERY_JOB))).toBe(false);
    } finally {
      takingOver.closeAllConnections();
      await new Promise<void>((resolve) => takingOver.close(() => resolve()));
    }
  });

  it('keeps a delivery while its webhook waits for a new URL’s activation, and sends it there once active', async () => {
    const first = await receiver();
    const { merchant, webhook } = await webhookFor(first);
    const moved = await receiver(500);
    await payAs(merchant);
    // The new address does not answer the activation: the webhook is pending, the delivery waits.
    expect((await changeWebhook(services(), webhook.id, { url: moved.url })).webhook.status).toBe('pending');
    await deliver();
    const [waiting] = await listDeliveries(t.gateway.store, webhook.id, 1);
    expect(waiting?.givenUpAt).toBeNull();
    moved.setBehaviour(200);
    expect((await changeWebhook(services(), webhook.id, { active: true })).webhook.status).toBe('active');
    clock.advance(MINUTE);
    await deliver();
    expect(notificationsOf(moved).filter((notification) => notification.type === 'PAYMENT')).toHaveLength(1);
    expect(notificationsOf(first).filter((notification) => notification.type === 'PAYMENT')).toHaveLength(0);
  });

  it('re-sends a delivery on the operator’s word, and removes a webhook with its secret', async () => {
    const target = await receiver();
    const { merchant, webhook } = await webhookFor(target);
    await payAs(merchant);
    await deliver();
    const [delivery] = await listDeliveries(t.gateway.store, webhook.id, 1);
    await resendDelivery(services(), delivery?.id as string);
    await deliver();
    const payments = notificationsOf(target).filter((notification) => notification.type === 'PAYMENT');
    expect(payments).toHaveLength(2);
    expect(payments[0]).toEqual(payments[1]);
    await removeWebhook(services(), webhook.id);
    expect((await t.gateway.store.query('SELECT 1 FROM vault_items WHERE id = $1', [webhook.secretId])).rows).toEqual([]);
    await payAs(merchant);
    expect(await deliver()).toBe(0);
  });

  it('refuses URLs that are not http(s), carry credentials or point at the gateway, and unknown settings', async () => {
    const merchant = await t.newMerchant();
    for (const url of ['ftp://shop.example/hook', 'https://user:pass@shop.example/hook', `${t.url}/v1/payments`, 'not a url']) {
      await expect(createWebhook(services(), merchant.entityId, { url })).rejects.toThrow(WebhookConfigError);
    }
    await expect(createWebhook(services(), merchant.entityId, { url: 'https://shop.example/h', types: ['PAYMENTS'] })).rejects.toThrow(/types must be/);
    await expect(createWebhook(services(), merchant.entityId, { url: 'https://shop.example/h', secret: 'short' })).rejects.toThrow(/secret must be/);
    await expect(createWebhook(services(), 'f'.repeat(32), { url: 'https://shop.example/h' })).rejects.toThrow(/does not exist/);
    await expect(createWebhook({ ...services(), environment: 'live' }, merchant.entityId, { url: 'http://shop.example/h' })).rejects.toThrow(/https in live/);
    expect((await t.gateway.store.query('SELECT 1 FROM webhooks WHERE entity_id = $1', [merchant.entityId])).rows).toEqual([]);
  });

  it.runIf(phpBinary() !== undefined)('is decrypted by the published PHP receiver code (openssl_decrypt), in both wrappers', async () => {
    const php = await startPhpReceiver(SECRET);
    if (!php) throw new Error('php is on PATH but the receiver did not start');
    try {
      const { merchant } = await webhookFor(php);
      const paid = await payAs(merchant);
      await deliver();
      const received = await php.waitFor(2);
      expect(received.map((entry) => entry.ok)).toEqual([true, true]);
      expect(received[1]?.json).toMatchObject({ type: 'PAYMENT', payload: { id: paid.body.id } });
      const json = await webhookFor(php, { wrapper: 'JSON' });
      await payAs(json.merchant);
      await deliver();
      expect((await php.waitFor(4)).every((entry) => entry.ok)).toBe(true);
    } finally {
      await php.close();
    }
  });
});
