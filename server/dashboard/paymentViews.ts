import type { Lifecycle, LifecycleState } from '../domain/backOffice.ts';
import { csvRow } from '../domain/csv.ts';
import type { PaymentRecord } from '../domain/payment.ts';
import { formatAmount } from '../domain/money.ts';
import { paymentBody, resultOf, shortIdOf } from '../payments/view.ts';
import type { Queryable } from '../store/index.ts';

/** The payments as the dashboard shows them: a list row, and everything the detail page gathers about one. */

export function paymentRowView(payment: PaymentRecord, state: LifecycleState): Record<string, unknown> {
  return {
    id: payment.id,
    entityId: payment.entityId,
    shortId: shortIdOf(payment.id),
    createdAt: payment.createdAt.toISOString(),
    paymentType: payment.paymentType,
    ...(payment.paymentBrand ? { paymentBrand: payment.paymentBrand } : {}),
    amount: formatAmount(payment.amountMinor),
    currency: payment.currency,
    status: payment.status,
    state,
    result: resultOf(payment),
    ...(payment.merchantTransactionId !== null ? { merchantTransactionId: payment.merchantTransactionId } : {}),
    ...(payment.card ? { card: { bin: payment.card.bin, last4Digits: payment.card.last4Digits } } : {}),
  };
}

/**
 * The payment as the API answers it, with the row's facts (its card as the row shows it, BIN and last 4 only) and its
 * lifecycle: its state, and what is left to capture and to refund.
 */
export function paymentDetailView(payment: PaymentRecord, lifecycle: Lifecycle): Record<string, unknown> {
  return {
    ...paymentBody(payment),
    ...paymentRowView(payment, lifecycle.state),
    capturableAmount: formatAmount(lifecycle.capturableMinor),
    refundableAmount: formatAmount(lifecycle.refundableMinor),
    acquirer: payment.acquirer,
    source: payment.source,
    ...(payment.checkoutId ? { checkoutId: payment.checkoutId } : {}),
  };
}

/** What the operations on a payment may be asked now: its lifecycle's, the API's own rules on its family's totals. */
export function possibleActions(lifecycle: Lifecycle): { capture: boolean; refund: boolean; reverse: boolean } {
  return { capture: lifecycle.capturableMinor > 0, refund: lifecycle.refundableMinor > 0, reverse: lifecycle.reversible };
}

/** The export's columns, in order. */
export const EXPORT_COLUMNS = [
  'id',
  'shortId',
  'createdAt',
  'entityId',
  'paymentType',
  'paymentBrand',
  'amount',
  'currency',
  'state',
  'resultCode',
  'resultDescription',
  'merchantTransactionId',
  'referencedId',
  'cardBin',
  'cardLast4Digits',
  'cardHolder',
  'customerEmail',
  'acquirer',
] as const;

function exportCells(payment: PaymentRecord, state: LifecycleState): (string | null)[] {
  const customer = payment.requestEcho.customer as Record<string, unknown> | undefined;
  return [
    payment.id,
    shortIdOf(payment.id),
    payment.createdAt.toISOString(),
    payment.entityId,
    payment.paymentType,
    payment.paymentBrand,
    formatAmount(payment.amountMinor),
    payment.currency,
    state,
    payment.resultCode,
    payment.resultDescription,
    payment.merchantTransactionId,
    payment.parentId,
    payment.card?.bin ?? null,
    payment.card?.last4Digits ?? null,
    payment.card?.holder ?? null,
    typeof customer?.email === 'string' ? customer.email : null,
    payment.acquirer,
  ];
}

/**
 * The payments as a CSV file (RFC 4180: CRLF line ends, a header line), each cell made safe for spreadsheets
 * (domain/csv.ts), produced as it is read: the stream asks for the next rows only when the last were taken.
 */
export function paymentsCsv(payments: AsyncIterable<{ readonly payment: PaymentRecord; readonly state: LifecycleState }>): ReadableStream<Uint8Array> {
  const encoder = new TextEncoder();
  const iterator = payments[Symbol.asyncIterator]();
  let header = true;
  return new ReadableStream<Uint8Array>({
    async pull(controller) {
      if (header) {
        header = false;
        controller.enqueue(encoder.encode(`${csvRow(EXPORT_COLUMNS)}\r\n`));
        return;
      }
      const lines: string[] = [];
      // A few hundred lines per chunk: one write per row would cost more than the rows.
      while (lines.length < 256) {
        const next = await iterator.next();
        if (next.done) break;
        lines.push(`${csvRow(exportCells(next.value.payment, next.value.state))}\r\n`);
      }
      if (lines.length > 0) controller.enqueue(encoder.encode(lines.join('')));
      if (lines.length < 256) controller.close();
    },
    async cancel() {
      await iterator.return?.();
    },
  });
}

/** The events of these payments (what notifications carry), oldest first. */
export async function eventsOf(db: Queryable, paymentIds: readonly string[]): Promise<Record<string, unknown>[]> {
  const found = await db.query<{ resource_id: string; type: string; action: string; created_at: Date }>(
    `SELECT resource_id, type, action, created_at FROM events WHERE resource_id = ANY($1::char(32)[]) ORDER BY id`,
    [paymentIds],
  );
  return found.rows.map((row) => ({ paymentId: row.resource_id, type: row.type, action: row.action, at: new Date(row.created_at).toISOString() }));
}

/** The webhook deliveries of those events, each with its attempts (never what was sent). */
export async function webhookAttemptsOf(db: Queryable, paymentIds: readonly string[]): Promise<Record<string, unknown>[]> {
  const found = await db.query<{
    id: string;
    webhook_id: string;
    url: string;
    resource_id: string;
    action: string;
    delivered_at: Date | null;
    given_up_at: Date | null;
    attempts: { attempted_at: string; http_status: number | null; error: string | null }[] | null;
  }>(
    `SELECT d.id, d.webhook_id, w.url, e.resource_id, e.action, d.delivered_at, d.given_up_at,
            (SELECT json_agg(json_build_object('attempted_at', a.attempted_at, 'http_status', a.http_status, 'error', a.error) ORDER BY a.id)
               FROM webhook_attempts a WHERE a.delivery_id = d.id) AS attempts
       FROM events e JOIN webhook_deliveries d ON d.event_id = e.id JOIN webhooks w ON w.id = d.webhook_id
      WHERE e.resource_id = ANY($1::char(32)[])
      ORDER BY e.id, d.id`,
    [paymentIds],
  );
  return found.rows.map((row) => ({
    deliveryId: row.id,
    webhookId: row.webhook_id,
    url: row.url,
    paymentId: row.resource_id,
    action: row.action,
    status: row.delivered_at ? 'delivered' : row.given_up_at ? 'given up' : 'pending',
    attempts: (row.attempts ?? []).map((attempt) => ({
      at: new Date(attempt.attempted_at).toISOString(),
      ...(attempt.http_status !== null ? { httpStatus: attempt.http_status } : {}),
      ...(attempt.error !== null ? { error: attempt.error } : {}),
    })),
  }));
}

/**
 * Which acquirers were asked for these payments, and how each call ended (the smart-retry facts): recorded, refused,
 * unknown (never received), open (being asked), or awaiting the acquirer's final word (asked so often, next then).
 */
export async function acquirerAttemptsOf(db: Queryable, paymentIds: readonly string[]): Promise<Record<string, unknown>[]> {
  const found = await db.query<{ payment_id: string; acquirer: string; created_at: Date; outcome: string | null; next_inquiry_at: Date | null; inquiries: number }>(
    `SELECT payment_id, acquirer, created_at, outcome, next_inquiry_at, inquiries FROM acquirer_attempts
      WHERE payment_id = ANY($1::char(32)[]) ORDER BY created_at, id`,
    [paymentIds],
  );
  return found.rows.map((row) => {
    const awaiting = row.outcome === null && row.next_inquiry_at !== null;
    return {
      paymentId: row.payment_id,
      acquirer: row.acquirer,
      at: new Date(row.created_at).toISOString(),
      outcome: row.outcome ?? (awaiting ? 'awaiting' : 'open'),
      ...(awaiting ? { inquiries: Number(row.inquiries), nextInquiryAt: new Date(row.next_inquiry_at as Date).toISOString() } : {}),
    };
  });
}
