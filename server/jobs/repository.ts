import { newResourceId } from '../domain/ids.ts';
import type { Queryable } from '../store/index.ts';

/**
 * SQL for the jobs table. Times always come from the caller's clock (never the database's now()), so
 * tests move time with an injected clock and every instance decides "due" the same way it decides expiry.
 */

export type JobPayload = Readonly<Record<string, unknown>>;

export interface NewJob {
  readonly kind: string;
  readonly payload: JobPayload;
  readonly runAt: Date;
  /** Scheduling twice with the same key creates one job (at-least-once callers stay idempotent). */
  readonly uniqueKey?: string;
}

export interface ClaimedJob {
  readonly id: string;
  readonly kind: string;
  readonly uniqueKey: string | null;
  readonly payload: JobPayload;
  /** Including the current one. */
  readonly attempts: number;
  readonly claimToken: string;
}

export interface JobRecord {
  readonly id: string;
  readonly kind: string;
  readonly uniqueKey: string | null;
  readonly payload: JobPayload;
  readonly runAt: Date;
  readonly attempts: number;
  readonly lockedUntil: Date | null;
  readonly doneAt: Date | null;
  readonly failedAt: Date | null;
  readonly lastError: string | null;
}

/** Inserts the job unless one with the same unique key exists; true when this call created it. */
export async function scheduleJob(db: Queryable, job: NewJob, now: Date): Promise<boolean> {
  const inserted = await db.query(
    `INSERT INTO jobs (id, kind, unique_key, payload, run_at, created_at)
     VALUES ($1, $2, $3, $4::jsonb, $5::timestamptz, $6::timestamptz)
     ON CONFLICT (unique_key) DO NOTHING`,
    [newResourceId(), job.kind, job.uniqueKey ?? null, JSON.stringify(job.payload), job.runAt.toISOString(), now.toISOString()],
  );
  return inserted.rowCount > 0;
}

/** Schedules the run of a recurring job (JobHandler.everyMs) at the next multiple of its interval, once. */
export async function scheduleNextRun(db: Queryable, kind: string, everyMs: number, now: Date): Promise<void> {
  const next = Math.floor(now.getTime() / everyMs) + 1;
  await scheduleJob(db, { kind, uniqueKey: `${kind}:${next}`, runAt: new Date(next * everyMs), payload: {} }, now);
}

export interface ClaimOptions {
  /** Only jobs this worker has handlers for: instances running different versions never steal work. */
  readonly kinds: readonly string[];
  readonly now: Date;
  readonly limit: number;
  /** How long the claim holds before another worker may take the job over (a crashed worker's jobs). */
  readonly leaseMs: number;
}

/**
 * Claims due jobs in one statement: SKIP LOCKED makes concurrent claimers pass over rows another one is
 * taking right now, and locked_until keeps them off the rows once that claim has committed.
 */
export async function claimDueJobs(db: Queryable, options: ClaimOptions): Promise<ClaimedJob[]> {
  if (options.kinds.length === 0 || options.limit <= 0) return [];
  const now = options.now.toISOString();
  const claimToken = newResourceId();
  const claimed = await db.query<{ id: string; kind: string; unique_key: string | null; payload: JobPayload; attempts: number }>(
    `UPDATE jobs
        SET attempts = attempts + 1,
            locked_until = $2::timestamptz,
            claim_token = $3
      WHERE id IN (
        SELECT id FROM jobs
         WHERE done_at IS NULL AND failed_at IS NULL
           AND run_at <= $1::timestamptz
           AND (locked_until IS NULL OR locked_until <= $1::timestamptz)
           AND kind = ANY($4::text[])
         ORDER BY run_at
         LIMIT $5
         FOR UPDATE SKIP LOCKED)
      RETURNING id, kind, unique_key, payload, attempts`,
    [now, new Date(options.now.getTime() + options.leaseMs).toISOString(), claimToken, [...options.kinds], options.limit],
  );
  return claimed.rows.map((row) => ({
    id: row.id,
    kind: row.kind,
    uniqueKey: row.unique_key,
    payload: row.payload,
    attempts: Number(row.attempts),
    claimToken,
  }));
}

/** Marks the job done, unless its lease was taken over meanwhile (then the new holder decides). */
export async function markJobDone(db: Queryable, job: ClaimedJob, now: Date): Promise<boolean> {
  const updated = await db.query(
    `UPDATE jobs SET done_at = $3::timestamptz, locked_until = NULL, last_error = NULL
      WHERE id = $1 AND claim_token = $2 AND done_at IS NULL AND failed_at IS NULL`,
    [job.id, job.claimToken, now.toISOString()],
  );
  return updated.rowCount > 0;
}

/** Records a failed attempt: the job runs again at `retryAt`, or, without one, is given up. */
export async function markJobFailed(
  db: Queryable,
  job: ClaimedJob,
  failure: { readonly now: Date; readonly error: string; readonly retryAt: Date | undefined },
): Promise<boolean> {
  const updated = failure.retryAt
    ? await db.query(
        `UPDATE jobs SET run_at = $3::timestamptz, locked_until = NULL, last_error = $4
          WHERE id = $1 AND claim_token = $2 AND done_at IS NULL AND failed_at IS NULL`,
        [job.id, job.claimToken, failure.retryAt.toISOString(), failure.error],
      )
    : await db.query(
        `UPDATE jobs SET failed_at = $3::timestamptz, locked_until = NULL, last_error = $4
          WHERE id = $1 AND claim_token = $2 AND done_at IS NULL AND failed_at IS NULL`,
        [job.id, job.claimToken, failure.now.toISOString(), failure.error],
      );
  return updated.rowCount > 0;
}

/** What became of a claimed job's attempt: done, to run again at `at`, or given up. */
export type JobOutcome =
  | { readonly kind: 'done' }
  | { readonly kind: 'retry'; readonly at: Date; readonly error: string }
  | { readonly kind: 'failed'; readonly error: string };

export interface JobMark {
  readonly job: ClaimedJob;
  readonly outcome: JobOutcome;
}

/**
 * Records the outcomes of several claimed jobs in one statement, each as markJobDone or markJobFailed would: a job
 * whose lease was taken over meanwhile (its claim token is another's now) is left to its new holder. Resolves with
 * the ids of the jobs marked.
 */
export async function markJobs(db: Queryable, marks: readonly JobMark[], now: Date): Promise<ReadonlySet<string>> {
  if (marks.length === 0) return new Set();
  const rows = marks.map(({ job, outcome }) => ({
    id: job.id,
    claim_token: job.claimToken,
    outcome: outcome.kind,
    at: (outcome.kind === 'retry' ? outcome.at : now).toISOString(),
    error: outcome.kind === 'done' ? null : outcome.error,
  }));
  const updated = await db.query<{ id: string }>(
    `UPDATE jobs j
        SET done_at = CASE WHEN m.outcome = 'done' THEN m.at END,
            failed_at = CASE WHEN m.outcome = 'failed' THEN m.at END,
            run_at = CASE WHEN m.outcome = 'retry' THEN m.at ELSE j.run_at END,
            locked_until = NULL,
            last_error = m.error
       FROM jsonb_to_recordset($1::jsonb) AS m (id char(32), claim_token char(32), outcome text, at timestamptz, error text)
      WHERE j.id = m.id AND j.claim_token = m.claim_token AND j.done_at IS NULL AND j.failed_at IS NULL
      RETURNING j.id`,
    [JSON.stringify(rows)],
    { preparedAs: 'mark-jobs' },
  );
  return new Set(updated.rows.map((row) => row.id));
}

interface JobRow {
  id: string;
  kind: string;
  unique_key: string | null;
  payload: JobPayload;
  run_at: Date;
  attempts: number;
  locked_until: Date | null;
  done_at: Date | null;
  failed_at: Date | null;
  last_error: string | null;
}

function toRecord(row: JobRow): JobRecord {
  return {
    id: row.id,
    kind: row.kind,
    uniqueKey: row.unique_key,
    payload: row.payload,
    runAt: row.run_at,
    attempts: Number(row.attempts),
    lockedUntil: row.locked_until,
    doneAt: row.done_at,
    failedAt: row.failed_at,
    lastError: row.last_error,
  };
}

const JOB_COLUMNS = 'id, kind, unique_key, payload, run_at, attempts, locked_until, done_at, failed_at, last_error';

/** The job scheduled under a unique key (operators and tests look jobs up by what they are for). */
export async function findJobByKey(db: Queryable, uniqueKey: string): Promise<JobRecord | undefined> {
  const found = await db.query<JobRow>(`SELECT ${JOB_COLUMNS} FROM jobs WHERE unique_key = $1`, [uniqueKey]);
  const row = found.rows[0];
  return row ? toRecord(row) : undefined;
}

export async function findJobsOfKind(db: Queryable, kind: string): Promise<JobRecord[]> {
  const found = await db.query<JobRow>(`SELECT ${JOB_COLUMNS} FROM jobs WHERE kind = $1 ORDER BY created_at, id`, [kind]);
  return found.rows.map(toRecord);
}

/** Per kind, the jobs due at `now` and not finished, and how long the oldest has waited (the metrics' queue gauges). */
export async function dueJobQueues(db: Queryable, now: Date): Promise<{ kind: string; depth: number; oldestAgeSeconds: number }[]> {
  const found = await db.query<{ kind: string; depth: number; oldest: number }>(
    `SELECT kind, count(*)::int AS depth, extract(epoch FROM $1::timestamptz - min(run_at))::float8 AS oldest
       FROM jobs WHERE done_at IS NULL AND failed_at IS NULL AND run_at <= $1::timestamptz
      GROUP BY kind`,
    [now.toISOString()],
  );
  return found.rows.map((row) => ({ kind: row.kind, depth: Number(row.depth), oldestAgeSeconds: Math.max(0, Number(row.oldest)) }));
}
