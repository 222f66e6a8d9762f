import type { PaymentRecord } from '../domain/payment.ts';
import type { Queryable } from '../store/index.ts';

/** The job kind that sends a webhook delivery (webhooks/delivery.ts handles it). */
export const WEBHOOK_DELIVERY_JOB = 'webhook.deliver';

/**
 * The outbox (DESIGN principle 4): every change of a payment, registration or schedule appends an event row in the
 * transaction that makes the change, and whatever the event causes later (a checkout's notificationUrl call, later
 * webhook deliveries) is scheduled by the subscribers in that same transaction. A change is never committed without
 * its event, nor an event without its change, and a crash after the commit loses nothing.
 */

export type EventType = 'PAYMENT' | 'REGISTRATION' | 'SCHEDULE';
export type EventAction = 'CREATED' | 'UPDATED' | 'DELETED';

export interface DomainEvent {
  readonly type: EventType;
  readonly action: EventAction;
  readonly entityId: string;
  /** The payment's, registration's or schedule's id. */
  readonly resourceId: string;
  /** The resource as the API shows it after this change: what notifications carry. */
  readonly payload: Record<string, unknown>;
  readonly createdAt: Date;
  /** For PAYMENT events: the payment itself, for subscribers to decide on (not stored with the event). */
  readonly payment?: PaymentRecord;
}

/**
 * Reacts to events inside the transaction that appends them: schedules the jobs they cause, or makes the changes
 * they cause in other features (a deleted registration's schedules cancelled), appending those changes' events
 * through `outbox`. A subscriber that throws rolls the whole transaction back: the change that announced the event
 * is not committed without what it causes.
 */
export type EventSubscriber = (tx: Queryable, events: readonly DomainEvent[], outbox: Outbox) => Promise<void>;

export interface Outbox {
  append(tx: Queryable, events: readonly DomainEvent[]): Promise<void>;
}

/**
 * A statement that inserts events (`insertEvents`: an INSERT INTO events ... RETURNING id, type, entity_id,
 * created_at) and fans every one out to the entity's active webhooks subscribed to its type (webhooks/): a delivery
 * row and the job that sends it, in the event's transaction, so no notification is lost or made twice by a crash
 * (the delivery's id is derived from the webhook's and the event's). Without webhooks the join finds nothing, and an
 * event costs no more round trip than before. The bench builds its delivery backlogs with it too.
 */
export function withWebhookDeliveries(insertEvents: string): string {
  return `WITH inserted AS (
    ${insertEvents}
  ), deliveries AS (
    INSERT INTO webhook_deliveries (id, webhook_id, event_id, created_at)
    SELECT md5(w.id || ':' || i.id), w.id, i.id, i.created_at
      FROM inserted i JOIN webhooks w ON w.entity_id = i.entity_id AND w.status = 'active' AND i.type = ANY (w.types)
    RETURNING id, created_at
  )
  INSERT INTO jobs (id, kind, unique_key, payload, run_at, created_at)
  SELECT d.id, '${WEBHOOK_DELIVERY_JOB}', '${WEBHOOK_DELIVERY_JOB}:' || d.id, jsonb_build_object('deliveryId', d.id), d.created_at, d.created_at
    FROM deliveries d`;
}

/** All rows travel as one JSON parameter: one statement for any number of events (group commit), with their deliveries. */
const INSERT_EVENTS = withWebhookDeliveries(`INSERT INTO events (type, action, entity_id, resource_id, payload, created_at)
    SELECT type, action, entity_id, resource_id, payload, created_at
      FROM jsonb_to_recordset($1::jsonb) AS e (type text, action text, entity_id char(32), resource_id char(32), payload jsonb,
        created_at timestamptz)
    RETURNING id, type, entity_id, created_at`);

/** The outbox, with the subscribers the composition (gateway.ts) gives it, each run in the appending transaction. */
export function createOutbox(subscribers: readonly EventSubscriber[]): Outbox {
  const outbox: Outbox = {
    async append(tx, events) {
      if (events.length === 0) return;
      const rows = events.map((event) => ({
        type: event.type,
        action: event.action,
        entity_id: event.entityId,
        resource_id: event.resourceId,
        payload: event.payload,
        created_at: event.createdAt.toISOString(),
      }));
      await tx.query(INSERT_EVENTS, [JSON.stringify(rows)], { preparedAs: 'insert-events' });
      for (const subscriber of subscribers) await subscriber(tx, events, outbox);
    },
  };
  return outbox;
}

/** An event as stored: in the order appended (`id`), without the record subscribers were handed. */
export interface StoredEvent extends Omit<DomainEvent, 'payment'> {
  readonly id: number;
}

/** The events of one resource, in the order they were appended. */
export async function eventsOf(db: Queryable, resourceId: string): Promise<StoredEvent[]> {
  const found = await db.query<{
    id: number;
    type: EventType;
    action: EventAction;
    entity_id: string;
    resource_id: string;
    payload: Record<string, unknown>;
    created_at: Date;
  }>('SELECT id, type, action, entity_id, resource_id, payload, created_at FROM events WHERE resource_id = $1 ORDER BY id', [resourceId]);
  return found.rows.map((row) => ({
    id: Number(row.id),
    type: row.type,
    action: row.action,
    entityId: row.entity_id,
    resourceId: row.resource_id,
    payload: row.payload,
    createdAt: row.created_at,
  }));
}
