import { simulatedSettlementFeed, type SettleableOperation } from './acquirerFeed.ts';
import { isCalendarDate } from '../domain/instruments.ts';
import type { PaymentRecord } from '../domain/payment.ts';
import { findPaymentsById } from '../payments/store/payments.ts';
import type { Queryable, Store } from '../store/index.ts';
import { matchRecords } from './matching.ts';
import type { SettlementConfig } from '../settlementConfig.ts';
import { insertSettlementBatch, type NewSettlementRecord, type SettlementBatch } from './settlementRecords.ts';
import { findSettlementSettings } from './settlementSettings.ts';

/**
 * The settlement run of a day (issue 21): for every entity, the simulated acquirers settle the approved operations
 * (DB, CP, CD, RF, CB, CR) made up to the day's cut-off (SETTLEMENT_CUTOFF_UTC) that no run settled before — one
 * batch per entity, acquirer, settlement currency and mode, its records matched against the entity's payments, written
 * with the marks of the operations it settles (settled_operations) in one transaction per entity, under a lock per
 * entity. So each operation is settled exactly once, however often and on however many instances the run runs: a
 * second run of the day finds nothing left, and an operation the first run could not see yet (its transaction
 * committed a moment after the run read, or a payment approved after waiting) goes with the next day's run. The
 * batch of a day is written once (insertSettlementBatch): operations that would join a batch written already wait
 * for the next day's. A run of today before its cut-off (an operator's, in test) takes what was made up to then and
 * leaves the day to the daily job.
 */

/** How far back a run looks for operations not settled yet: a prepayment may wait 7 days before it is approved. */
export const SETTLEMENT_LOOKBACK_DAYS = 10;
const DAY_MS = 86_400_000;

export interface SettlementRunDeps {
  readonly store: Store;
  /** The simulated acquirers (ACQUIRERS that ACQUIRERS_FILE does not describe): each settles its operations. */
  readonly acquirers: readonly string[];
  readonly settlement: SettlementConfig;
  readonly now: () => Date;
}

export interface SettledBatch {
  readonly id: string;
  readonly entityId: string;
  readonly clearingInstitute: string;
  readonly settlementCurrency: string;
  readonly settlementAmountMinor: number;
  readonly transactionCount: number;
  readonly test: boolean;
}

export interface SettlementRunResult {
  readonly date: string;
  readonly cutoffAt: Date;
  /** What the run took operations up to: the cut-off, or the moment of a run of today before its cut-off. */
  readonly until: Date;
  /** The batches this run wrote (a repeated run writes none). */
  readonly batches: readonly SettledBatch[];
}

/** The cut-off of a settlement day (yyyy-MM-dd), UTC. */
export function cutoffOf(date: string, cutoffMinutesUtc: number): Date {
  return new Date(Date.parse(`${date}T00:00:00.000Z`) + cutoffMinutesUtc * 60_000);
}

/** The settlement day whose cut-off is the latest one at or before `now`. */
export function latestSettlementDate(now: Date, cutoffMinutesUtc: number): string {
  return new Date(now.getTime() - cutoffMinutesUtc * 60_000).toISOString().slice(0, 10);
}

/** Whether `date` is a day as settlements name it: yyyy-MM-dd, one that exists. */
export function isSettlementDay(date: string): boolean {
  return /^\d{4}-\d{2}-\d{2}$/.test(date) && isCalendarDate(date);
}

/** Why `date` cannot be run now (not a yyyy-MM-dd day, or a day after today), or undefined. */
export function settlementDateProblem(date: string, now: Date): string | undefined {
  if (!isSettlementDay(date)) return 'must be a date yyyy-MM-dd';
  if (date > now.toISOString().slice(0, 10)) return 'must not be after today (UTC): its operations are not made yet';
  return undefined;
}

/** The payments an operation's chain names, from the operation up to its first payment, read a level at a time. */
async function withAncestors(tx: Queryable, operations: readonly PaymentRecord[]): Promise<Map<string, PaymentRecord>> {
  const known = new Map(operations.map((payment) => [payment.id, payment]));
  let missing = [...new Set(operations.map((payment) => payment.parentId).filter((id): id is string => id !== null && !known.has(id)))];
  while (missing.length > 0) {
    const parents = await findPaymentsById(tx, missing);
    for (const parent of parents) known.set(parent.id, parent);
    missing = [...new Set(parents.map((payment) => payment.parentId).filter((id): id is string => id !== null && !known.has(id)))];
  }
  return known;
}

function resolve(operation: PaymentRecord, known: ReadonlyMap<string, PaymentRecord>): SettleableOperation {
  const parentOf = (payment: PaymentRecord) => (payment.parentId === null ? undefined : known.get(payment.parentId));
  let origin = operation;
  for (let parent = parentOf(origin); parent; parent = parentOf(origin)) origin = parent;
  let charged: PaymentRecord | undefined;
  if (operation.paymentType === 'CB' || operation.paymentType === 'CR') {
    charged = parentOf(operation);
    while (charged && (charged.paymentType === 'CB' || charged.paymentType === 'CR')) charged = parentOf(charged);
  }
  return { operation, charged, origin };
}

/** Settles one entity's operations not settled yet, made after `since` and up to `until`; the batches written. */
async function settleEntity(tx: Queryable, deps: SettlementRunDeps, entityId: string, date: string, since: Date, until: Date): Promise<SettledBatch[]> {
  // Runs of any day, on any instance, settle an entity one at a time: what one marks settled the next one sees.
  await tx.query('SELECT pg_advisory_xact_lock(hashtext($1))', [`settlement:${entityId}`]);
  const pending = await tx.query<{ id: string }>(
    `SELECT p.id FROM payments p
      WHERE p.entity_id = $1 AND p.created_at > $2::timestamptz AND p.created_at <= $3::timestamptz AND p.status = 'approved'
        AND p.payment_type IN ('DB', 'CP', 'CD', 'RF', 'CB', 'CR') AND p.acquirer = ANY($4::text[])
        AND NOT EXISTS (SELECT 1 FROM settled_operations s WHERE s.payment_id = p.id)`,
    [entityId, since.toISOString(), until.toISOString(), [...deps.acquirers]],
  );
  if (pending.rows.length === 0) return [];
  const operations = await findPaymentsById(tx, pending.rows.map((row) => row.id));
  const known = await withAncestors(tx, operations);
  const feed = simulatedSettlementFeed({
    entityId,
    operations: operations.map((operation) => resolve(operation, known)),
    settings: await findSettlementSettings(tx, entityId),
    config: deps.settlement,
    date,
    until,
  });
  const written: SettledBatch[] = [];
  const createdAt = deps.now();
  for (const list of feed) {
    const records = await matchRecords(tx, entityId, list.records);
    const head = { entityId, clearingInstitute: list.acquirer, settlementDate: date, settlementCurrency: list.settlementCurrency, test: list.test, createdAt };
    const batch = await writeSettledBatch(tx, head, records, [...list.operationIds]);
    // The day's batch exists already (an earlier run): these operations go with the next day's run.
    if (batch) written.push(batch);
  }
  return written;
}

/**
 * Writes an entity's settlement batch with its records (its amount what they net) and marks the operations it settles;
 * undefined when the entity has that batch already (the same clearing institute, day and currency): nothing written.
 */
export async function writeSettledBatch(
  tx: Queryable,
  head: Omit<SettlementBatch, 'id' | 'settlementAmountMinor' | 'transactionCount'>,
  records: readonly NewSettlementRecord[],
  settledPaymentIds: readonly string[],
): Promise<SettledBatch | undefined> {
  const batch = { ...head, settlementAmountMinor: netAmountOf(records), transactionCount: records.length };
  const inserted = await insertSettlementBatch(tx, batch, records);
  if (!inserted.inserted) return undefined;
  if (settledPaymentIds.length > 0) {
    // An operation an earlier batch settled stays that batch's (a provider may list it again: a chargeback's record names it).
    await tx.query(
      `INSERT INTO settled_operations (payment_id, batch_id, settled_at) SELECT unnest($1::char(32)[]), $2, $3::timestamptz ON CONFLICT DO NOTHING`,
      [settledPaymentIds, inserted.batchId, head.createdAt.toISOString()],
    );
  }
  return { id: inserted.batchId, ...batch };
}

/** What reaches the merchant: positive records, minus negative ones, minus every record's fee. */
export function netAmountOf(records: readonly NewSettlementRecord[]): number {
  return records.reduce((sum, record) => sum + (record.cashflow === 'POS' ? record.settlementAmountMinor : -record.settlementAmountMinor) - (record.settlementFeeMinor ?? 0), 0);
}

/** Runs the settlement of `date` (yyyy-MM-dd, checked by the caller: settlementDateProblem). */
export async function runSettlement(deps: SettlementRunDeps, date: string): Promise<SettlementRunResult> {
  const now = deps.now();
  const cutoffAt = cutoffOf(date, deps.settlement.cutoffMinutesUtc);
  const until = cutoffAt.getTime() <= now.getTime() ? cutoffAt : now;
  const since = new Date(cutoffAt.getTime() - SETTLEMENT_LOOKBACK_DAYS * DAY_MS);
  const entities = await deps.store.query<{ id: string }>('SELECT id FROM entities ORDER BY id');
  const batches: SettledBatch[] = [];
  for (const { id } of entities.rows) {
    batches.push(...(await deps.store.transaction((tx) => settleEntity(tx, deps, id, date, since, until))));
  }
  // A run of today before its cut-off leaves the day to the daily job (operations of other acquirers or currencies
  // may still come, and the batches written already take theirs with the next day's run).
  if (until.getTime() < cutoffAt.getTime()) return { date, cutoffAt, until, batches };
  await deps.store.query(
    `INSERT INTO settlement_runs (settlement_date, first_run_at, last_run_at) VALUES ($1::date, $2::timestamptz, $2::timestamptz)
     ON CONFLICT (settlement_date) DO UPDATE SET last_run_at = EXCLUDED.last_run_at`,
    [date, deps.now().toISOString()],
  );
  return { date, cutoffAt, until, batches };
}

/** The days (from the latest `days` whose cut-off has passed) the run has not run for yet, oldest first. */
export async function settlementDaysDue(db: Queryable, now: Date, cutoffMinutesUtc: number, days: number): Promise<string[]> {
  const latest = Date.parse(`${latestSettlementDate(now, cutoffMinutesUtc)}T00:00:00.000Z`);
  const candidates = Array.from({ length: days }, (_, index) => new Date(latest - (days - 1 - index) * DAY_MS).toISOString().slice(0, 10));
  const ran = await db.query<{ day: string }>('SELECT settlement_date::text AS day FROM settlement_runs WHERE settlement_date = ANY($1::date[])', [candidates]);
  const done = new Set(ran.rows.map((row) => row.day));
  return candidates.filter((date) => !done.has(date));
}
