import type { Queryable } from '../store/index.ts';

export const RECONCILIATION_UPLOAD_JOB = 'reconciliation.upload';

/** The unique key of a day's scheduled send: one job per entity and day, however often the schedule runs. */
export function scheduledJobKey(entityId: string, date: string): string {
  return `${RECONCILIATION_UPLOAD_JOB}:${entityId}:${date}`;
}

/**
 * SQL of the reconciliation file (migration 0024): each entity's FTP settings (the password a vault id), and a row per
 * entity and settlement day saying what became of that day's file. Times come from the caller's clock.
 */

export interface FtpSettingsRecord {
  readonly entityId: string;
  readonly host: string;
  readonly port: number;
  readonly username: string;
  /** The sealed password's id in vault_items. */
  readonly passwordId: string;
  readonly folder: string;
  readonly explicitTls: boolean;
  readonly tlsCertificate: string | null;
  readonly createdAt: Date;
  readonly updatedAt: Date;
}

export type FileStatus = 'pending' | 'retrying' | 'uploaded' | 'failed';

export interface FileRecord {
  readonly entityId: string;
  /** yyyy-MM-dd */
  readonly date: string;
  readonly status: FileStatus;
  readonly attempts: number;
  readonly lastError: string | null;
  readonly sizeBytes: number | null;
  readonly recordCount: number | null;
  readonly remotePath: string | null;
  readonly jobKey: string;
  readonly createdAt: Date;
  readonly updatedAt: Date;
  readonly uploadedAt: Date | null;
  /** When the job sending it runs next (pending or retrying); null once it is done with. */
  readonly nextAttemptAt: Date | null;
}

const SETTINGS_COLUMNS = 'entity_id, host, port, username, password_id, folder, explicit_tls, tls_certificate, created_at, updated_at';

function settingsOfRow(row: Record<string, unknown>): FtpSettingsRecord {
  return {
    entityId: String(row.entity_id),
    host: String(row.host),
    port: Number(row.port),
    username: String(row.username),
    passwordId: String(row.password_id),
    folder: String(row.folder),
    explicitTls: Boolean(row.explicit_tls),
    tlsCertificate: row.tls_certificate === null ? null : String(row.tls_certificate),
    createdAt: new Date(row.created_at as string | Date),
    updatedAt: new Date(row.updated_at as string | Date),
  };
}

export async function findFtpSettings(db: Queryable, entityId: string, options: { forUpdate?: boolean } = {}): Promise<FtpSettingsRecord | undefined> {
  const found = await db.query<Record<string, unknown>>(
    `SELECT ${SETTINGS_COLUMNS} FROM reconciliation_ftp_settings WHERE entity_id = $1${options.forUpdate ? ' FOR UPDATE' : ''}`,
    [entityId],
  );
  const row = found.rows[0];
  return row ? settingsOfRow(row) : undefined;
}

/** Writes the entity's settings, replacing any (created_at kept). */
export async function upsertFtpSettings(db: Queryable, settings: FtpSettingsRecord): Promise<void> {
  await db.query(
    `INSERT INTO reconciliation_ftp_settings (${SETTINGS_COLUMNS})
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9::timestamptz, $10::timestamptz)
     ON CONFLICT (entity_id) DO UPDATE SET host = EXCLUDED.host, port = EXCLUDED.port, username = EXCLUDED.username,
       password_id = EXCLUDED.password_id, folder = EXCLUDED.folder, explicit_tls = EXCLUDED.explicit_tls,
       tls_certificate = EXCLUDED.tls_certificate, updated_at = EXCLUDED.updated_at`,
    [
      settings.entityId, settings.host, settings.port, settings.username, settings.passwordId, settings.folder, settings.explicitTls,
      settings.tlsCertificate, settings.createdAt.toISOString(), settings.updatedAt.toISOString(),
    ],
  );
}

export async function deleteFtpSettings(db: Queryable, entityId: string): Promise<void> {
  await db.query('DELETE FROM reconciliation_ftp_settings WHERE entity_id = $1', [entityId]);
}

const FILE_COLUMNS = `f.entity_id, to_char(f.settlement_date, 'YYYY-MM-DD') AS date, f.status, f.attempts, f.last_error, f.size_bytes,
  f.record_count, f.remote_path, f.job_key, f.created_at, f.updated_at, f.uploaded_at,
  CASE WHEN f.status IN ('pending', 'retrying') THEN j.run_at END AS next_attempt_at`;
const FILE_FROM = 'reconciliation_files f LEFT JOIN jobs j ON j.unique_key = f.job_key';

const optionalDate = (value: unknown) => (value === null || value === undefined ? null : new Date(value as string | Date));

function fileOfRow(row: Record<string, unknown>): FileRecord {
  return {
    entityId: String(row.entity_id),
    date: String(row.date),
    status: row.status as FileStatus,
    attempts: Number(row.attempts),
    lastError: row.last_error === null ? null : String(row.last_error),
    sizeBytes: row.size_bytes === null ? null : Number(row.size_bytes),
    recordCount: row.record_count === null ? null : Number(row.record_count),
    remotePath: row.remote_path === null ? null : String(row.remote_path),
    jobKey: String(row.job_key),
    createdAt: new Date(row.created_at as string | Date),
    updatedAt: new Date(row.updated_at as string | Date),
    uploadedAt: optionalDate(row.uploaded_at),
    nextAttemptAt: optionalDate(row.next_attempt_at),
  };
}

export async function findFile(db: Queryable, entityId: string, date: string): Promise<FileRecord | undefined> {
  const found = await db.query<Record<string, unknown>>(`SELECT ${FILE_COLUMNS} FROM ${FILE_FROM} WHERE f.entity_id = $1 AND f.settlement_date = $2::date`, [
    entityId,
    date,
  ]);
  const row = found.rows[0];
  return row ? fileOfRow(row) : undefined;
}

/** The entity's files from `from` to `to` (yyyy-MM-dd, inclusive), newest first. */
export async function filesOfEntity(db: Queryable, entityId: string, range: { readonly from: string; readonly to: string }): Promise<FileRecord[]> {
  const found = await db.query<Record<string, unknown>>(
    `SELECT ${FILE_COLUMNS} FROM ${FILE_FROM}
      WHERE f.entity_id = $1 AND f.settlement_date BETWEEN $2::date AND $3::date ORDER BY f.settlement_date DESC`,
    [entityId, range.from, range.to],
  );
  return found.rows.map(fileOfRow);
}

/** One settlement day's files of every entity, by entity id, `limit` at a time after the entity id `after`. */
export async function filesOfDay(
  db: Queryable,
  date: string,
  page: { readonly after?: string; readonly limit: number; readonly status?: FileStatus },
): Promise<FileRecord[]> {
  const found = await db.query<Record<string, unknown>>(
    `SELECT ${FILE_COLUMNS} FROM ${FILE_FROM}
      WHERE f.settlement_date = $1::date AND ($2::char(32) IS NULL OR f.entity_id > $2) AND ($3::text IS NULL OR f.status = $3)
      ORDER BY f.entity_id LIMIT $4`,
    [date, page.after ?? null, page.status ?? null, page.limit],
  );
  return found.rows.map(fileOfRow);
}

/** What one attempt came to, written on the file's row unless another send (a re-send) has taken it over. */
export type AttemptOutcome =
  | { readonly status: 'uploaded'; readonly sizeBytes: number; readonly recordCount: number | null; readonly remotePath: string }
  | { readonly status: 'retrying' | 'failed'; readonly error: string };

export async function recordAttempt(db: Queryable, file: { entityId: string; date: string; jobKey: string }, outcome: AttemptOutcome, now: Date): Promise<boolean> {
  const updated =
    outcome.status === 'uploaded'
      ? await db.query(
          `UPDATE reconciliation_files SET status = 'uploaded', attempts = attempts + 1, last_error = NULL, size_bytes = $4,
             record_count = $5, remote_path = $6, uploaded_at = $7::timestamptz, updated_at = $7::timestamptz
            WHERE entity_id = $1 AND settlement_date = $2::date AND job_key = $3`,
          [file.entityId, file.date, file.jobKey, outcome.sizeBytes, outcome.recordCount, outcome.remotePath, now.toISOString()],
        )
      : await db.query(
          `UPDATE reconciliation_files SET status = $4, attempts = attempts + 1, last_error = $5, updated_at = $6::timestamptz
            WHERE entity_id = $1 AND settlement_date = $2::date AND job_key = $3`,
          [file.entityId, file.date, file.jobKey, outcome.status, outcome.error, now.toISOString()],
        );
  return updated.rowCount > 0;
}

/**
 * Makes `jobKey` the file's send, pending from 0 attempts: a new row for a day without one, or an existing row taken
 * over (an operator's re-send).
 */
export async function startSend(db: Queryable, entityId: string, date: string, jobKey: string, now: Date): Promise<void> {
  await db.query(
    `INSERT INTO reconciliation_files (entity_id, settlement_date, status, attempts, job_key, created_at, updated_at)
     VALUES ($1, $2::date, 'pending', 0, $3, $4::timestamptz, $4::timestamptz)
     ON CONFLICT (entity_id, settlement_date) DO UPDATE SET status = 'pending', attempts = 0, last_error = NULL, job_key = EXCLUDED.job_key,
       updated_at = EXCLUDED.updated_at`,
    [entityId, date, jobKey, now.toISOString()],
  );
}

/**
 * The files of every entity with FTP settings for the days from `first` to `last` (yyyy-MM-dd) that have none yet,
 * each with its upload job due at `now`, in one statement: a day is scheduled once, whichever instance's run gets to
 * it first. A day before the settings existed is not (but the day before they were made is: yesterday's file comes
 * the morning a merchant sets up FTP). With `settledDaysOnly`, a day whose settlement run has not finished yet
 * (settlement_runs) waits for it. Resolves with how many files were scheduled.
 */
export async function scheduleDueFiles(
  db: Queryable,
  days: { readonly first: string; readonly last: string; readonly settledDaysOnly: boolean },
  now: Date,
): Promise<number> {
  const scheduled = await db.query(
    `WITH created AS (
       INSERT INTO reconciliation_files (entity_id, settlement_date, status, attempts, job_key, created_at, updated_at)
       SELECT s.entity_id, d.day, 'pending', 0, $4 || ':' || s.entity_id || ':' || to_char(d.day, 'YYYY-MM-DD'), $3::timestamptz, $3::timestamptz
         FROM reconciliation_ftp_settings s
        CROSS JOIN (SELECT generate_series($1::date, $2::date, interval '1 day')::date AS day) d
        WHERE d.day >= (s.created_at AT TIME ZONE 'UTC')::date - 1
          AND (NOT $5 OR EXISTS (SELECT 1 FROM settlement_runs r WHERE r.settlement_date = d.day))
       ON CONFLICT (entity_id, settlement_date) DO NOTHING
       RETURNING entity_id, settlement_date, job_key)
     INSERT INTO jobs (id, kind, unique_key, payload, run_at, created_at)
     SELECT replace(gen_random_uuid()::text, '-', ''), $4, job_key,
            jsonb_build_object('entityId', entity_id, 'date', to_char(settlement_date, 'YYYY-MM-DD'), 'jobKey', job_key), $3::timestamptz, $3::timestamptz
       FROM created
     ON CONFLICT (unique_key) DO NOTHING`,
    [days.first, days.last, now.toISOString(), RECONCILIATION_UPLOAD_JOB, days.settledDaysOnly],
  );
  return scheduled.rowCount;
}
