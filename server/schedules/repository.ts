import type { QuartzFields } from '../domain/cron.ts';
import type { Queryable } from '../store/index.ts';

/** SQL for schedules and their executions (migration 0014). */

export type ScheduleStatus = 'active' | 'cancelled' | 'ended';
/** Who or what cancelled a schedule: the merchant (its API, or its user in the back office), an operator, its registration. */
export type ScheduleCancelReason = 'merchant' | 'operator' | 'registration deleted' | 'registration expired';

/** The job as answers show it: the seven Quartz fields, the expression, and the optional fields as sent. */
export interface ScheduleJob extends QuartzFields {
  readonly expression: string;
  /** job.name, job.noticeUnit, job.noticeNumber, job.noticeCallable, job.durationUnit, job.durationNumber as sent. */
  readonly extra: Readonly<Record<string, string>>;
}

export interface ScheduleRecord {
  readonly id: string;
  readonly entityId: string;
  readonly registrationId: string;
  readonly paymentType: 'PA' | 'DB' | 'CD';
  readonly amountMinor: number;
  readonly currency: string;
  readonly testMode: string | null;
  /** standingInstruction, descriptor, merchantTransactionId, customParameters: what each execution's payment carries. */
  readonly requestEcho: Record<string, unknown>;
  readonly job: ScheduleJob;
  readonly expression: string;
  readonly startAt: Date;
  readonly endAt: Date | null;
  readonly nextFireAt: Date | null;
  readonly status: ScheduleStatus;
  readonly createdAt: Date;
  readonly cancelledAt: Date | null;
  readonly cancelReason: ScheduleCancelReason | null;
  readonly endedAt: Date | null;
}

interface ScheduleRow {
  id: string;
  entity_id: string;
  registration_id: string;
  payment_type: ScheduleRecord['paymentType'];
  amount_minor: string | number;
  currency: string;
  test_mode: string | null;
  request_echo: Record<string, unknown>;
  job: ScheduleJob;
  expression: string;
  start_at: Date;
  end_at: Date | null;
  next_fire_at: Date | null;
  status: ScheduleStatus;
  created_at: Date;
  cancelled_at: Date | null;
  cancel_reason: ScheduleCancelReason | null;
  ended_at: Date | null;
}

const COLUMNS = `id, entity_id, registration_id, payment_type, amount_minor, currency, test_mode, request_echo, job, expression,
  start_at, end_at, next_fire_at, status, created_at, cancelled_at, cancel_reason, ended_at`;

function toRecord(row: ScheduleRow): ScheduleRecord {
  return {
    id: row.id,
    entityId: row.entity_id,
    registrationId: row.registration_id,
    paymentType: row.payment_type,
    amountMinor: Number(row.amount_minor),
    currency: row.currency,
    testMode: row.test_mode,
    requestEcho: row.request_echo,
    job: row.job,
    expression: row.expression,
    startAt: row.start_at,
    endAt: row.end_at,
    nextFireAt: row.next_fire_at,
    status: row.status,
    createdAt: row.created_at,
    cancelledAt: row.cancelled_at,
    cancelReason: row.cancel_reason,
    endedAt: row.ended_at,
  };
}

export async function insertSchedule(db: Queryable, schedule: ScheduleRecord): Promise<void> {
  await db.query(
    `INSERT INTO schedules (${COLUMNS}) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, $16, $17, $18)`,
    [
      schedule.id,
      schedule.entityId,
      schedule.registrationId,
      schedule.paymentType,
      schedule.amountMinor,
      schedule.currency,
      schedule.testMode,
      JSON.stringify(schedule.requestEcho),
      JSON.stringify(schedule.job),
      schedule.expression,
      schedule.startAt,
      schedule.endAt,
      schedule.nextFireAt,
      schedule.status,
      schedule.createdAt,
      schedule.cancelledAt,
      schedule.cancelReason,
      schedule.endedAt,
    ],
  );
}

/** The entity's schedule (another entity's is not found). */
export async function findSchedule(db: Queryable, entityId: string, id: string, options: { forUpdate?: boolean } = {}): Promise<ScheduleRecord | undefined> {
  const found = await db.query<ScheduleRow>(
    `SELECT ${COLUMNS} FROM schedules WHERE id = $1 AND entity_id = $2${options.forUpdate ? ' FOR UPDATE' : ''}`,
    [id, entityId],
  );
  const row = found.rows[0];
  return row ? toRecord(row) : undefined;
}

/** The entity's schedules among `ids` (the query API's SD and DS records), in no particular order. */
export async function findSchedulesOf(db: Queryable, entityId: string, ids: readonly string[]): Promise<ScheduleRecord[]> {
  if (ids.length === 0) return [];
  const found = await db.query<ScheduleRow>(`SELECT ${COLUMNS} FROM schedules WHERE entity_id = $1 AND id = ANY($2::char(32)[])`, [entityId, ids]);
  return found.rows.map(toRecord);
}

/** The schedules among `ids`, whichever entity's (the firing loop's ended schedules, for their events). */
export async function findSchedulesById(db: Queryable, ids: readonly string[]): Promise<ScheduleRecord[]> {
  if (ids.length === 0) return [];
  const found = await db.query<ScheduleRow>(`SELECT ${COLUMNS} FROM schedules WHERE id = ANY($1::char(32)[]) ORDER BY id`, [ids]);
  return found.rows.map(toRecord);
}

export async function findScheduleById(db: Queryable, id: string, options: { forUpdate?: boolean } = {}): Promise<ScheduleRecord | undefined> {
  const found = await db.query<ScheduleRow>(`SELECT ${COLUMNS} FROM schedules WHERE id = $1${options.forUpdate ? ' FOR UPDATE' : ''}`, [id]);
  const row = found.rows[0];
  return row ? toRecord(row) : undefined;
}

/** A registration's active schedules, locked (cancelled with it). */
export async function lockActiveSchedulesOf(tx: Queryable, registrationId: string): Promise<ScheduleRecord[]> {
  const found = await tx.query<ScheduleRow>(
    `SELECT ${COLUMNS} FROM schedules WHERE registration_id = $1 AND status = 'active' ORDER BY id FOR UPDATE`,
    [registrationId],
  );
  return found.rows.map(toRecord);
}

export async function markScheduleCancelled(tx: Queryable, id: string, reason: ScheduleCancelReason, now: Date): Promise<void> {
  await tx.query(
    "UPDATE schedules SET status = 'cancelled', next_fire_at = NULL, cancelled_at = $2, cancel_reason = $3 WHERE id = $1",
    [id, now, reason],
  );
}

// ---------------------------------------------------------------------------------------------------------------
// Firing: due schedules taken in batches

/** What the firing loop needs of a due schedule. */
export interface DueSchedule {
  readonly id: string;
  readonly expression: string;
  readonly endAt: Date | null;
  readonly nextFireAt: Date;
}

/**
 * Up to `limit` active schedules due at `now`, oldest fire time first, locked for the caller's transaction; rows
 * another instance holds are skipped (it is taking them).
 */
export async function lockDueSchedules(tx: Queryable, now: Date, limit: number): Promise<DueSchedule[]> {
  const found = await tx.query<{ id: string; expression: string; end_at: Date | null; next_fire_at: Date }>(
    `SELECT id, expression, end_at, next_fire_at FROM schedules
      WHERE status = 'active' AND next_fire_at <= $1
      ORDER BY next_fire_at LIMIT $2 FOR UPDATE SKIP LOCKED`,
    [now, limit],
  );
  return found.rows.map((row) => ({ id: row.id, expression: row.expression, endAt: row.end_at, nextFireAt: row.next_fire_at }));
}

/**
 * The idempotency key of a fire time's execution (issue: `schedule:<id>:<fire time>`): its payment job's unique key;
 * the payment's id is derived from it (service.ts executionPaymentId).
 */
export function executionKey(scheduleId: string, fireAt: Date): string {
  return `schedule:${scheduleId}:${fireAt.toISOString()}`;
}

/** The earliest fire time of the active schedules (the partial index's first entry). */
export async function earliestFireAt(db: Queryable): Promise<Date | undefined> {
  const found = await db.query<{ at: Date | null }>("SELECT min(next_fire_at) AS at FROM schedules WHERE status = 'active'");
  return found.rows[0]?.at ?? undefined;
}

/** A fire time taken: its execution row, and the schedule's next fire time (null: the schedule ended). */
export interface TakenFire {
  readonly scheduleId: string;
  /** The fire time the execution runs for (null: every missed fire time was outside the catch-up window). */
  readonly fireAt: Date | null;
  readonly missed: number;
  readonly paymentId: string | null;
  readonly nextFireAt: Date | null;
}

/**
 * Records a batch of taken fire times in one statement: the executions (a fire time already taken is left as it is),
 * their payment jobs, and the schedules' next fire times (or their end). The ids travel as char(32), the primary
 * key's type: compared as text, the join would read every schedule instead of its index.
 */
export async function recordTakenFires(tx: Queryable, fires: readonly TakenFire[], jobKind: string, taken: { readonly at: Date; readonly by: string }): Promise<void> {
  await tx.query(
    `WITH taken AS (
       SELECT * FROM unnest($1::char(32)[], $2::timestamptz[], $3::int[], $4::char(32)[], $5::text[], $6::timestamptz[], $9::text[])
                  AS t(schedule_id, fire_at, missed, payment_id, key, next_fire_at, fire_time)
     ), executions AS (
       INSERT INTO schedule_executions (schedule_id, fire_at, taken_at, taken_by, missed, payment_id)
       SELECT schedule_id, fire_at, $8::timestamptz, $10, missed, payment_id FROM taken WHERE fire_at IS NOT NULL
       ON CONFLICT DO NOTHING
     ), queued AS (
       INSERT INTO jobs (id, kind, unique_key, payload, run_at, created_at)
       SELECT md5(key), $7, key, jsonb_build_object('scheduleId', schedule_id, 'fireAt', fire_time), $8::timestamptz, $8::timestamptz
         FROM taken WHERE fire_at IS NOT NULL
       ON CONFLICT DO NOTHING
     )
     UPDATE schedules SET next_fire_at = taken.next_fire_at,
            status = CASE WHEN taken.next_fire_at IS NULL THEN 'ended' ELSE 'active' END,
            ended_at = CASE WHEN taken.next_fire_at IS NULL THEN $8::timestamptz END
       FROM taken
      WHERE schedules.id = taken.schedule_id`,
    [
      fires.map((fire) => fire.scheduleId),
      fires.map((fire) => fire.fireAt),
      fires.map((fire) => fire.missed),
      fires.map((fire) => fire.paymentId),
      fires.map((fire) => (fire.fireAt === null ? null : executionKey(fire.scheduleId, fire.fireAt))),
      fires.map((fire) => fire.nextFireAt),
      jobKind,
      taken.at,
      fires.map((fire) => fire.fireAt?.toISOString() ?? null),
      taken.by,
    ],
  );
}

// ---------------------------------------------------------------------------------------------------------------
// Executions

export type ExecutionOutcome = 'paid' | 'pending' | 'declined' | 'skipped';

export interface ExecutionRecord {
  readonly scheduleId: string;
  readonly fireAt: Date;
  readonly takenAt: Date;
  readonly takenBy: string;
  readonly missed: number;
  readonly paymentId: string;
  readonly startedAt: Date | null;
  readonly finishedAt: Date | null;
  readonly outcome: ExecutionOutcome | null;
  readonly resultCode: string | null;
  readonly reason: string | null;
}

interface ExecutionRow {
  schedule_id: string;
  fire_at: Date;
  taken_at: Date;
  taken_by: string;
  missed: number;
  payment_id: string;
  started_at: Date | null;
  finished_at: Date | null;
  outcome: ExecutionOutcome | null;
  result_code: string | null;
  reason: string | null;
}

const EXECUTION_COLUMNS = 'schedule_id, fire_at, taken_at, taken_by, missed, payment_id, started_at, finished_at, outcome, result_code, reason';

function toExecution(row: ExecutionRow): ExecutionRecord {
  return {
    scheduleId: row.schedule_id,
    fireAt: row.fire_at,
    takenAt: row.taken_at,
    takenBy: row.taken_by,
    missed: row.missed,
    paymentId: row.payment_id,
    startedAt: row.started_at,
    finishedAt: row.finished_at,
    outcome: row.outcome,
    resultCode: row.result_code,
    reason: row.reason,
  };
}

/** An execution being run, with its schedule; `firstRun`: no earlier run of its job had started it. */
export interface StartedExecution {
  readonly execution: ExecutionRecord;
  readonly schedule: ScheduleRecord;
  readonly firstRun: boolean;
}

/** Marks the execution started (the first time only) and reads it with its schedule, in one statement. */
export async function startExecution(db: Queryable, scheduleId: string, fireAt: Date, now: Date): Promise<StartedExecution | undefined> {
  const found = await db.query<ExecutionRow & ScheduleRow & { previously_started_at: Date | null }>(
    `WITH started AS (
       UPDATE schedule_executions e SET started_at = coalesce(e.started_at, $3)
         FROM (SELECT started_at AS previously_started_at FROM schedule_executions WHERE schedule_id = $1 AND fire_at = $2) before
        WHERE e.schedule_id = $1 AND e.fire_at = $2
       RETURNING e.*, before.previously_started_at
     )
     SELECT started.*, ${COLUMNS.split(',').map((column) => `s.${column.trim()}`).join(', ')}
       FROM started JOIN schedules s ON s.id = started.schedule_id`,
    [scheduleId, fireAt, now],
  );
  const row = found.rows[0];
  return row ? { execution: toExecution(row), schedule: toRecord(row), firstRun: row.previously_started_at === null } : undefined;
}

export async function finishExecution(
  db: Queryable,
  execution: { scheduleId: string; fireAt: Date },
  outcome: { outcome: ExecutionOutcome; resultCode: string | null; reason: string | null },
  now: Date,
): Promise<void> {
  await db.query(
    `UPDATE schedule_executions SET finished_at = $3, outcome = $4, result_code = $5, reason = $6
      WHERE schedule_id = $1 AND fire_at = $2 AND finished_at IS NULL`,
    [execution.scheduleId, execution.fireAt, now, outcome.outcome, outcome.resultCode, outcome.reason],
  );
}

/** A schedule's executions, oldest first. */
export async function findExecutions(db: Queryable, scheduleId: string): Promise<ExecutionRecord[]> {
  const found = await db.query<ExecutionRow>(`SELECT ${EXECUTION_COLUMNS} FROM schedule_executions WHERE schedule_id = $1 ORDER BY fire_at`, [scheduleId]);
  return found.rows.map(toExecution);
}
