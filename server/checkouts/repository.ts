import type { PaymentStatus } from '../domain/payment.ts';
import { storedCardView } from '../registrations/storedCards.ts';
import type { Queryable } from '../store/index.ts';
import type { BootstrapSnapshot } from './bootstrap.ts';
import { isCheckoutId } from '../domain/ids.ts';
import type { CheckoutAttempt } from './state.ts';

/** SQL for checkouts, their payment attempts and their status reads. */

export interface CheckoutRecord {
  readonly id: string;
  readonly entityId: string;
  /** The merchant's validated parameters (no credentials, never card data), in the order sent. */
  readonly parameters: ReadonlyMap<string, string>;
  readonly bootstrap: BootstrapSnapshot;
  readonly createdAt: Date;
  readonly expiresAt: Date;
  readonly updatedAt: Date;
  readonly deletedAt: Date | null;
  readonly resultReadAt: Date | null;
}

interface CheckoutRow {
  id: string;
  entity_id: string;
  parameters: [string, string][];
  bootstrap: BootstrapSnapshot;
  created_at: Date;
  expires_at: Date;
  updated_at: Date;
  deleted_at: Date | null;
  result_read_at: Date | null;
}

const COLUMNS = 'id, entity_id, parameters, bootstrap, created_at, expires_at, updated_at, deleted_at, result_read_at';

function toRecord(row: CheckoutRow): CheckoutRecord {
  return {
    id: row.id,
    entityId: row.entity_id,
    parameters: new Map(row.parameters),
    bootstrap: row.bootstrap,
    createdAt: row.created_at,
    expiresAt: row.expires_at,
    updatedAt: row.updated_at,
    deletedAt: row.deleted_at,
    resultReadAt: row.result_read_at,
  };
}

export async function insertCheckout(db: Queryable, checkout: CheckoutRecord): Promise<void> {
  await db.query(
    `INSERT INTO checkouts (id, entity_id, parameters, bootstrap, created_at, expires_at, updated_at)
     VALUES ($1, $2, $3::jsonb, $4::jsonb, $5::timestamptz, $6::timestamptz, $7::timestamptz)`,
    [
      checkout.id,
      checkout.entityId,
      JSON.stringify([...checkout.parameters]),
      JSON.stringify(checkout.bootstrap),
      checkout.createdAt.toISOString(),
      checkout.expiresAt.toISOString(),
      checkout.updatedAt.toISOString(),
    ],
  );
}

/**
 * The checkout, deleted or not; with `entityId`, only if it belongs to that entity. `forUpdate` locks the
 * row until the transaction ends: every change to a checkout, and every status read, is decided under it.
 */
export async function findCheckout(
  db: Queryable,
  id: string,
  options: { readonly entityId?: string; readonly forUpdate?: boolean } = {},
): Promise<CheckoutRecord | undefined> {
  if (!isCheckoutId(id)) return undefined;
  const byEntity = options.entityId !== undefined;
  const found = await db.query<CheckoutRow>(
    `SELECT ${COLUMNS} FROM checkouts WHERE id = $1${byEntity ? ' AND entity_id = $2' : ''}${options.forUpdate ? ' FOR UPDATE' : ''}`,
    byEntity ? [id, options.entityId] : [id],
  );
  const row = found.rows[0];
  return row ? toRecord(row) : undefined;
}

/** Checkouts by id, deleted or not, in one statement (ids that are no checkout's are left out). */
export async function findCheckoutsById(db: Queryable, ids: readonly string[]): Promise<CheckoutRecord[]> {
  const wellFormed = [...new Set(ids)].filter(isCheckoutId);
  if (wellFormed.length === 0) return [];
  const found = await db.query<CheckoutRow>(`SELECT ${COLUMNS} FROM checkouts WHERE id = ANY($1::text[])`, [wellFormed]);
  return found.rows.map(toRecord);
}

export async function updateCheckoutParameters(
  db: Queryable,
  id: string,
  parameters: ReadonlyMap<string, string>,
  now: Date,
): Promise<void> {
  await db.query('UPDATE checkouts SET parameters = $2::jsonb, updated_at = $3::timestamptz WHERE id = $1', [
    id,
    JSON.stringify([...parameters]),
    now.toISOString(),
  ]);
}

export async function markCheckoutDeleted(db: Queryable, id: string, now: Date): Promise<void> {
  await db.query('UPDATE checkouts SET deleted_at = $2::timestamptz, updated_at = $2::timestamptz WHERE id = $1', [
    id,
    now.toISOString(),
  ]);
}

export async function markResultRead(db: Queryable, id: string, now: Date): Promise<void> {
  await db.query('UPDATE checkouts SET result_read_at = $2::timestamptz WHERE id = $1 AND result_read_at IS NULL', [
    id,
    now.toISOString(),
  ]);
}

/** The checkout's attempts, newest first, each with its payment's outcome once the payment is recorded. */
export async function listAttempts(db: Queryable, checkoutId: string): Promise<CheckoutAttempt[]> {
  const found = await db.query<{
    attempt: number;
    payment_id: string;
    started_at: Date;
    instance_id: string | null;
    recorded: boolean;
    status: PaymentStatus | null;
  }>(
    `SELECT a.attempt, a.payment_id, a.started_at, a.instance_id, p.id IS NOT NULL AS recorded, p.status
       FROM checkout_payments a LEFT JOIN payments p ON p.id = a.payment_id
      WHERE a.checkout_id = $1
      ORDER BY a.attempt DESC`,
    [checkoutId],
  );
  return found.rows.map((row) => ({
    attempt: Number(row.attempt),
    paymentId: row.payment_id,
    startedAt: row.started_at,
    instanceId: row.instance_id,
    recorded: row.recorded,
    status: row.status,
  }));
}

export async function insertAttempt(
  db: Queryable,
  attempt: {
    readonly checkoutId: string;
    readonly attempt: number;
    readonly paymentId: string;
    readonly startedAt: Date;
    readonly instanceId: string;
  },
): Promise<void> {
  await db.query(
    'INSERT INTO checkout_payments (checkout_id, attempt, payment_id, started_at, instance_id) VALUES ($1, $2, $3, $4::timestamptz, $5)',
    [attempt.checkoutId, attempt.attempt, attempt.paymentId, attempt.startedAt.toISOString(), attempt.instanceId],
  );
}

/** Removes an attempt that made no payment (refused by the payment checks, or its instance died), so it blocks nothing. */
export async function deleteAttempt(db: Queryable, paymentId: string): Promise<void> {
  await db.query('DELETE FROM checkout_payments WHERE payment_id = $1', [paymentId]);
}

/**
 * For GET /v1/paymentWidgets.js: the snapshot the checkout's script is rendered from, or undefined when the
 * checkout is unknown, deleted or expired (the script then reports InvalidCheckoutIdError). Any string may
 * be passed: ids of the wrong shape are unknown without a query.
 */
export async function findBootstrapSnapshot(
  db: Queryable,
  checkoutId: string,
  now: Date,
): Promise<BootstrapSnapshot | undefined> {
  if (!isCheckoutId(checkoutId)) return undefined;
  const found = await db.query<{ bootstrap: BootstrapSnapshot }>(
    'SELECT bootstrap FROM checkouts WHERE id = $1 AND deleted_at IS NULL AND expires_at > $2::timestamptz',
    [checkoutId, now.toISOString()],
  );
  const stored = found.rows[0]?.bootstrap;
  if (!stored) return undefined;
  // Rebuilt field by field: the stored JSON is data, and the snapshot's shape is the renderer's contract.
  return {
    checkoutId: stored.checkoutId,
    amount: stored.amount,
    currency: stored.currency,
    paymentType: stored.paymentType,
    resourcePath: stored.resourcePath,
    registrations: (stored.registrations ?? []).map(storedCardView),
    gatewayUrl: stored.gatewayUrl,
    staticBaseUrl: stored.staticBaseUrl,
  };
}
