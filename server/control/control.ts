import { CHECKOUT_NOTIFICATION, SHOPPER_RESULT_CALL } from '../checkouts/callbacks.ts';
import type { Queryable } from '../store/index.ts';

/**
 * The test-only control API's model (issues 24 and 36, routes.ts): a clock the gateway runs on that a CI pipeline
 * moves, and what the gateway sent out. Only with TEST_CONTROL_API=true, which config.ts refuses in live.
 */

/** The calls a checkout makes to the merchant's URLs. */
export const NOTIFICATION_KINDS = [SHOPPER_RESULT_CALL, CHECKOUT_NOTIFICATION] as const;

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
  const [last] = await webhookAttempts(db, { ...(entityId !== undefined ? { entityId } : {}), limit: 1 });
  if (!last) return undefined;
  return { webhookId: last.webhookId, attemptedAt: last.at, httpStatus: last.answer.httpStatus, error: last.answer.error, ...last.notification };
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

/** A webhook delivery attempt as sentMessages lists it. */
interface SentWebhookItem {
  readonly kind: 'webhook';
  readonly at: string;
  readonly deliveryId: string;
  readonly webhookId: string;
  readonly url: string;
  readonly resourceId: string;
  readonly notification: { readonly type: string; readonly action: string; readonly payload: unknown };
  readonly answer: { readonly httpStatus: number | null; readonly latencyMs: number; readonly error: string | null };
}

/** What `GET /test/v1/sent` lists: one kind, one payment's (with the operations on it), one checkout's, one entity's. */
export interface SentFilter {
  readonly kind?: 'webhook' | 'notification' | 'redirect';
  readonly paymentId?: string;
  readonly checkoutId?: string;
  readonly entityId?: string;
  /** At most this many of each kind, newest first (default 100). */
  readonly limit?: number;
}

/** Webhook delivery attempts, newest first: of an entity, of a payment (and the operations on it), at most `limit`. */
async function webhookAttempts(db: Queryable, filter: Pick<SentFilter, 'entityId' | 'paymentId'> & { readonly limit: number }): Promise<SentWebhookItem[]> {
  const found = await db.query<{ delivery_id: string; webhook_id: string; url: string; attempted_at: Date; http_status: number | null; latency_ms: number; error: string | null; type: string; action: string; resource_id: string; payload: unknown }>(
    `SELECT d.id AS delivery_id, d.webhook_id, w.url, a.attempted_at, a.http_status, a.latency_ms, a.error, e.type, e.action, e.resource_id, e.payload
       FROM webhook_attempts a
       JOIN webhook_deliveries d ON d.id = a.delivery_id
       JOIN webhooks w ON w.id = d.webhook_id
       JOIN events e ON e.id = d.event_id
      WHERE ($1::text IS NULL OR e.entity_id = $1::char(32))
        AND ($2::text IS NULL OR e.resource_id = $2::char(32) OR e.payload->>'referencedId' = $2::text)
      ORDER BY a.id DESC LIMIT $3`,
    [filter.entityId ?? null, filter.paymentId ?? null, filter.limit],
  );
  return found.rows.map((row) => ({
    kind: 'webhook',
    at: new Date(row.attempted_at).toISOString(),
    deliveryId: row.delivery_id,
    webhookId: row.webhook_id,
    url: row.url,
    resourceId: row.resource_id,
    notification: { type: row.type, action: row.action, payload: row.payload },
    answer: { httpStatus: row.http_status === null ? null : Number(row.http_status), latencyMs: Number(row.latency_ms), error: row.error },
  }));
}

/**
 * Everything the gateway sent out or sent the shopper to, newest first: every webhook delivery attempt (the
 * notification as the receiver decrypts it, and what the receiver answered), every call to a checkout's
 * shopperResultUrl or notificationUrl (attempts, outcome, last error), and every page the gateway sent a shopper to
 * and back from (a 3-D Secure challenge, a provider's page: where the shopper went back to, and how it ended).
 */
export async function sentMessages(db: Queryable, filter: SentFilter): Promise<Record<string, unknown>[]> {
  const limit = filter.limit ?? 100;
  const wanted = (kind: SentFilter['kind']) => filter.kind === undefined || filter.kind === kind;
  const sent: { at: string; item: Record<string, unknown> }[] = [];
  // A payment's checkout: its calls are the checkout's.
  let checkoutId = filter.checkoutId ?? null;
  if (filter.paymentId !== undefined && checkoutId === null) {
    const found = await db.query<{ checkout_id: string | null }>('SELECT checkout_id FROM payments WHERE id = $1', [filter.paymentId]);
    checkoutId = found.rows[0]?.checkout_id ?? null;
  }
  if (wanted('webhook') && filter.checkoutId === undefined) {
    for (const item of await webhookAttempts(db, { ...filter, limit })) sent.push({ at: item.at, item: { ...item } });
  }
  if (wanted('notification') && (filter.paymentId === undefined || checkoutId !== null)) {
    const found = await db.query<{ kind: string; payload: { checkoutId?: unknown; url?: unknown }; attempts: number; created_at: Date; done_at: Date | null; failed_at: Date | null; last_error: string | null }>(
      `SELECT j.kind, j.payload, j.attempts, j.created_at, j.done_at, j.failed_at, j.last_error FROM jobs j
        WHERE j.kind = ANY($1::text[]) AND j.attempts > 0
          AND ($2::text IS NULL OR j.payload->>'checkoutId' = $2::text)
          AND ($3::text IS NULL OR EXISTS (SELECT 1 FROM checkouts c WHERE c.id = j.payload->>'checkoutId' AND c.entity_id = $3::char(32)))
        ORDER BY coalesce(j.done_at, j.failed_at, j.created_at) DESC LIMIT $4`,
      [[...NOTIFICATION_KINDS], checkoutId, filter.entityId ?? null, limit],
    );
    for (const row of found.rows) {
      const at = new Date(row.done_at ?? row.failed_at ?? row.created_at).toISOString();
      sent.push({
        at,
        item: {
          kind: 'notification',
          at,
          call: row.kind,
          checkoutId: typeof row.payload.checkoutId === 'string' ? row.payload.checkoutId : null,
          url: typeof row.payload.url === 'string' ? row.payload.url : null,
          attempts: Number(row.attempts),
          outcome: row.done_at ? 'done' : row.failed_at ? 'given up' : 'retrying',
          lastError: row.last_error,
        },
      });
    }
  }
  if (wanted('redirect')) {
    const found = await db.query<{ payment_id: string; kind: string; return_url: string; outcome: string | null; created_at: Date; finished_at: Date | null; checkout_id: string | null }>(
      `SELECT r.payment_id, r.kind, r.return_url, r.outcome, r.created_at, r.finished_at, p.checkout_id
         FROM payment_redirects r JOIN payments p ON p.id = r.payment_id
        WHERE ($1::text IS NULL OR p.entity_id = $1::char(32))
          AND ($2::text IS NULL OR r.payment_id = $2::char(32))
          AND ($3::text IS NULL OR p.checkout_id = $3::text)
        ORDER BY coalesce(r.finished_at, r.created_at) DESC LIMIT $4`,
      [filter.entityId ?? null, filter.paymentId ?? null, filter.checkoutId ?? null, limit],
    );
    for (const row of found.rows) {
      const at = new Date(row.finished_at ?? row.created_at).toISOString();
      sent.push({
        at,
        item: {
          kind: 'redirect',
          at,
          paymentId: row.payment_id,
          checkoutId: row.checkout_id,
          page: row.kind,
          sentAt: new Date(row.created_at).toISOString(),
          returnUrl: row.return_url,
          outcome: row.outcome,
          returnedAt: row.finished_at ? new Date(row.finished_at).toISOString() : null,
        },
      });
    }
  }
  return sent.sort((a, b) => (a.at < b.at ? 1 : a.at > b.at ? -1 : 0)).map((entry) => entry.item);
}
