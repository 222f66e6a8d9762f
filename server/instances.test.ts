import { randomBytes } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { grantToken, newAccessToken, revokeToken } from './merchants/repository.ts';
import { openStore, type Store } from './store/index.ts';
import { startGatewayProcess, type GatewayProcess } from './testing/gatewayProcess.ts';
import { cardPayment, CIT_INITIAL, freshStoreLocation, MIT_REPEATED, STORE_KINDS, testCard, warnIfPostgresSkipped, type StoreLocation } from './testing/harness.ts';
import { RECEIVER_CONCURRENCY } from './webhooks/delivery.ts';

warnIfPostgresSkipped('instances.test.ts (three gateway processes on one PostgreSQL)');

/**
 * Issue 24: several instances, proven. Three gateway processes on one PostgreSQL, load spread across them, one killed
 * (SIGKILL) in the middle of it: every payment a client asked for exists once, whichever instance answered it, the
 * clients that lost their answer getting it from another instance with the same Idempotency-Key; a checkout made on
 * one instance is paid through another; a key replayed on another instance answers the first answer; a request
 * limit is counted across instances; every payment's webhook is delivered once; a schedule's fire times are each
 * taken and paid once; a revoked token is refused everywhere within TOKEN_CACHE_SECONDS.
 */

const ADMIN_TOKEN = randomBytes(24).toString('hex');
const PAYMENTS = 60;
const LOOPS = 6;

interface Instance {
  readonly process: GatewayProcess;
  readonly url: string;
}

interface Answer {
  readonly status: number;
  readonly headers: Headers;
  readonly body: { id?: string; result?: { code?: string } };
}

async function send(url: string, init: RequestInit = {}): Promise<Answer> {
  const response = await fetch(url, init);
  return { status: response.status, headers: response.headers, body: (await response.json()) as Answer['body'] };
}

describe.each(STORE_KINDS.filter((kind) => kind === 'PostgreSQL'))('three gateway instances on one %s', () => {
  let location: StoreLocation;
  let store: Store;
  let instances: Instance[];
  let receiver: Server;
  /** Webhook requests the receiver got. */
  let hooks = 0;
  const entityId = randomBytes(16).toString('hex');
  const token = `instances-${randomBytes(16).toString('hex')}`;
  const form = { Authorization: `Bearer ${token}`, 'Content-Type': 'application/x-www-form-urlencoded' };

  beforeAll(async () => {
    location = await freshStoreLocation('PostgreSQL');
    receiver = createServer((request, response) => {
      request.resume();
      request.on('end', () => {
        hooks++;
        response.writeHead(200).end('OK');
      });
    });
    await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
    const env = {
      DATA_DIR: location.dataDir,
      DATABASE_URL: location.databaseUrl ?? '',
      CARD_DATA_KEY: location.cardDataKey?.toString('hex') ?? '',
      PORT: '0',
      HOST: '127.0.0.1',
      DEMO_ENTITY_ID: entityId,
      DEMO_ACCESS_TOKEN: token,
      ADMIN_TOKEN,
      TOKEN_CACHE_SECONDS: '1',
      // Payments wait at the acquirer, so the kill finds some in flight.
      SIMULATED_ACQUIRER_LATENCY_MS: '150',
      LOG_LEVEL: 'warn',
    };
    const processes = Array.from({ length: 3 }, () => startGatewayProcess(env));
    instances = await Promise.all(processes.map(async (process) => ({ process, url: /Gateway listening on (\S+)/.exec(await process.listening)?.[1] as string })));
    store = await openStore({ databaseUrl: location.databaseUrl, dataDir: location.dataDir });
  }, 120_000);

  afterAll(async () => {
    await Promise.all((instances ?? []).map((instance) => instance.process.kill()));
    await store?.close();
    await new Promise((resolve) => receiver?.close(resolve));
    await location?.dispose();
  });

  it('loses and doubles nothing when one is killed under load (webhooks: at least once), and shares keys, checkouts, limits, webhooks, schedules and tokens', async () => {
    const [first, second, third] = instances as [Instance, Instance, Instance];
    const hookUrl = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/hook`;
    const made = await send(`${first.url}/admin/v1/webhooks`, {
      method: 'POST',
      headers: { Authorization: `Bearer ${ADMIN_TOKEN}`, 'Content-Type': 'application/json' },
      body: JSON.stringify({ entityId, url: hookUrl, types: ['PAYMENT'] }),
    });
    expect(made.status).toBe(201);

    // Load across the three, each payment with its own key; the second instance dies a third of the way in.
    const alive = new Set(instances);
    const answered = new Map<string, string>();
    let sent = 0;
    let retried = 0;
    const pay = async (index: number) => {
      const key = `instances-${index}`;
      const body = new URLSearchParams(cardPayment(entityId, { merchantTransactionId: `instances-payment-${index}` }));
      for (let attempt = 0; ; attempt++) {
        const live = [...alive];
        const instance = live[(index + attempt) % live.length] as Instance;
        try {
          const answer = await send(`${instance.url}/v1/payments`, { method: 'POST', headers: { ...form, 'Idempotency-Key': key }, body });
          // 409: the key's first request is still being made (on the killed instance, until its session ends).
          if (answer.status === 409) throw new Error('still being made');
          expect(answer.status, JSON.stringify(answer.body)).toBe(200);
          answered.set(key, answer.body.id as string);
          return;
        } catch (error) {
          if (attempt > 200) throw error;
          retried++;
          await new Promise((resolve) => setTimeout(resolve, 100));
        }
      }
    };
    const loop = async () => {
      while (sent < PAYMENTS) {
        const index = sent++;
        if (index === Math.floor(PAYMENTS / 3)) {
          alive.delete(second);
          second.process.child.kill('SIGKILL');
        }
        await pay(index);
      }
    };
    await Promise.all(Array.from({ length: LOOPS }, loop));
    expect(answered.size).toBe(PAYMENTS);
    expect(retried).toBeGreaterThan(0);
    // Every payment asked for exists once, under the id its client was answered.
    const stored = await store.query<{ merchant_transaction_id: string; id: string; n: number }>(
      `SELECT merchant_transaction_id, min(id) AS id, count(*)::int AS n FROM payments
        WHERE entity_id = $1 AND merchant_transaction_id LIKE 'instances-payment-%' GROUP BY merchant_transaction_id`,
      [entityId],
    );
    expect(stored.rows).toHaveLength(PAYMENTS);
    for (const row of stored.rows) {
      expect(row.n, row.merchant_transaction_id).toBe(1);
      expect(answered.get(row.merchant_transaction_id.replace('instances-payment-', 'instances-'))).toBe(row.id);
    }

    // A checkout made on one instance is paid through another and read on the first.
    const checkout = await send(`${first.url}/v1/checkouts`, { method: 'POST', headers: form, body: new URLSearchParams({ entityId, amount: '12.00', currency: 'EUR', paymentType: 'DB' }) });
    const submitted = await send(`${third.url}/v1/checkouts/${checkout.body.id}/payment`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams(testCard()),
    });
    expect(submitted.status, JSON.stringify(submitted.body)).toBe(200);
    const read = await send(`${first.url}/v1/checkouts/${checkout.body.id}/payment?entityId=${entityId}`, { headers: { Authorization: `Bearer ${token}` } });
    expect(read.body.result?.code).toBe('000.100.110');

    // A key replayed on another instance gets the first answer.
    const once = await send(`${first.url}/v1/payments`, { method: 'POST', headers: { ...form, 'Idempotency-Key': 'replayed-elsewhere' }, body: new URLSearchParams(cardPayment(entityId)) });
    const again = await send(`${third.url}/v1/payments`, { method: 'POST', headers: { ...form, 'Idempotency-Key': 'replayed-elsewhere' }, body: new URLSearchParams(cardPayment(entityId)) });
    expect(again.body.id).toBe(once.body.id);
    expect(again.headers.get('idempotent-replayed')).toBe('true');

    // Two reads of a payment a minute, counted across instances: the third, on either, is refused.
    const reads = [first, third, first].map((instance) => send(`${instance.url}/v1/payments/${once.body.id}?entityId=${entityId}`, { headers: { Authorization: `Bearer ${token}` } }));
    const codes = [];
    for (const reading of reads) codes.push((await reading).body.result?.code);
    expect(codes.filter((code) => code === '800.120.100')).toHaveLength(1);

    // Every payment's webhook delivered once: one delivery row each, delivered, and one request each at the receiver.
    // Deliveries the killed instance had claimed are sent by another once their lease (90 s) is over.
    await expect
      .poll(
        async () =>
          (
            await store.query<{ pending: number }>(
              `SELECT count(*)::int AS pending FROM events e LEFT JOIN webhook_deliveries d ON d.event_id = e.id
                WHERE e.entity_id = $1 AND e.type = 'PAYMENT' AND d.delivered_at IS NULL`,
              [entityId],
            )
          ).rows[0]?.pending,
        { timeout: 120_000, interval: 500 },
      )
      .toBe(0);
    const deliveries = await store.query<{ events: number; deliveries: number }>(
      `SELECT count(DISTINCT e.id)::int AS events, count(d.id)::int AS deliveries FROM events e JOIN webhook_deliveries d ON d.event_id = e.id WHERE e.entity_id = $1`,
      [entityId],
    );
    expect(deliveries.rows[0]?.deliveries).toBe(deliveries.rows[0]?.events);
    const attempts = await store.query<{ n: number }>(
      `SELECT count(*)::int AS n FROM webhook_attempts a JOIN webhook_deliveries d ON d.id = a.delivery_id JOIN events e ON e.id = d.event_id WHERE e.entity_id = $1`,
      [entityId],
    );
    // The activation message, then a request per delivery — and, webhooks being at least once (docs/webhooks.md), a
    // second one for each send the kill caught open: at most the killed instance's open sends to the receiver.
    const delivered = deliveries.rows[0]?.deliveries ?? 0;
    expect(hooks).toBeGreaterThanOrEqual(delivered + 1);
    expect(hooks - 1 - delivered).toBeLessThanOrEqual(RECEIVER_CONCURRENCY);
    expect(attempts.rows[0]?.n).toBe(deliveries.rows[0]?.deliveries);

    // A schedule firing every second for three seconds, on the instances still running: each fire time taken once,
    // each execution's payment made once.
    const initial = await send(`${first.url}/v1/payments`, {
      method: 'POST',
      headers: form,
      body: new URLSearchParams({ entityId, amount: '9.99', currency: 'EUR', paymentType: 'PA', createRegistration: 'true', ...testCard(), ...CIT_INITIAL }),
    });
    const registrationId = (initial.body as { registrationId?: string }).registrationId as string;
    const utc = (at: number) => new Date(at).toISOString().slice(0, 19).replace('T', ' ');
    const from = Math.ceil((Date.now() + 2_000) / 1_000) * 1_000;
    const schedule = await send(`${third.url}/scheduling/v1/schedules`, {
      method: 'POST',
      headers: form,
      body: new URLSearchParams({
        entityId,
        registrationId,
        amount: '12.50',
        currency: 'EUR',
        paymentType: 'DB',
        ...MIT_REPEATED,
        'job.expression': '* * * * * ?',
        'job.startDate': utc(from),
        'job.endDate': utc(from + 2_000),
      }),
    });
    expect(schedule.status, JSON.stringify(schedule.body)).toBe(200);
    const finished = async () =>
      (await store.query<{ n: number }>('SELECT count(*)::int AS n FROM schedule_executions WHERE schedule_id = $1 AND finished_at IS NOT NULL', [schedule.body.id])).rows[0]?.n;
    await expect.poll(finished, { timeout: 30_000, interval: 250 }).toBe(3);
    const executions = await store.query<{ fires: number; paid: number; payments: number }>(
      `SELECT count(DISTINCT e.fire_at)::int AS fires, count(e.payment_id)::int AS paid, count(DISTINCT p.id)::int AS payments
         FROM schedule_executions e LEFT JOIN payments p ON p.id = e.payment_id WHERE e.schedule_id = $1`,
      [schedule.body.id],
    );
    expect(executions.rows[0]).toEqual({ fires: 3, paid: 3, payments: 3 });
    const scheduled = await store.query<{ n: number }>("SELECT count(*)::int AS n FROM payments WHERE entity_id = $1 AND source = 'SYSTEM'", [entityId]);
    expect(scheduled.rows[0]?.n).toBe(3);

    // A revoked token is refused by every instance within TOKEN_CACHE_SECONDS (1 s here).
    const second_token = newAccessToken();
    const tokenId = await grantToken(store, second_token, 'revoked across instances', [entityId]);
    const payWith = (instance: Instance) =>
      send(`${instance.url}/v1/payments`, { method: 'POST', headers: { ...form, Authorization: `Bearer ${second_token}` }, body: new URLSearchParams(cardPayment(entityId)) });
    expect([(await payWith(first)).status, (await payWith(third)).status]).toEqual([200, 200]);
    await revokeToken(store, tokenId);
    await expect.poll(async () => [(await payWith(first)).status, (await payWith(third)).status], { timeout: 5_000, interval: 250 }).toEqual([403, 403]);
  }, 300_000);
});
