import type { Queryable } from '../store/index.ts';
import { brandFilterOf } from './paymentMethods.ts';
import type { ListCriteria, QueryPage } from './request.ts';

/**
 * SQL of the query API (COMPAT §14): which transactions of an entity match, in (time, id) order, a page at a time;
 * what an id names; and which transactions are linked to one. Only ids and times are read here (from the indexes of
 * migration 0022); the records themselves are loaded by their own modules.
 *
 * Paging is by offset (pageNo × limit): the API names pages by number and counts them (`pages`), which a keyset
 * cursor cannot do. A page is read from an index in answer order, ids and times only (an index-only scan), so
 * skipping costs an index step per row skipped, and the date range's span (31 days) bounds it.
 */

/** What a query lists: payments, and the schedule (SD, DS) and registration (RG, DR) records when paymentTypes names them. */
export type RecordKind = 'payment' | 'SD' | 'DS' | 'RG' | 'DR';
export const RECORD_TYPES = ['SD', 'DS', 'RG', 'DR'] as const satisfies readonly RecordKind[];

export interface RecordRef {
  readonly kind: RecordKind;
  readonly id: string;
}

interface RefRow {
  kind: RecordKind;
  id: string;
}

const refOf = (row: RefRow): RecordRef => ({ kind: row.kind, id: row.id });

/** Where each kind of record lives: its table (as `t`), id, time, and what the filters compare. */
interface RecordSource {
  readonly kind: RecordKind;
  readonly table: string;
  readonly id: string;
  readonly at: string;
  /** The record exists (a cancellation, a deletion). */
  readonly exists?: string;
  readonly merchantTransactionId: string;
  readonly shortId: string;
  readonly brand: string;
}

const SCHEDULE_BRAND = '(SELECT r.payment_brand FROM registrations r WHERE r.id = t.registration_id)';

const SOURCES: Readonly<Record<RecordKind, RecordSource>> = {
  payment: { kind: 'payment', table: 'payments', id: 't.id', at: 't.created_at', merchantTransactionId: 't.merchant_transaction_id', shortId: 't.short_id', brand: 't.payment_brand' },
  SD: { kind: 'SD', table: 'schedules', id: 't.id', at: 't.created_at', merchantTransactionId: "t.request_echo->>'merchantTransactionId'", shortId: 'payment_short_id(t.id)', brand: SCHEDULE_BRAND },
  DS: {
    kind: 'DS',
    table: 'schedules',
    id: 't.id',
    at: 't.cancelled_at',
    exists: 't.cancelled_at IS NOT NULL',
    merchantTransactionId: "t.request_echo->>'merchantTransactionId'",
    shortId: 'payment_short_id(t.id)',
    brand: SCHEDULE_BRAND,
  },
  RG: { kind: 'RG', table: 'registrations', id: 't.id', at: 't.created_at', merchantTransactionId: "t.request_echo->>'merchantTransactionId'", shortId: 'payment_short_id(t.id)', brand: 't.payment_brand' },
  DR: {
    kind: 'DR',
    table: 'registrations',
    id: 't.deregistration_id',
    at: 't.deleted_at',
    exists: 't.deregistration_id IS NOT NULL',
    merchantTransactionId: "t.request_echo->>'merchantTransactionId'",
    shortId: 'payment_short_id(t.deregistration_id)',
    brand: 't.payment_brand',
  },
};

/** The SQL of the records matching `criteria`, as (kind, id, at) rows, and its parameters ($1 is the entity). */
function matchesOf(entityId: string, criteria: ListCriteria): { readonly sql: string; readonly values: unknown[] } {
  const values: unknown[] = [entityId];
  const parameter = (value: unknown, cast: string) => {
    values.push(value);
    return `$${values.length}::${cast}`;
  };
  const shared: ((source: RecordSource) => string)[] = [];
  if (criteria.merchantTransactionId !== undefined) {
    const reference = parameter(criteria.merchantTransactionId, 'text');
    shared.push((source) => `${source.merchantTransactionId} = ${reference}`);
  }
  if (criteria.range) {
    const from = parameter(criteria.range.from.toISOString(), 'timestamptz');
    const to = parameter(criteria.range.to.toISOString(), 'timestamptz');
    shared.push((source) => `${source.at} >= ${from} AND ${source.at} < ${to}`);
  }
  if (criteria.shortId !== undefined) {
    const shortId = parameter(criteria.shortId, 'text');
    shared.push((source) => `${source.shortId} = ${shortId}`);
  }
  if (criteria.paymentMethods) {
    const filter = brandFilterOf(criteria.paymentMethods);
    const brands = parameter(filter.brands, 'text[]');
    const nonCard = filter.cards ? parameter(filter.nonCardBrands, 'text[]') : undefined;
    shared.push(({ brand }) =>
      nonCard === undefined ? `${brand} = ANY(${brands})` : `(${brand} = ANY(${brands}) OR ${brand} IS NULL OR NOT ${brand} = ANY(${nonCard}))`,
    );
  }

  const types = criteria.paymentTypes;
  const paymentTypes = types?.filter((type) => !(RECORD_TYPES as readonly string[]).includes(type));
  const branches: string[] = [];
  if (paymentTypes === undefined || paymentTypes.length > 0) {
    const typeCondition = paymentTypes ? [`t.payment_type = ANY(${parameter(paymentTypes, 'text[]')})`] : [];
    branches.push(branchOf(SOURCES.payment, [...typeCondition, ...shared.map((condition) => condition(SOURCES.payment))]));
  }
  for (const kind of RECORD_TYPES) {
    if (!types?.includes(kind)) continue;
    const source = SOURCES[kind];
    branches.push(branchOf(source, [...(source.exists ? [source.exists] : []), ...shared.map((condition) => condition(source))]));
  }
  return { sql: branches.join('\n  UNION ALL\n'), values };
}

function branchOf(source: RecordSource, conditions: readonly string[]): string {
  const where = ['t.entity_id = $1', ...conditions].join(' AND ');
  return `SELECT '${source.kind}'::text AS kind, ${source.id} AS id, ${source.at} AS at FROM ${source.table} t WHERE ${where}`;
}

/** How many records match, and the page asked for (its ids, in answer order). */
export async function findMatches(db: Queryable, entityId: string, criteria: ListCriteria, page: QueryPage): Promise<{ readonly total: number; readonly refs: RecordRef[] }> {
  const { sql, values } = matchesOf(entityId, criteria);
  const limit = values.length + 1;
  const [counted, found] = await Promise.all([
    db.query<{ total: number | string }>(`SELECT count(*) AS total FROM (${sql}) AS matches`, values),
    db.query<RefRow>(`SELECT kind, id FROM (${sql}) AS matches ORDER BY at, id, kind LIMIT $${limit} OFFSET $${limit + 1}`, [
      ...values,
      page.limit,
      (page.pageNo - 1) * page.limit,
    ]),
  ]);
  return { total: Number(counted.rows[0]?.total ?? 0), refs: found.rows.map(refOf) };
}

/** The payment a checkout made (its approved one, else its latest), if it belongs to the entity. */
export async function findCheckoutPaymentId(db: Queryable, entityId: string, checkoutId: string): Promise<string | undefined> {
  const found = await db.query<{ payment_id: string }>(
    `SELECT a.payment_id FROM checkout_payments a JOIN payments p ON p.id = a.payment_id
      WHERE a.checkout_id = $1 AND p.entity_id = $2
      ORDER BY p.status = 'approved' DESC, a.attempt DESC LIMIT 1`,
    [checkoutId, entityId],
  );
  return found.rows[0]?.payment_id;
}

/** A schedule (SD), registration (RG) or deregistration (DR) of the entity with this id. */
export async function findOtherRecord(db: Queryable, entityId: string, id: string): Promise<RecordRef | undefined> {
  const found = await db.query<RefRow>(
    `SELECT 'SD' AS kind, id, created_at AS at FROM schedules WHERE id = $1 AND entity_id = $2
     UNION ALL SELECT 'RG', id, created_at FROM registrations WHERE id = $1 AND entity_id = $2
     UNION ALL SELECT 'DR', deregistration_id, deleted_at FROM registrations WHERE deregistration_id = $1 AND entity_id = $2
     LIMIT 1`,
    [id, entityId],
  );
  const row = found.rows[0];
  return row ? refOf(row) : undefined;
}

/**
 * The payments linked to one (COMPAT §14 includeLinkedTransactions): the family it belongs to — from the first
 * payment up its parents, then everything made on it (captures, refunds, reversals, chargebacks and their
 * reversals, incremental authorizations) — and a smart retry's pair (the rejected attempt the fallback names, with
 * what was made on either). Oldest first.
 */
export async function findLinkedPayments(db: Queryable, entityId: string, paymentId: string): Promise<RecordRef[]> {
  const found = await db.query<RefRow>(
    `WITH RECURSIVE up (id, parent_id) AS (
         SELECT id, parent_id FROM payments WHERE id = $1 AND entity_id = $2
       UNION ALL
         SELECT p.id, p.parent_id FROM payments p JOIN up ON p.id = up.parent_id
     ),
     first AS (SELECT p.id, p.result_details FROM payments p JOIN up ON p.id = up.id WHERE up.parent_id IS NULL),
     roots (id) AS (
         SELECT id FROM first
       UNION
         SELECT (result_details->>'SoftDeclineTransactionId')::char(32) FROM first WHERE result_details ? 'SoftDeclineTransactionId'
       UNION
         SELECT p.id FROM payments p JOIN first ON (p.result_details->>'SoftDeclineTransactionId') = first.id::text
          WHERE p.result_details ? 'SoftDeclineTransactionId'
     ),
     family (id) AS (
         SELECT id FROM roots
       UNION ALL
         SELECT p.id FROM payments p JOIN family ON p.parent_id = family.id
     )
     SELECT 'payment' AS kind, p.id, p.created_at AS at FROM payments p JOIN family ON p.id = family.id
      WHERE p.entity_id = $2
      ORDER BY p.created_at, p.id`,
    [paymentId, entityId],
  );
  return found.rows.map(refOf);
}

/** A schedule's records (SD, DS) and the payments of its executions, oldest first. */
export async function findScheduleLinks(db: Queryable, entityId: string, scheduleId: string): Promise<RecordRef[]> {
  const found = await db.query<RefRow>(
    `SELECT kind, id, at FROM (
         SELECT 'SD' AS kind, id, created_at AS at FROM schedules WHERE id = $1 AND entity_id = $2
       UNION ALL
         SELECT 'DS', id, cancelled_at FROM schedules WHERE id = $1 AND entity_id = $2 AND cancelled_at IS NOT NULL
       UNION ALL
         SELECT 'payment', p.id, p.created_at FROM schedule_executions e JOIN payments p ON p.id = e.payment_id
          WHERE e.schedule_id = $1 AND p.entity_id = $2
     ) AS links ORDER BY at, id, kind`,
    [scheduleId, entityId],
  );
  return found.rows.map(refOf);
}

/** A registration's records, named by the registration's id or its deregistration's: its creation (RG) and deletion (DR). */
export async function findRegistrationLinks(db: Queryable, entityId: string, id: string): Promise<RecordRef[]> {
  const found = await db.query<RefRow>(
    `SELECT kind, id, at FROM (
         SELECT 'RG' AS kind, id, created_at AS at FROM registrations WHERE (id = $1 OR deregistration_id = $1) AND entity_id = $2
       UNION ALL
         SELECT 'DR', deregistration_id, deleted_at FROM registrations
          WHERE (id = $1 OR deregistration_id = $1) AND entity_id = $2 AND deregistration_id IS NOT NULL
     ) AS links ORDER BY at, kind DESC`,
    [id, entityId],
  );
  return found.rows.map(refOf);
}
