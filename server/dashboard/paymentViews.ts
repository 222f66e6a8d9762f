import type { PaymentRecord } from '../domain/payment.ts';
import { formatAmount } from '../domain/money.ts';
import { paymentBody, resultOf, shortIdOf } from '../payments/view.ts';
import type { Queryable } from '../store/index.ts';

/** The payments as the dashboard shows them: a list row, and everything the detail page gathers about one. */

export function paymentRowView(payment: PaymentRecord): Record<string, unknown> {
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
    result: resultOf(payment),
    ...(payment.merchantTransactionId !== null ? { merchantTransactionId: payment.merchantTransactionId } : {}),
    ...(payment.card ? { card: { bin: payment.card.bin, last4Digits: payment.card.last4Digits } } : {}),
  };
}

/** The payment as the API answers it, with the row's facts: its card as the row shows it, BIN and last 4 only. */
export function paymentDetailView(payment: PaymentRecord): Record<string, unknown> {
  return {
    ...paymentBody(payment),
    ...paymentRowView(payment),
    acquirer: payment.acquirer,
    source: payment.source,
    ...(payment.checkoutId ? { checkoutId: payment.checkoutId } : {}),
  };
}

/** What the operations on a payment may be asked now, as far as its own row tells (the API decides the rest). */
export function possibleActions(payment: PaymentRecord): { capture: boolean; refund: boolean; reverse: boolean } {
  const approved = payment.status === 'approved';
  return {
    capture: approved && payment.paymentType === 'PA',
    refund: approved && (payment.paymentType === 'DB' || payment.paymentType === 'CP'),
    reverse: approved && (payment.paymentType === 'PA' || payment.paymentType === 'DB' || payment.paymentType === 'CP'),
  };
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
