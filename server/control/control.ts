import type { Queryable } from '../store/index.ts';

/**
 * The test-only control API's model (issue 24, routes.ts): a clock the gateway runs on that a CI pipeline moves
 * forward, and what the gateway last sent out. Only with TEST_CONTROL_API=true, which config.ts refuses in live.
 */

/**
 * The gateway's clock: the machine's time plus what the control API has advanced it by. Each gateway has its own (a
 * CI worker's gateway moves alone).
 */
export interface ControlledClock {
  now(): Date;
  advance(ms: number): void;
  offsetMs(): number;
  /** Back to the machine's time; answers the offset it had. */
  reset(): number;
}

export function createControlledClock(base: () => Date = () => new Date()): ControlledClock {
  let offset = 0;
  return {
    now: () => new Date(base().getTime() + offset),
    advance(ms) {
      offset += ms;
    },
    offsetMs: () => offset,
    reset() {
      const had = offset;
      offset = 0;
      return had;
    },
  };
}

/** The last webhook delivery attempt: where it went, what came back, and the notification it carried (decrypted). */
export interface SentWebhook {
  readonly webhookId: string;
  readonly attemptedAt: string;
  readonly httpStatus: number | null;
  readonly error: string | null;
  readonly type: string;
  readonly action: string;
  readonly payload: unknown;
}

export async function lastWebhookSent(db: Queryable, entityId?: string): Promise<SentWebhook | undefined> {
  const found = await db.query<{ webhook_id: string; attempted_at: Date; http_status: number | null; error: string | null; type: string; action: string; payload: unknown }>(
    `SELECT d.webhook_id, a.attempted_at, a.http_status, a.error, e.type, e.action, e.payload
       FROM webhook_attempts a
       JOIN webhook_deliveries d ON d.id = a.delivery_id
       JOIN events e ON e.id = d.event_id
      WHERE $1::text IS NULL OR e.entity_id = $1::char(32)
      ORDER BY a.id DESC LIMIT 1`,
    [entityId ?? null],
  );
  const row = found.rows[0];
  if (!row) return undefined;
  return {
    webhookId: row.webhook_id,
    attemptedAt: new Date(row.attempted_at).toISOString(),
    httpStatus: row.http_status === null ? null : Number(row.http_status),
    error: row.error,
    type: row.type,
    action: row.action,
    payload: row.payload,
  };
}

/** The last call to a merchant's URL for a checkout (the 29-minute shopperResultUrl call, notificationUrl). */
export interface SentNotification {
  readonly kind: string;
  readonly checkoutId: string | null;
  readonly url: string | null;
  readonly attempts: number;
  readonly sentAt: string | null;
  readonly outcome: 'done' | 'retrying' | 'given up';
  readonly lastError: string | null;
}

export async function lastNotificationSent(db: Queryable, kinds: readonly string[]): Promise<SentNotification | undefined> {
  const found = await db.query<{ kind: string; payload: { checkoutId?: unknown; url?: unknown }; attempts: number; done_at: Date | null; failed_at: Date | null; last_error: string | null; locked_until: Date | null }>(
    `SELECT kind, payload, attempts, done_at, failed_at, last_error, locked_until FROM jobs
      WHERE kind = ANY($1::text[]) AND attempts > 0
      ORDER BY coalesce(done_at, failed_at, locked_until) DESC NULLS LAST LIMIT 1`,
    [kinds],
  );
  const row = found.rows[0];
  if (!row) return undefined;
  const at = row.done_at ?? row.failed_at;
  return {
    kind: row.kind,
    checkoutId: typeof row.payload.checkoutId === 'string' ? row.payload.checkoutId : null,
    url: typeof row.payload.url === 'string' ? row.payload.url : null,
    attempts: Number(row.attempts),
    sentAt: at ? new Date(at).toISOString() : null,
    outcome: row.done_at ? 'done' : row.failed_at ? 'given up' : 'retrying',
    lastError: row.last_error,
  };
}
