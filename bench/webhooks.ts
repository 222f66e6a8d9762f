import { fork, type ChildProcess } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import type { JobWorker } from '../server/jobs/worker.ts';
import type { Store } from '../server/store/index.ts';
import { WEBHOOK_DELIVERY_JOB, withWebhookDeliveries } from '../server/events/outbox.ts';

/**
 * Webhook delivery figures (E, F): a backlog of pending deliveries created in bulk with SQL, exactly the rows the
 * outbox's events statement creates for a payment event (events/outbox.ts INSERT_EVENTS: the event, one delivery per
 * active subscribed webhook, its job), then drained by the delivery workers' runDueJobs() as fast as they go, to a
 * receiver process that decrypts every notification.
 */

const RECEIVER = fileURLToPath(new URL('./webhook-receiver.ts', import.meta.url));

export interface WebhookReceivers {
  /** One URL per port: distinct origins, so the per-receiver limit of open sends is not what is measured. */
  readonly urls: readonly string[];
  /** Notifications decrypted (answered 200) and not (answered 400) so far. */
  stats(): Promise<{ ok: number; failed: number }>;
  close(): Promise<void>;
}

function ask<T>(child: ChildProcess, message: unknown): Promise<T> {
  return new Promise((resolve, reject) => {
    const onExit = () => reject(new Error('the webhook receiver process exited'));
    child.once('exit', onExit);
    child.once('message', (reply: T) => {
      child.off('exit', onExit);
      resolve(reply);
    });
    child.send(message as object);
  });
}

export async function startWebhookReceivers(secret: string, ports: number): Promise<WebhookReceivers> {
  const child = fork(RECEIVER, [], { stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const { urls } = await ask<{ urls: string[] }>(child, { start: { secret, ports } });
  return {
    urls,
    stats: () => ask(child, { stats: true }),
    async close() {
      if (child.exitCode === null && child.signalCode === null) child.kill();
      await exited;
    },
  };
}

const CHUNK = 10_000;

/**
 * `count` PAYMENT events spread over `entityIds` (each with an active webhook), with `payload` as their resource
 * (a real payment's event payload, its id varied), and their deliveries and jobs, due now.
 */
export async function createDeliveryBacklog(store: Store, entityIds: readonly string[], payload: Record<string, unknown>, count: number, now: Date): Promise<void> {
  for (let done = 0; done < count; done += CHUNK) {
    const size = Math.min(CHUNK, count - done);
    await store.query(
      withWebhookDeliveries(`INSERT INTO events (type, action, entity_id, resource_id, payload, created_at)
          SELECT 'PAYMENT', 'CREATED', ($2::text[])[1 + (g % cardinality($2::text[]))], r.id, $1::jsonb || jsonb_build_object('id', r.id), $3::timestamptz
            FROM generate_series($4::int, $5::int) g, LATERAL (SELECT md5('bench-webhook-' || g || '-' || $3::text) AS id) r
          RETURNING id, type, entity_id, created_at`),
      [JSON.stringify(payload), [...entityIds], now.toISOString(), done + 1, done + size],
    );
  }
  // What autovacuum would do soon after such a load: without statistics the planner picks poor plans for the claim
  // and delivery reads (a drain of 100,000 ran at a fifth of the rate).
  await store.query('ANALYZE events, webhook_deliveries, jobs');
}

export interface DrainResult {
  /** Deliveries delivered in the drain. */
  readonly delivered: number;
  /** The backlog at the start. */
  readonly backlog: number;
  readonly seconds: number;
  /** Send latency percentiles of the attempts made in the drain (webhook_attempts.latency_ms). */
  readonly p50: number;
  readonly p99: number;
}

/** Deliveries neither delivered nor given up. */
export async function pendingDeliveries(store: Store): Promise<number> {
  const found = await store.query<{ n: number }>('SELECT count(*)::int AS n FROM webhook_deliveries WHERE delivered_at IS NULL AND given_up_at IS NULL');
  return found.rows[0]?.n ?? 0;
}

/**
 * Runs every worker's runDueJobs() in a loop of its own until nothing is due, or until `limitMs` passed (then what
 * is left is set aside, given up, so the next drain starts from an empty queue). Fails if any attempt did not get
 * its HTTP 200.
 */
export async function drainDeliveries(store: Store, workers: readonly JobWorker[], limitMs: number): Promise<DrainResult> {
  const backlog = await pendingDeliveries(store);
  const lastAttempt = await store.query<{ id: string | null }>('SELECT max(id)::text AS id FROM webhook_attempts');
  const fromAttempt = lastAttempt.rows[0]?.id ?? '0';
  const started = performance.now();
  const deadline = started + limitMs;
  await Promise.all(
    workers.map(async (worker) => {
      while (performance.now() < deadline && (await worker.runDueJobs()) > 0);
    }),
  );
  const seconds = (performance.now() - started) / 1000;
  const left = await pendingDeliveries(store);
  if (left > 0) {
    const now = new Date().toISOString();
    await store.query(`UPDATE jobs SET done_at = $1::timestamptz WHERE kind = '${WEBHOOK_DELIVERY_JOB}' AND done_at IS NULL AND failed_at IS NULL`, [now]);
    await store.query('UPDATE webhook_deliveries SET given_up_at = $1::timestamptz WHERE delivered_at IS NULL AND given_up_at IS NULL', [now]);
  }
  const failedAttempts = await store.query<{ n: number }>(
    'SELECT count(*)::int AS n FROM webhook_attempts WHERE id > $1::bigint AND http_status IS DISTINCT FROM 200',
    [fromAttempt],
  );
  const failed = failedAttempts.rows[0]?.n ?? 0;
  if (failed > 0) throw new Error(`${failed} delivery attempts failed during the drain`);
  const latency = await store.query<{ p50: number | null; p99: number | null }>(
    `SELECT percentile_cont(0.5) WITHIN GROUP (ORDER BY latency_ms)::float8 AS p50, percentile_cont(0.99) WITHIN GROUP (ORDER BY latency_ms)::float8 AS p99
       FROM webhook_attempts WHERE id > $1::bigint`,
    [fromAttempt],
  );
  return { delivered: backlog - left, backlog, seconds, p50: latency.rows[0]?.p50 ?? Number.NaN, p99: latency.rows[0]?.p99 ?? Number.NaN };
}

/** The drain time, or (for a drain cut at its limit) the time the whole backlog would take at the rate seen. */
export function drainSeconds(result: DrainResult): { seconds: number; projected: boolean } {
  if (result.delivered >= result.backlog) return { seconds: result.seconds, projected: false };
  return { seconds: (result.backlog / Math.max(result.delivered, 1)) * result.seconds, projected: true };
}
