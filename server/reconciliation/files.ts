import { newResourceId } from '../domain/ids.ts';
import { scheduleJob } from '../jobs/repository.ts';
import { entityExists } from '../merchants/repository.ts';
import type { Store } from '../store/index.ts';
import { reconciliationFileName } from './format.ts';
import { findFile, findFtpSettings, RECONCILIATION_UPLOAD_JOB, scheduledJobKey, startSend, type FileRecord } from './repository.ts';

/**
 * What an operator does with reconciliation files (admin API: routes.ts; command line: cli/reconciliation.ts): see a file's status,
 * send it again, check a date. Downloading is dayFile.ts (the file built from the records, as uploads build it).
 */

/** A settlement day as the operator names it: yyyy-MM-dd, a real calendar date. */
export function dateProblem(date: string): string | undefined {
  if (!/^\d{4}-\d{2}-\d{2}$/.test(date)) return 'must be a date yyyy-MM-dd';
  const parsed = new Date(`${date}T00:00:00.000Z`);
  return Number.isNaN(parsed.getTime()) || parsed.toISOString().slice(0, 10) !== date ? 'must be a date yyyy-MM-dd' : undefined;
}

/** A re-send refused: no such entity, no FTP settings, or a day not over yet. */
export class ResendRefused extends Error {
  constructor(
    message: string,
    readonly unknownEntity = false,
  ) {
    super(message);
    this.name = 'ResendRefused';
  }
}

/**
 * Sends the entity's file of `date` again, whatever became of it (uploaded, failed, still retrying): a new send with
 * attempts from 0, its job due now, which replaces any send still under way. Also sends a day the schedule has not
 * reached (or never will: a day before the settings existed). Only a day that is over (before today, UTC).
 */
export async function resendFile(store: Store, entityId: string, date: string, now: Date): Promise<FileRecord> {
  return store.transaction(async (tx) => {
    if (!(await entityExists(tx, entityId))) throw new ResendRefused('no such entity', true);
    if (!(await findFtpSettings(tx, entityId))) throw new ResendRefused('the entity has no FTP settings: set them first');
    if (date >= now.toISOString().slice(0, 10)) throw new ResendRefused(`${date} is not over yet (UTC): its file is sent once it is settled`);
    const jobKey = `${scheduledJobKey(entityId, date)}:resend:${newResourceId()}`;
    await startSend(tx, entityId, date, jobKey, now);
    await scheduleJob(tx, { kind: RECONCILIATION_UPLOAD_JOB, uniqueKey: jobKey, runAt: now, payload: { entityId, date, jobKey } }, now);
    return (await findFile(tx, entityId, date)) as FileRecord;
  });
}

/** The file as the admin API and the command line show it. */
export function fileJson(file: FileRecord): Record<string, unknown> {
  return {
    entityId: file.entityId,
    date: file.date,
    fileName: reconciliationFileName(file.entityId, file.date),
    status: file.status,
    attempts: file.attempts,
    lastError: file.lastError,
    nextAttemptAt: file.nextAttemptAt?.toISOString() ?? null,
    sizeBytes: file.sizeBytes,
    recordCount: file.recordCount,
    remotePath: file.remotePath,
    uploadedAt: file.uploadedAt?.toISOString() ?? null,
    createdAt: file.createdAt.toISOString(),
    updatedAt: file.updatedAt.toISOString(),
  };
}
