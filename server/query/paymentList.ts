import type { LifecycleState } from '../domain/backOffice.ts';
import type { PaymentRecord, PaymentStatus } from '../domain/payment.ts';
import { PAYMENT_COLUMNS, paymentOfRow } from '../payments/store/payments.ts';
import type { Queryable } from '../store/index.ts';

/**
 * The back office's payment list (dashboard/): payments of a set of entities (or of all), newest first, filtered, a
 * page at a time. Pages follow a cursor (the last row's time and id), not an offset, so the next page costs the same
 * on a store of a million payments as the first: the list reads the index on (created_at, id), or each entity's on
 * (entity_id, created_at, id), backwards and stops after one row more than the page. The same criteria count the
 * rows (countPayments) and export them all (eachPayment, a page at a time: flat memory).
 */

export interface PaymentListCriteria {
  /** The entities whose payments are listed; undefined: every entity's (an operator's view). */
  readonly entityIds?: readonly string[];
  readonly id?: string;
  readonly status?: PaymentStatus;
  /** The lifecycle state (domain/backOffice.ts lifecycleOf) the ledger wrote; a payment nothing was done to is its status. */
  readonly state?: LifecycleState;
  readonly paymentBrand?: string;
  readonly paymentType?: string;
  readonly currency?: string;
  /** Inclusive bounds, in minor units. */
  readonly amountFromMinor?: number;
  readonly amountToMinor?: number;
  /** from inclusive, to exclusive. */
  readonly from?: Date;
  readonly to?: Date;
  readonly merchantTransactionId?: string;
  readonly shortId?: string;
  /** The card's: last 4 digits, first 6 or 8 (BIN), a part of the holder's name (any case). */
  readonly last4Digits?: string;
  readonly bin?: string;
  readonly holder?: string;
  /** The shopper's e-mail address as sent (customer.email), any case. */
  readonly email?: string;
  /** A search text that is no id, card or address: the merchant's reference, or a part of the card holder's name. */
  readonly text?: string;
}

/** Where a page starts: after the row of this time and id (in newest-first order). */
export interface PaymentCursor {
  /** The row's created_at as the store writes it (microseconds: a JavaScript Date would cut them off). */
  readonly at: string;
  readonly id: string;
}

export interface ListedPayment {
  readonly payment: PaymentRecord;
  readonly state: LifecycleState;
}

export interface PaymentListPage {
  readonly payments: readonly ListedPayment[];
  /** The cursor of the next page, when there is one. */
  readonly next?: PaymentCursor;
}

/** A LIKE pattern matching `text` anywhere, its wildcards taken literally. */
const containing = (text: string): string => `%${text.replace(/[\\%_]/g, (wildcard) => `\\${wildcard}`)}%`;

/** The criteria as SQL conditions on payments, their values added to `values` (the entities are not among them). */
function conditionsOf(criteria: PaymentListCriteria, values: unknown[]): { conditions: string[]; parameter: (value: unknown, type: string) => string } {
  const parameter = (value: unknown, type: string) => {
    values.push(value);
    return `$${values.length}::${type}`;
  };
  const conditions: string[] = [];
  if (criteria.id !== undefined) conditions.push(`id = ${parameter(criteria.id, 'char(32)')}`);
  if (criteria.status !== undefined) conditions.push(`status = ${parameter(criteria.status, 'text')}`);
  if (criteria.state !== undefined) conditions.push(`coalesce(lifecycle, status) = ${parameter(criteria.state, 'text')}`);
  if (criteria.paymentBrand !== undefined) conditions.push(`payment_brand = ${parameter(criteria.paymentBrand, 'text')}`);
  if (criteria.paymentType !== undefined) conditions.push(`payment_type = ${parameter(criteria.paymentType, 'char(2)')}`);
  if (criteria.currency !== undefined) conditions.push(`currency = ${parameter(criteria.currency, 'char(3)')}`);
  if (criteria.amountFromMinor !== undefined) conditions.push(`amount_minor >= ${parameter(criteria.amountFromMinor, 'bigint')}`);
  if (criteria.amountToMinor !== undefined) conditions.push(`amount_minor <= ${parameter(criteria.amountToMinor, 'bigint')}`);
  if (criteria.from !== undefined) conditions.push(`created_at >= ${parameter(criteria.from, 'timestamptz')}`);
  if (criteria.to !== undefined) conditions.push(`created_at < ${parameter(criteria.to, 'timestamptz')}`);
  if (criteria.merchantTransactionId !== undefined) conditions.push(`merchant_transaction_id = ${parameter(criteria.merchantTransactionId, 'text')}`);
  if (criteria.shortId !== undefined) conditions.push(`short_id = ${parameter(criteria.shortId, 'text')}`);
  if (criteria.last4Digits !== undefined) conditions.push(`card->>'last4Digits' = ${parameter(criteria.last4Digits, 'text')}`);
  if (criteria.bin !== undefined) conditions.push(`card->>'bin' LIKE ${parameter(`${criteria.bin}%`, 'text')}`);
  if (criteria.holder !== undefined) conditions.push(`card->>'holder' ILIKE ${parameter(containing(criteria.holder), 'text')}`);
  if (criteria.email !== undefined) conditions.push(`lower(request_echo->'customer'->>'email') = ${parameter(criteria.email.toLowerCase(), 'text')}`);
  if (criteria.text !== undefined) {
    conditions.push(`(merchant_transaction_id = ${parameter(criteria.text, 'text')} OR card->>'holder' ILIKE ${parameter(containing(criteria.text), 'text')})`);
  }
  return { conditions, parameter };
}

export async function findPaymentPage(db: Queryable, criteria: PaymentListCriteria, limit: number, after?: PaymentCursor): Promise<PaymentListPage> {
  const values: unknown[] = [];
  const { conditions, parameter } = conditionsOf(criteria, values);
  if (after) conditions.push(`(created_at, id) < (${parameter(after.at, 'timestamptz')}, ${parameter(after.id, 'char(32)')})`);
  const rowsWanted = parameter(limit + 1, 'integer');
  // The rows themselves, in the one statement that finds them (a second to read them by id cost the export half its time).
  const page = (where: readonly string[]) =>
    `SELECT ${PAYMENT_COLUMNS}, created_at::text AS at, coalesce(lifecycle, status) AS state FROM payments
      ${where.length > 0 ? `WHERE ${where.join(' AND ')}` : ''} ORDER BY created_at DESC, id DESC LIMIT ${rowsWanted}`;
  // Each entity's newest rows read from its own index (entity_id, created_at, id), then merged: `entity_id = ANY(...)`
  // would make the store read every row of the entities and sort them.
  const sql = criteria.entityIds
    ? `SELECT p.* FROM unnest(${parameter(criteria.entityIds, 'char(32)[]')}) AS e (entity_id)
         CROSS JOIN LATERAL (${page(['entity_id = e.entity_id', ...conditions])}) AS p
        ORDER BY p.created_at DESC, p.id DESC LIMIT ${rowsWanted}`
    : page(conditions);
  const found = await db.query<Record<string, unknown> & { id: string; at: string; state: LifecycleState }>(sql, values);
  const rows = found.rows.slice(0, limit);
  const payments = rows.map((row) => ({ payment: paymentOfRow(row), state: row.state }));
  const last = rows[rows.length - 1];
  return found.rows.length > limit && last ? { payments, next: { at: last.at, id: last.id } } : { payments };
}

/** How many payments the criteria select (every page's rows together). */
export async function countPayments(db: Queryable, criteria: PaymentListCriteria): Promise<number> {
  const values: unknown[] = [];
  const { conditions, parameter } = conditionsOf(criteria, values);
  if (criteria.entityIds) conditions.push(`entity_id = ANY(${parameter(criteria.entityIds, 'char(32)[]')})`);
  const found = await db.query<{ count: string | number }>(`SELECT count(*) AS count FROM payments ${conditions.length > 0 ? `WHERE ${conditions.join(' AND ')}` : ''}`, values);
  return Number(found.rows[0]?.count ?? 0);
}

/** Every payment the criteria select, newest first, read a page of `pageSize` at a time (an export's flat memory). */
export async function* eachPayment(db: Queryable, criteria: PaymentListCriteria, pageSize = 1_000): AsyncGenerator<ListedPayment> {
  let after: PaymentCursor | undefined;
  do {
    const page = await findPaymentPage(db, criteria, pageSize, after);
    yield* page.payments;
    after = page.next;
  } while (after);
}
