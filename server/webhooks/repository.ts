import type { Queryable } from '../store/index.ts';

/** SQL for webhooks, their deliveries and the log of every delivery attempt. */

export type NotificationType = 'PAYMENT' | 'REGISTRATION' | 'SCHEDULE' | 'RISK';
export type WebhookFields = 'ALL' | 'NON_CUSTOMER_DATA';
export type WebhookWrapper = 'NONE' | 'JSON';
export type WebhookStatus = 'pending' | 'active' | 'inactive';

export interface WebhookRecord {
  readonly id: string;
  readonly entityId: string;
  readonly url: string;
  readonly types: readonly NotificationType[];
  readonly fields: WebhookFields;
  readonly wrapper: WebhookWrapper;
  /** The secret, sealed in the vault. */
  readonly secretId: string;
  readonly status: WebhookStatus;
  readonly statusReason: string | null;
  readonly failingSince: Date | null;
  readonly createdAt: Date;
  readonly updatedAt: Date;
}

interface WebhookRow {
  id: string;
  entity_id: string;
  url: string;
  types: NotificationType[];
  fields: WebhookFields;
  wrapper: WebhookWrapper;
  secret_id: string;
  status: WebhookStatus;
  status_reason: string | null;
  failing_since: Date | null;
  created_at: Date;
  updated_at: Date;
}

const COLUMNS = 'id, entity_id, url, types, fields, wrapper, secret_id, status, status_reason, failing_since, created_at, updated_at';

function toRecord(row: WebhookRow): WebhookRecord {
  return {
    id: row.id,
    entityId: row.entity_id,
    url: row.url,
    types: row.types,
    fields: row.fields,
    wrapper: row.wrapper,
    secretId: row.secret_id,
    status: row.status,
    statusReason: row.status_reason,
    failingSince: row.failing_since === null ? null : new Date(row.failing_since),
    createdAt: new Date(row.created_at),
    updatedAt: new Date(row.updated_at),
  };
}

export async function insertWebhook(db: Queryable, webhook: WebhookRecord): Promise<void> {
  await db.query(
    `INSERT INTO webhooks (${COLUMNS}) VALUES ($1, $2, $3, $4::text[], $5, $6, $7, $8, $9, $10, $11::timestamptz, $12::timestamptz)`,
    [
      webhook.id,
      webhook.entityId,
      webhook.url,
      webhook.types,
      webhook.fields,
      webhook.wrapper,
      webhook.secretId,
      webhook.status,
      webhook.statusReason,
      webhook.failingSince?.toISOString() ?? null,
      webhook.createdAt.toISOString(),
      webhook.updatedAt.toISOString(),
    ],
  );
}

export async function findWebhook(db: Queryable, id: string, options: { readonly forUpdate?: boolean } = {}): Promise<WebhookRecord | undefined> {
  const found = await db.query<WebhookRow>(`SELECT ${COLUMNS} FROM webhooks WHERE id = $1${options.forUpdate ? ' FOR UPDATE' : ''}`, [id]);
  const row = found.rows[0];
  return row ? toRecord(row) : undefined;
}

export async function listWebhooks(db: Queryable, entityId?: string): Promise<WebhookRecord[]> {
  const found = await db.query<WebhookRow>(
    `SELECT ${COLUMNS} FROM webhooks${entityId ? ' WHERE entity_id = $1' : ''} ORDER BY created_at, id`,
    entityId ? [entityId] : [],
  );
  return found.rows.map(toRecord);
}

/** Writes every changeable field of a webhook (the caller holds its row lock). */
export async function updateWebhook(db: Queryable, webhook: WebhookRecord): Promise<void> {
  await db.query(
    `UPDATE webhooks SET url = $2, types = $3::text[], fields = $4, wrapper = $5, secret_id = $6, status = $7, status_reason = $8,
            failing_since = $9::timestamptz, updated_at = $10::timestamptz
      WHERE id = $1`,
    [
      webhook.id,
      webhook.url,
      webhook.types,
      webhook.fields,
      webhook.wrapper,
      webhook.secretId,
      webhook.status,
      webhook.statusReason,
      webhook.failingSince?.toISOString() ?? null,
      webhook.updatedAt.toISOString(),
    ],
  );
}

export async function deleteWebhook(db: Queryable, id: string): Promise<void> {
  await db.query('DELETE FROM webhooks WHERE id = $1', [id]);
}

/** A delivery with what sending it needs: its webhook and its event. */
export interface DeliveryRecord {
  readonly id: string;
  readonly webhookId: string;
  readonly eventId: number;
  readonly createdAt: Date;
  readonly deliveredAt: Date | null;
  readonly givenUpAt: Date | null;
  readonly event: {
    readonly type: string;
    readonly action: string;
    readonly entityId: string;
    readonly resourceId: string;
    readonly payload: Record<string, unknown>;
  };
}

interface DeliveryRow {
  id: string;
  webhook_id: string;
  event_id: string;
  created_at: Date;
  delivered_at: Date | null;
  given_up_at: Date | null;
  type: string;
  action: string;
  entity_id: string;
  resource_id: string;
  payload: Record<string, unknown>;
}

function toDelivery(row: DeliveryRow): DeliveryRecord {
  return {
    id: row.id,
    webhookId: row.webhook_id,
    eventId: Number(row.event_id),
    createdAt: new Date(row.created_at),
    deliveredAt: row.delivered_at === null ? null : new Date(row.delivered_at),
    givenUpAt: row.given_up_at === null ? null : new Date(row.given_up_at),
    event: { type: row.type, action: row.action, entityId: row.entity_id, resourceId: row.resource_id, payload: row.payload },
  };
}

const DELIVERY_COLUMNS = `d.id, d.webhook_id, d.event_id, d.created_at, d.delivered_at, d.given_up_at,
  e.type, e.action, e.entity_id, e.resource_id, e.payload`;

export async function findDelivery(db: Queryable, id: string): Promise<DeliveryRecord | undefined> {
  const found = await db.query<DeliveryRow>(`SELECT ${DELIVERY_COLUMNS} FROM webhook_deliveries d JOIN events e ON e.id = d.event_id WHERE d.id = $1`, [id]);
  const row = found.rows[0];
  return row ? toDelivery(row) : undefined;
}

/** A delivery to send: the delivery and its event, and its webhook (undefined once deleted). */
export interface DeliveryToSend {
  readonly delivery: DeliveryRecord;
  readonly webhook: WebhookRecord | undefined;
}

/** The deliveries to send, by id, each with its event and its webhook, in one read (ids not found are missing). */
export async function findDeliveriesToSend(db: Queryable, ids: readonly string[]): Promise<ReadonlyMap<string, DeliveryToSend>> {
  if (ids.length === 0) return new Map();
  const found = await db.query<DeliveryRow & { webhook: WebhookRow | null }>(
    `SELECT ${DELIVERY_COLUMNS}, (SELECT row_to_json(w) FROM webhooks w WHERE w.id = d.webhook_id) AS webhook
       FROM webhook_deliveries d JOIN events e ON e.id = d.event_id WHERE d.id = ANY($1::char(32)[])`,
    [[...ids]],
    { preparedAs: 'webhook-deliveries-to-send' },
  );
  return new Map(found.rows.map((row) => [row.id, { delivery: toDelivery(row), webhook: row.webhook ? toRecord(row.webhook) : undefined }]));
}

/** What became of one delivery's turn: an attempt to log (none when it was given up unsent), delivered or given up. */
export interface DeliveryOutcome {
  readonly deliveryId: string;
  readonly attempt: Omit<AttemptLogEntry, 'deliveryId'> | null;
  /** Set when the attempt delivered it. */
  readonly deliveredAt: Date | null;
  /** Set when it is given up (it stays delivered if it was). */
  readonly givenUpAt: Date | null;
}

/**
 * Records the outcomes of several deliveries in one statement: their attempts logged (in the order given), those
 * delivered marked delivered, those given up marked given up. A delivery deleted meanwhile (with its webhook) is
 * passed over.
 */
export async function recordDeliveryOutcomes(db: Queryable, outcomes: readonly DeliveryOutcome[]): Promise<void> {
  if (outcomes.length === 0) return;
  const rows = outcomes.map((outcome) => ({
    delivery_id: outcome.deliveryId,
    attempted_at: outcome.attempt?.attemptedAt.toISOString() ?? null,
    http_status: outcome.attempt?.httpStatus ?? null,
    latency_ms: outcome.attempt?.latencyMs ?? null,
    error: outcome.attempt?.error ?? null,
    delivered_at: outcome.deliveredAt?.toISOString() ?? null,
    given_up_at: outcome.givenUpAt?.toISOString() ?? null,
  }));
  await db.query(
    `WITH entries AS (
       SELECT * FROM ROWS FROM (jsonb_to_recordset($1::jsonb) AS (delivery_id char(32), attempted_at timestamptz, http_status integer,
         latency_ms integer, error text, delivered_at timestamptz, given_up_at timestamptz))
         WITH ORDINALITY AS x (delivery_id, attempted_at, http_status, latency_ms, error, delivered_at, given_up_at, ordinality)
     ), logged AS (
       INSERT INTO webhook_attempts (delivery_id, attempted_at, http_status, latency_ms, error)
       SELECT x.delivery_id, x.attempted_at, x.http_status, x.latency_ms, x.error
         FROM entries x
        WHERE x.attempted_at IS NOT NULL AND EXISTS (SELECT 1 FROM webhook_deliveries d WHERE d.id = x.delivery_id)
        ORDER BY x.ordinality
     )
     UPDATE webhook_deliveries d
        SET delivered_at = coalesce(d.delivered_at, u.delivered_at),
            given_up_at = CASE WHEN coalesce(d.delivered_at, u.delivered_at) IS NULL THEN coalesce(d.given_up_at, u.given_up_at) ELSE d.given_up_at END
       FROM (SELECT delivery_id, min(delivered_at) AS delivered_at, min(given_up_at) AS given_up_at
               FROM entries WHERE delivered_at IS NOT NULL OR given_up_at IS NOT NULL GROUP BY delivery_id) u
      WHERE d.id = u.delivery_id`,
    [JSON.stringify(rows)],
    { preparedAs: 'webhook-record-outcomes' },
  );
}

export interface AttemptLogEntry {
  readonly deliveryId: string;
  readonly attemptedAt: Date;
  readonly httpStatus: number | null;
  readonly latencyMs: number;
  readonly error: string | null;
}

/** A delivery as the operator lists it: its event, its state, and every attempt. */
export interface DeliverySummary {
  readonly id: string;
  readonly eventId: number;
  readonly type: string;
  readonly action: string;
  readonly resourceId: string;
  readonly createdAt: Date;
  readonly deliveredAt: Date | null;
  readonly givenUpAt: Date | null;
  readonly attempts: readonly Omit<AttemptLogEntry, 'deliveryId'>[];
}

/** The webhook's latest deliveries, newest first, each with its attempts in order. */
export async function listDeliveries(db: Queryable, webhookId: string, limit: number): Promise<DeliverySummary[]> {
  const found = await db.query<{
    id: string;
    event_id: string;
    type: string;
    action: string;
    resource_id: string;
    created_at: Date;
    delivered_at: Date | null;
    given_up_at: Date | null;
    attempts: { attempted_at: string; http_status: number | null; latency_ms: number; error: string | null }[] | null;
  }>(
    `SELECT d.id, d.event_id, e.type, e.action, e.resource_id, d.created_at, d.delivered_at, d.given_up_at,
            (SELECT json_agg(json_build_object('attempted_at', a.attempted_at, 'http_status', a.http_status, 'latency_ms', a.latency_ms,
                    'error', a.error) ORDER BY a.id) FROM webhook_attempts a WHERE a.delivery_id = d.id) AS attempts
       FROM webhook_deliveries d JOIN events e ON e.id = d.event_id
      WHERE d.webhook_id = $1
      ORDER BY d.created_at DESC, d.id
      LIMIT $2`,
    [webhookId, limit],
  );
  return found.rows.map((row) => ({
    id: row.id,
    eventId: Number(row.event_id),
    type: row.type,
    action: row.action,
    resourceId: row.resource_id,
    createdAt: new Date(row.created_at),
    deliveredAt: row.delivered_at === null ? null : new Date(row.delivered_at),
    givenUpAt: row.given_up_at === null ? null : new Date(row.given_up_at),
    attempts: (row.attempts ?? []).map((attempt) => ({
      attemptedAt: new Date(attempt.attempted_at),
      httpStatus: attempt.http_status,
      latencyMs: attempt.latency_ms,
      error: attempt.error,
    })),
  }));
}
