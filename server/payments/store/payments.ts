import { addTotals, lifecycleOf, NO_CHILDREN, type ChildTotals, type FamilyTotals, type LifecycleState } from '../../domain/backOffice.ts';
import type { CardSummary, FinalResult, PaymentRecord, PaymentRedirect, PaymentSource, PaymentStatus } from '../../domain/payment.ts';
import type { Queryable } from '../../store/index.ts';

/**
 * SQL for payment rows. Reads are for anyone; the writes here are called by the ledger (../ledger.ts) only, which adds
 * each change's event in the same transaction.
 */

/** The payments table's columns a PaymentRecord is read from (paymentOfRow), in its order. */
export const PAYMENT_COLUMNS = `id, entity_id, parent_id, payment_type, payment_brand, amount_minor, currency, result_code,
  result_description, status, final_in_sequence, max_captures, acquirer, acquirer_reference, test_mode,
  merchant_transaction_id, card, request_echo, result_details, three_d_secure, redirect, registration_id, source,
  checkout_id, ndc, created_at`;
const COLUMNS = PAYMENT_COLUMNS;

interface PaymentRow {
  id: string;
  entity_id: string;
  parent_id: string | null;
  payment_type: string;
  payment_brand: string | null;
  amount_minor: number;
  currency: string;
  result_code: string;
  result_description: string;
  status: PaymentStatus;
  final_in_sequence: boolean;
  max_captures: number | null;
  acquirer: string;
  acquirer_reference: string | null;
  test_mode: string | null;
  merchant_transaction_id: string | null;
  card: CardSummary | null;
  request_echo: Record<string, unknown>;
  result_details: Record<string, string> | null;
  three_d_secure: Record<string, string> | null;
  redirect: PaymentRedirect | null;
  registration_id: string | null;
  source: PaymentSource;
  checkout_id: string | null;
  ndc: string;
  created_at: Date | string;
}

function toRecord(row: PaymentRow): PaymentRecord {
  return {
    id: row.id,
    entityId: row.entity_id,
    parentId: row.parent_id,
    paymentType: row.payment_type,
    paymentBrand: row.payment_brand,
    amountMinor: Number(row.amount_minor),
    currency: row.currency,
    resultCode: row.result_code,
    resultDescription: row.result_description,
    status: row.status,
    finalInSequence: row.final_in_sequence,
    maxCaptures: row.max_captures,
    acquirer: row.acquirer,
    acquirerReference: row.acquirer_reference,
    testMode: row.test_mode,
    merchantTransactionId: row.merchant_transaction_id,
    card: row.card,
    requestEcho: row.request_echo,
    resultDetails: row.result_details,
    threeDSecure: row.three_d_secure,
    redirect: row.redirect,
    registrationId: row.registration_id,
    source: row.source,
    checkoutId: row.checkout_id,
    ndc: row.ndc,
    createdAt: new Date(row.created_at),
  };
}

/** A payment as one JSON object with the table's column names: how payments travel to (and in plans back from) SQL. */
export function paymentRow(payment: PaymentRecord): Record<string, unknown> {
  return {
    id: payment.id,
    entity_id: payment.entityId,
    parent_id: payment.parentId,
    payment_type: payment.paymentType,
    payment_brand: payment.paymentBrand,
    amount_minor: payment.amountMinor,
    currency: payment.currency,
    result_code: payment.resultCode,
    result_description: payment.resultDescription,
    status: payment.status,
    final_in_sequence: payment.finalInSequence,
    max_captures: payment.maxCaptures,
    acquirer: payment.acquirer,
    acquirer_reference: payment.acquirerReference,
    test_mode: payment.testMode,
    merchant_transaction_id: payment.merchantTransactionId,
    card: payment.card,
    request_echo: payment.requestEcho,
    result_details: payment.resultDetails,
    three_d_secure: payment.threeDSecure,
    redirect: payment.redirect,
    registration_id: payment.registrationId,
    source: payment.source,
    checkout_id: payment.checkoutId,
    ndc: payment.ndc,
    created_at: payment.createdAt.toISOString(),
  };
}

/** The inverse of paymentRow (a plan stored as JSON comes back through it). */
export function paymentOfRow(row: Record<string, unknown>): PaymentRecord {
  return toRecord(row as unknown as PaymentRow);
}

/**
 * All rows travel as one JSON parameter and PostgreSQL unpacks them: one constant statement for any number of rows,
 * and one value to serialize instead of twenty-six per row. A row whose id is taken already (recorded meanwhile by
 * the recovery of its attempt) is left as it is; the ids returned are those inserted now.
 */
const INSERT_FROM_JSON = `INSERT INTO payments (${COLUMNS})
  SELECT ${COLUMNS}
    FROM jsonb_to_recordset($1::jsonb) AS row (id char(32), entity_id char(32), parent_id char(32),
      payment_type char(2), payment_brand text, amount_minor bigint, currency char(3), result_code text,
      result_description text, status text, final_in_sequence boolean, max_captures integer, acquirer text,
      acquirer_reference text, test_mode text, merchant_transaction_id text, card jsonb, request_echo jsonb,
      result_details jsonb, three_d_secure jsonb, redirect jsonb, registration_id char(32), source text,
      checkout_id text, ndc text, created_at timestamptz)
  ON CONFLICT (id) DO NOTHING
  RETURNING id`;

/**
 * INSERT_FROM_JSON, and in the same statement the acquirer attempts whose answers these payments record are finished
 * (outcome 'recorded'): an attempt whose payments were all inserted, not one whose payment was recorded meanwhile by
 * another instance (that one finished it). One round trip for what were two.
 */
const INSERT_FINISHING_ATTEMPTS = `WITH inserted AS (${INSERT_FROM_JSON}),
  answered AS (
    SELECT answer.attempt_id
      FROM jsonb_to_recordset($2::jsonb) AS answer (attempt_id char(32), payment_id char(32))
      LEFT JOIN inserted ON inserted.id = answer.payment_id
     GROUP BY answer.attempt_id
    HAVING count(*) = count(inserted.id)
  ),
  finished AS (
    UPDATE acquirer_attempts SET finished_at = $3::timestamptz, outcome = 'recorded'
     WHERE id IN (SELECT attempt_id FROM answered) AND finished_at IS NULL
  )
  SELECT id FROM inserted`;

/** An acquirer attempt and the payments that record its answer. */
export interface AnsweredAttempt {
  readonly attemptId: string;
  readonly paymentIds: readonly string[];
}

/**
 * Inserts payments in one statement; returns the ids inserted (a taken id is skipped, see above). The attempts
 * `answered` are finished in the same statement, each only if all its payments were inserted.
 */
export async function insertPayments(db: Queryable, payments: readonly PaymentRecord[], answered: readonly AnsweredAttempt[] = [], now?: Date): Promise<Set<string>> {
  if (payments.length === 0) return new Set();
  const rows = JSON.stringify(payments.map(paymentRow));
  const inserted =
    answered.length === 0
      ? await db.query<{ id: string }>(INSERT_FROM_JSON, [rows], { preparedAs: 'insert-payments' })
      : await db.query<{ id: string }>(
          INSERT_FINISHING_ATTEMPTS,
          [
            rows,
            JSON.stringify(answered.flatMap(({ attemptId, paymentIds }) => paymentIds.map((paymentId) => ({ attempt_id: attemptId, payment_id: paymentId })))),
            (now ?? new Date()).toISOString(),
          ],
          { preparedAs: 'insert-payments-finishing-attempts' },
        );
  return new Set(inserted.rows.map((row) => row.id));
}

/** The payment, only if it belongs to the entity: another merchant's payment does not exist for this caller. */
export async function findPayment(db: Queryable, entityId: string, id: string): Promise<PaymentRecord | undefined> {
  const found = await db.query<PaymentRow>(`SELECT ${COLUMNS} FROM payments WHERE id = $1 AND entity_id = $2`, [id, entityId]);
  const row = found.rows[0];
  return row ? toRecord(row) : undefined;
}

export async function findPaymentsById(db: Queryable, ids: readonly string[]): Promise<PaymentRecord[]> {
  if (ids.length === 0) return [];
  const found = await db.query<PaymentRow>(`SELECT ${COLUMNS} FROM payments WHERE id = ANY($1::char(32)[])`, [ids]);
  return found.rows.map(toRecord);
}

/** The latest operation of a type (CP, RF, RV) on a payment, if any. */
export async function findLatestChild(db: Queryable, parentId: string, paymentType: string): Promise<PaymentRecord | undefined> {
  const found = await db.query<PaymentRow>(
    `SELECT ${COLUMNS} FROM payments WHERE parent_id = $1 AND payment_type = $2 ORDER BY created_at DESC LIMIT 1`,
    [parentId, paymentType],
  );
  const row = found.rows[0];
  return row ? toRecord(row) : undefined;
}

/** Like findPayment, and locks the row until the transaction ends, so concurrent work on the payment queues up. */
export async function lockPayment(tx: Queryable, entityId: string, id: string): Promise<PaymentRecord | undefined> {
  const found = await tx.query<PaymentRow>(`SELECT ${COLUMNS} FROM payments WHERE id = $1 AND entity_id = $2 FOR UPDATE`, [id, entityId]);
  const row = found.rows[0];
  return row ? toRecord(row) : undefined;
}

/**
 * A pending payment's one transition to its final state (the redirect goes away with it). Only a pending row is
 * changed: undefined when the payment was not pending any more, so a late second answer changes nothing.
 */
export async function updatePendingPayment(tx: Queryable, id: string, status: PaymentStatus, result: FinalResult): Promise<PaymentRecord | undefined> {
  const updated = await tx.query<PaymentRow>(
    `UPDATE payments
        SET result_code = $2, result_description = $3, status = $4, result_details = $5::jsonb,
            three_d_secure = $6::jsonb, redirect = NULL, registration_id = coalesce($7, registration_id),
            acquirer_reference = coalesce($8, acquirer_reference), acquirer = coalesce($9, acquirer)
      WHERE id = $1 AND status = 'pending'
      RETURNING ${COLUMNS}`,
    [
      id,
      result.resultCode,
      result.resultDescription,
      status,
      result.resultDetails === null ? null : JSON.stringify(result.resultDetails),
      result.threeDSecure === null ? null : JSON.stringify(result.threeDSecure),
      result.registrationId,
      result.acquirerReference,
      result.acquirer ?? null,
    ],
  );
  const row = updated.rows[0];
  return row ? toRecord(row) : undefined;
}

/**
 * Sums over the approved children of a payment (`made`) and, with them, the back-office operations on it still
 * waiting for the acquirer's answer (`held`: their attempts hold their amount), recomputed from the rows (never a
 * cached counter).
 */
export async function familyTotals(tx: Queryable, parentId: string): Promise<FamilyTotals> {
  const found = await tx.query<{
    in_flight: boolean;
    captured: number;
    capture_count: number;
    final_capture: boolean;
    refunded: number;
    final_refund: boolean;
    reversed: boolean;
    incremented: number;
    chargebacks: number;
    chargebacked: number;
    chargeback_reversals: number;
  }>(
    `SELECT in_flight,
            coalesce(sum(amount_minor) FILTER (WHERE payment_type = 'CP'), 0)::bigint AS captured,
            coalesce(sum(amount_minor) FILTER (WHERE payment_type = 'PA' AND increment), 0)::bigint AS incremented,
            count(*) FILTER (WHERE payment_type = 'CP')::bigint AS capture_count,
            coalesce(bool_or(final_in_sequence) FILTER (WHERE payment_type = 'CP'), false) AS final_capture,
            coalesce(sum(amount_minor) FILTER (WHERE payment_type = 'RF'), 0)::bigint AS refunded,
            coalesce(bool_or(final_in_sequence) FILTER (WHERE payment_type = 'RF'), false) AS final_refund,
            count(*) FILTER (WHERE payment_type = 'RV') > 0 AS reversed,
            count(*) FILTER (WHERE payment_type = 'CB')::bigint AS chargebacks,
            coalesce(sum(amount_minor) FILTER (WHERE payment_type = 'CB' AND NOT chargeback_reversed), 0)::bigint AS chargebacked,
            count(*) FILTER (WHERE payment_type = 'CR')::bigint AS chargeback_reversals
       FROM (SELECT false AS in_flight, payment_type, amount_minor, final_in_sequence,
                    request_echo->'standingInstruction'->>'industryPractice' IS NOT DISTINCT FROM 'INCREMENTAL_AUTH' AS increment,
                    -- A chargeback reversed (CR) gives back what it took.
                    payment_type = 'CB' AND EXISTS (SELECT 1 FROM payments r WHERE r.parent_id = p.id AND r.payment_type = 'CR' AND r.status = 'approved') AS chargeback_reversed
               FROM payments p WHERE parent_id = $1 AND status = 'approved'
             UNION ALL
             SELECT true, payment_type, amount_minor, final_in_sequence, false, false
               FROM acquirer_attempts WHERE parent_id = $1 AND finished_at IS NULL) AS children
      GROUP BY in_flight`,
    [parentId],
  );
  const totalsOf = (inFlight: boolean): ChildTotals => {
    const row = found.rows.find((candidate) => candidate.in_flight === inFlight);
    if (!row) return NO_CHILDREN;
    return {
      capturedMinor: Number(row.captured),
      captureCount: Number(row.capture_count),
      finalCaptureDone: row.final_capture,
      refundedMinor: Number(row.refunded),
      finalRefundDone: row.final_refund,
      reversed: row.reversed,
      incrementedMinor: Number(row.incremented),
      chargebackCount: Number(row.chargebacks),
      chargebackedMinor: Number(row.chargebacked),
      chargebackReversalCount: Number(row.chargeback_reversals),
    };
  };
  const made = totalsOf(false);
  return { made, held: addTotals(made, totalsOf(true)) };
}

/**
 * Writes the lifecycle state (domain/backOffice.ts lifecycleOf) of the payments whose children these are: a child's
 * parent, and a chargeback reversal's chargebacked payment. Each is locked first (in id order, so two writers never
 * wait on each other), so concurrent children of one payment are counted one after the other.
 */
export async function refreshLifecycles(tx: Queryable, children: readonly PaymentRecord[]): Promise<void> {
  const approved = children.filter((child) => child.status === 'approved' && child.parentId !== null);
  if (approved.length === 0) return;
  const ids = new Set(approved.map((child) => child.parentId as string));
  const reversedChargebacks = approved.filter((child) => child.paymentType === 'CR').map((child) => child.parentId as string);
  if (reversedChargebacks.length > 0) {
    const found = await tx.query<{ parent_id: string }>(
      `SELECT parent_id FROM payments WHERE id = ANY($1::char(32)[]) AND payment_type = 'CB' AND parent_id IS NOT NULL`,
      [reversedChargebacks],
    );
    for (const row of found.rows) ids.add(row.parent_id);
  }
  for (const id of [...ids].sort()) {
    const locked = await tx.query<PaymentRow>(`SELECT ${COLUMNS} FROM payments WHERE id = $1 FOR NO KEY UPDATE`, [id]);
    const row = locked.rows[0];
    if (!row) continue;
    const { state } = lifecycleOf(toRecord(row), await familyTotals(tx, id));
    await tx.query('UPDATE payments SET lifecycle = $2 WHERE id = $1 AND lifecycle IS DISTINCT FROM $2', [id, state]);
  }
}

/** The lifecycle state of these payments as the ledger wrote it (a payment nothing was done to: its status). */
export async function lifecycleStates(db: Queryable, ids: readonly string[]): Promise<Map<string, LifecycleState>> {
  if (ids.length === 0) return new Map();
  const found = await db.query<{ id: string; state: LifecycleState }>(`SELECT id, coalesce(lifecycle, status) AS state FROM payments WHERE id = ANY($1::char(32)[])`, [ids]);
  return new Map(found.rows.map((row) => [row.id, row.state]));
}

/**
 * Payments with approved children and no lifecycle state written (recorded before the ledger wrote it), a batch at a
 * time after `afterId`, as the children that name them: what refreshLifecycles needs.
 */
export async function childrenOfUnstatedPayments(db: Queryable, afterId: string, limit: number): Promise<PaymentRecord[]> {
  const found = await db.query<PaymentRow>(
    `SELECT DISTINCT ON (c.parent_id) ${COLUMNS.split(',').map((column) => `c.${column.trim()}`).join(', ')}
       FROM payments c JOIN payments p ON p.id = c.parent_id
      WHERE c.status = 'approved' AND p.lifecycle IS NULL AND c.parent_id > $1
      ORDER BY c.parent_id, c.payment_type = 'CR'
      LIMIT $2`,
    [afterId, limit],
  );
  return found.rows.map(toRecord);
}

/**
 * The payment an acquirer knows by its own reference (a provider's notification names it), locked until the transaction
 * ends; undefined when the gateway has none.
 */
export async function lockPaymentByReference(tx: Queryable, acquirer: string, reference: string): Promise<PaymentRecord | undefined> {
  const found = await tx.query<PaymentRow>(`SELECT ${COLUMNS} FROM payments WHERE acquirer_reference = $1 AND acquirer = $2 FOR UPDATE`, [reference, acquirer]);
  const row = found.rows[0];
  return row ? toRecord(row) : undefined;
}
