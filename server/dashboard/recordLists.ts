import type { CardSummary } from '../domain/payment.ts';
import { findSchedulesById, type ScheduleRecord, type ScheduleStatus } from '../schedules/repository.ts';
import type { Queryable } from '../store/index.ts';
import type { ListCursor } from './cursor.ts';

/**
 * The back office's lists of stored cards and bank accounts (registrations) and of schedules: a set of entities' (or
 * every entity's), newest first, a page at a time. As the payment list (query/paymentList.ts), a page follows a
 * cursor (the last row's time as the store writes it, and its id), so the next page costs what the first did: the
 * indexes on (entity_id, created_at, id) are read backwards and the read stops one row after the page.
 */

export interface ListPage<T> {
  readonly rows: readonly T[];
  readonly next?: ListCursor;
}

/** A registration as the dashboard lists it: what answers show of it (never the sealed card), and its clock. */
export interface RegistrationListRow {
  readonly id: string;
  readonly entityId: string;
  readonly paymentBrand: string;
  readonly card: CardSummary | null;
  readonly bankAccount: Record<string, unknown> | null;
  readonly merchantTransactionId: string | null;
  readonly createdAt: Date;
  readonly lastUsedAt: Date;
  readonly deletedAt: Date | null;
}

interface RegistrationListDbRow {
  id: string;
  entity_id: string;
  payment_brand: string;
  card: CardSummary | null;
  bank_account: Record<string, unknown> | null;
  merchant_transaction_id: string | null;
  created_at: Date;
  last_used_at: Date;
  deleted_at: Date | null;
}

const toRegistrationRow = (row: RegistrationListDbRow): RegistrationListRow => ({
  id: row.id,
  entityId: row.entity_id,
  paymentBrand: row.payment_brand,
  card: row.card,
  bankAccount: row.bank_account,
  merchantTransactionId: row.merchant_transaction_id,
  createdAt: new Date(row.created_at),
  lastUsedAt: new Date(row.last_used_at),
  deletedAt: row.deleted_at === null ? null : new Date(row.deleted_at),
});

/** The WHERE of a page: its entities (undefined: every entity), more conditions, and the cursor. */
function pageQuery(entityIds: readonly string[] | undefined, after: ListCursor | undefined, more: readonly [string, unknown, string][] = []) {
  const values: unknown[] = [];
  const parameter = (value: unknown, type: string) => {
    values.push(value);
    return `$${values.length}::${type}`;
  };
  const conditions: string[] = [];
  if (entityIds) conditions.push(`entity_id = ANY(${parameter(entityIds, 'char(32)[]')})`);
  for (const [column, value, type] of more) conditions.push(`${column} = ${parameter(value, type)}`);
  if (after) conditions.push(`(created_at, id) < (${parameter(after.at, 'timestamptz')}, ${parameter(after.id, 'char(32)')})`);
  return { values, parameter, where: conditions.length > 0 ? `WHERE ${conditions.join(' AND ')}` : '' };
}

function pageOf<T extends { id: string }>(found: readonly (T & { at: string })[], limit: number): { rows: T[]; next?: ListCursor } {
  const rows = found.slice(0, limit);
  const last = rows[rows.length - 1];
  return found.length > limit && last ? { rows, next: { at: last.at, id: last.id } } : { rows };
}

/** The entities' registrations (deleted ones too), newest first, `limit` a page. */
export async function findRegistrationPage(
  db: Queryable,
  entityIds: readonly string[] | undefined,
  limit: number,
  after?: ListCursor,
): Promise<ListPage<RegistrationListRow>> {
  const { values, parameter, where } = pageQuery(entityIds, after);
  const found = await db.query<RegistrationListDbRow & { at: string }>(
    `SELECT id, entity_id, payment_brand, card, bank_account, request_echo->>'merchantTransactionId' AS merchant_transaction_id,
            created_at, last_used_at, deleted_at, created_at::text AS at
       FROM registrations ${where}
      ORDER BY created_at DESC, id DESC LIMIT ${parameter(limit + 1, 'integer')}`,
    values,
  );
  const page = pageOf(found.rows, limit);
  return { rows: page.rows.map(toRegistrationRow), ...(page.next ? { next: page.next } : {}) };
}

/** One registration by its id, whichever entity's (the caller decides whether its principal may see it). */
export async function findRegistrationRow(db: Queryable, id: string): Promise<RegistrationListRow | undefined> {
  const found = await db.query<RegistrationListDbRow>(
    `SELECT id, entity_id, payment_brand, card, bank_account, request_echo->>'merchantTransactionId' AS merchant_transaction_id,
            created_at, last_used_at, deleted_at
       FROM registrations WHERE id = $1`,
    [id],
  );
  const row = found.rows[0];
  return row ? toRegistrationRow(row) : undefined;
}

/** What a schedule's row shows of the registration it charges: its brand and card or (masked) account. */
export interface ChargedRegistration {
  readonly id: string;
  readonly paymentBrand: string;
  readonly card: CardSummary | null;
  readonly bankAccount: Record<string, unknown> | null;
  readonly deletedAt: Date | null;
}

/** The entities' schedules (of a status, or all), newest first, each with the registration it charges. */
export async function findSchedulePage(
  db: Queryable,
  entityIds: readonly string[] | undefined,
  status: ScheduleStatus | undefined,
  limit: number,
  after?: ListCursor,
): Promise<ListPage<{ schedule: ScheduleRecord; registration: ChargedRegistration | undefined }>> {
  const { values, parameter, where } = pageQuery(entityIds, after, status ? [['status', status, 'text']] : []);
  const found = await db.query<{ id: string; at: string }>(
    `SELECT id, created_at::text AS at FROM schedules ${where} ORDER BY created_at DESC, id DESC LIMIT ${parameter(limit + 1, 'integer')}`,
    values,
  );
  const page = pageOf(found.rows, limit);
  const schedules = new Map((await findSchedulesById(db, page.rows.map((row) => row.id))).map((schedule) => [schedule.id, schedule]));
  const registrationIds = [...new Set([...schedules.values()].map((schedule) => schedule.registrationId))];
  const charged =
    registrationIds.length === 0
      ? []
      : (
          await db.query<{ id: string; payment_brand: string; card: CardSummary | null; bank_account: Record<string, unknown> | null; deleted_at: Date | null }>(
            'SELECT id, payment_brand, card, bank_account, deleted_at FROM registrations WHERE id = ANY($1::char(32)[])',
            [registrationIds],
          )
        ).rows;
  const registrations = new Map(
    charged.map((row) => [
      row.id,
      { id: row.id, paymentBrand: row.payment_brand, card: row.card, bankAccount: row.bank_account, deletedAt: row.deleted_at === null ? null : new Date(row.deleted_at) },
    ]),
  );
  const rows = page.rows.flatMap((row) => {
    const schedule = schedules.get(row.id);
    return schedule ? [{ schedule, registration: registrations.get(schedule.registrationId) }] : [];
  });
  return { rows, ...(page.next ? { next: page.next } : {}) };
}

/** The actions recorded through the dashboard on one thing that is no payment (a webhook, a schedule), oldest first. */
export async function actionsOnSubject(
  db: Queryable,
  entityId: string,
  subject: { readonly key: string; readonly id: string },
  limit = 100,
): Promise<{ actor: string; action: string; detail: Record<string, unknown>; resultCode: string | null; at: Date }[]> {
  const found = await db.query<{ actor: string; action: string; detail: Record<string, unknown>; result_code: string | null; at: Date }>(
    `SELECT actor, action, detail, result_code, at FROM (
       SELECT id, actor, action, detail, result_code, at FROM dashboard_actions
        WHERE entity_id = $1 AND detail->>$2::text = $3::text ORDER BY at DESC, id DESC LIMIT $4::integer) latest
      ORDER BY at, id`,
    [entityId, subject.key, subject.id, limit],
  );
  return found.rows.map((row) => ({ actor: row.actor, action: row.action, detail: row.detail, resultCode: row.result_code, at: new Date(row.at) }));
}
