import type { ChildTotals } from '../domain/backOffice.ts';
import type { Queryable } from '../store/index.ts';

/** SQL for payment rows. Callers pass a transaction when a check and a write must see the same state. */

export interface CardSummary {
  readonly bin: string;
  readonly last4Digits: string;
  readonly holder?: string;
  readonly expiryMonth: string;
  readonly expiryYear: string;
}

export interface PaymentRecord {
  readonly id: string;
  readonly entityId: string;
  readonly parentId: string | null;
  readonly paymentType: string;
  readonly paymentBrand: string | null;
  readonly amountMinor: number;
  readonly currency: string;
  readonly resultCode: string;
  readonly resultDescription: string;
  readonly approved: boolean;
  readonly finalInSequence: boolean;
  readonly maxCaptures: number | null;
  readonly acquirer: string;
  readonly testMode: string | null;
  readonly merchantTransactionId: string | null;
  readonly card: CardSummary | null;
  /** The request structures echoed in responses (customer, billing, cart, customParameters, ...). */
  readonly requestEcho: Record<string, unknown>;
  readonly resultDetails: Record<string, string> | null;
  /** The gateway's own 3-D Secure authentication, shown as threeDSecure (external data stays in requestEcho). */
  readonly threeDSecure: Record<string, string> | null;
  /** Where the shopper must go while the payment is pending; null once it is final. */
  readonly redirect: PaymentRedirect | null;
  /** The registration the payment created (createRegistration=true) or was paid with. */
  readonly registrationId: string | null;
  readonly ndc: string;
  readonly createdAt: Date;
}

export interface PaymentRedirect {
  readonly url: string;
  readonly parameters: readonly { readonly name: string; readonly value: string }[];
}

const COLUMNS = `id, entity_id, parent_id, payment_type, payment_brand, amount_minor, currency, result_code,
  result_description, approved, final_in_sequence, max_captures, acquirer, test_mode, merchant_transaction_id,
  card, request_echo, result_details, three_d_secure, redirect, registration_id, ndc, created_at`;

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
  approved: boolean;
  final_in_sequence: boolean;
  max_captures: number | null;
  acquirer: string;
  test_mode: string | null;
  merchant_transaction_id: string | null;
  card: CardSummary | null;
  request_echo: Record<string, unknown>;
  result_details: Record<string, string> | null;
  three_d_secure: Record<string, string> | null;
  redirect: PaymentRedirect | null;
  registration_id: string | null;
  ndc: string;
  created_at: Date;
}

function toRecord(row: PaymentRow): PaymentRecord {
  return {
    id: row.id,
    entityId: row.entity_id,
    parentId: row.parent_id,
    paymentType: row.payment_type,
    paymentBrand: row.payment_brand,
    amountMinor: row.amount_minor,
    currency: row.currency,
    resultCode: row.result_code,
    resultDescription: row.result_description,
    approved: row.approved,
    finalInSequence: row.final_in_sequence,
    maxCaptures: row.max_captures,
    acquirer: row.acquirer,
    testMode: row.test_mode,
    merchantTransactionId: row.merchant_transaction_id,
    card: row.card,
    requestEcho: row.request_echo,
    resultDetails: row.result_details,
    threeDSecure: row.three_d_secure,
    redirect: row.redirect,
    registrationId: row.registration_id,
    ndc: row.ndc,
    createdAt: row.created_at,
  };
}

/**
 * All rows travel as one JSON parameter and PostgreSQL unpacks them: one constant statement for any
 * number of rows, and one value to serialize instead of twenty per row.
 */
const INSERT_FROM_JSON = `INSERT INTO payments (${COLUMNS})
  SELECT ${COLUMNS}
    FROM jsonb_to_recordset($1::jsonb) AS row (id char(32), entity_id char(32), parent_id char(32),
      payment_type char(2), payment_brand text, amount_minor bigint, currency char(3), result_code text,
      result_description text, approved boolean, final_in_sequence boolean, max_captures integer, acquirer text,
      test_mode text, merchant_transaction_id text, card jsonb, request_echo jsonb, result_details jsonb,
      three_d_secure jsonb, redirect jsonb, registration_id char(32), ndc text, created_at timestamptz)`;

function insertRow(payment: PaymentRecord): Record<string, unknown> {
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
    approved: payment.approved,
    final_in_sequence: payment.finalInSequence,
    max_captures: payment.maxCaptures,
    acquirer: payment.acquirer,
    test_mode: payment.testMode,
    merchant_transaction_id: payment.merchantTransactionId,
    card: payment.card,
    request_echo: payment.requestEcho,
    result_details: payment.resultDetails,
    three_d_secure: payment.threeDSecure,
    redirect: payment.redirect,
    registration_id: payment.registrationId,
    ndc: payment.ndc,
    created_at: payment.createdAt.toISOString(),
  };
}

/** Inserts payments in one statement: all of them, or (on any error) none. */
export async function insertPayments(db: Queryable, payments: readonly PaymentRecord[]): Promise<void> {
  if (payments.length === 0) return;
  await db.query(INSERT_FROM_JSON, [JSON.stringify(payments.map(insertRow))], { preparedAs: 'insert-payments' });
}

/** The payment, only if it belongs to the entity: another merchant's payment does not exist for this caller. */
export async function findPayment(db: Queryable, entityId: string, id: string): Promise<PaymentRecord | undefined> {
  const found = await db.query<PaymentRow>(`SELECT ${COLUMNS} FROM payments WHERE id = $1 AND entity_id = $2`, [id, entityId]);
  const row = found.rows[0];
  return row ? toRecord(row) : undefined;
}

/** Like findPayment, and locks the row until the transaction ends, so concurrent back-office work queues up. */
export async function lockPayment(tx: Queryable, entityId: string, id: string): Promise<PaymentRecord | undefined> {
  const found = await tx.query<PaymentRow>(`SELECT ${COLUMNS} FROM payments WHERE id = $1 AND entity_id = $2 FOR UPDATE`, [
    id,
    entityId,
  ]);
  const row = found.rows[0];
  return row ? toRecord(row) : undefined;
}

export interface FinalResult {
  readonly resultCode: string;
  readonly resultDescription: string;
  readonly approved: boolean;
  readonly resultDetails: Record<string, string> | null;
  readonly threeDSecure: Record<string, string> | null;
  /** A registration the final success created (createRegistration=true on a challenged payment). */
  readonly registrationId: string | null;
}

/**
 * A pending payment's one transition to its final result (the redirect goes away with it). Only a pending row
 * is changed: false when the payment was not pending any more, so a late second answer changes nothing.
 */
export async function finishPendingPayment(tx: Queryable, id: string, result: FinalResult): Promise<boolean> {
  const updated = await tx.query(
    `UPDATE payments
        SET result_code = $2, result_description = $3, approved = $4, result_details = $5::jsonb,
            three_d_secure = $6::jsonb, redirect = NULL, registration_id = coalesce($7, registration_id)
      WHERE id = $1 AND result_code LIKE '000.200.%'`,
    [
      id,
      result.resultCode,
      result.resultDescription,
      result.approved,
      result.resultDetails === null ? null : JSON.stringify(result.resultDetails),
      result.threeDSecure === null ? null : JSON.stringify(result.threeDSecure),
      result.registrationId,
    ],
  );
  return updated.rowCount > 0;
}

/** Sums over the approved children of a payment, recomputed from the rows (never a cached counter). */
export async function childTotals(tx: Queryable, parentId: string): Promise<ChildTotals> {
  const found = await tx.query<{
    captured: number;
    capture_count: number;
    final_capture: boolean;
    refunded: number;
    final_refund: boolean;
    reversed: boolean;
  }>(
    `SELECT coalesce(sum(amount_minor) FILTER (WHERE payment_type = 'CP'), 0)::bigint AS captured,
            count(*) FILTER (WHERE payment_type = 'CP')::bigint AS capture_count,
            coalesce(bool_or(final_in_sequence) FILTER (WHERE payment_type = 'CP'), false) AS final_capture,
            coalesce(sum(amount_minor) FILTER (WHERE payment_type = 'RF'), 0)::bigint AS refunded,
            coalesce(bool_or(final_in_sequence) FILTER (WHERE payment_type = 'RF'), false) AS final_refund,
            count(*) FILTER (WHERE payment_type = 'RV') > 0 AS reversed
       FROM payments
      WHERE parent_id = $1 AND approved`,
    [parentId],
  );
  const row = found.rows[0];
  return {
    capturedMinor: Number(row?.captured ?? 0),
    captureCount: Number(row?.capture_count ?? 0),
    finalCaptureDone: row?.final_capture ?? false,
    refundedMinor: Number(row?.refunded ?? 0),
    finalRefundDone: row?.final_refund ?? false,
    reversed: row?.reversed ?? false,
  };
}
