import { exponentialBackoff, PermanentJobError, type JobHandler } from '../jobs/registry.ts';
import type { Logger } from '../logger.ts';
import { RefusedDestination, type OutboundPolicy } from '../outbound/http.ts';
import type { Store } from '../store/index.ts';
import type { CardVault } from '../vault/cardVault.ts';
import { findSealed } from '../vault/repository.ts';
import { dayFile } from './dayFile.ts';
import { uploadToFtp } from './ftpUpload.ts';
import {
  findFile,
  findFtpSettings,
  RECONCILIATION_UPLOAD_JOB,
  recordAttempt,
  scheduledJobKey,
  scheduleDueFiles,
  type AttemptOutcome,
} from './repository.ts';

/**
 * Delivering the reconciliation files (COMPAT §14): every hour a run schedules, for each entity with FTP settings, the
 * file of each settled day that has none yet — a day is due from RECONCILIATION_FILE_HOUR (UTC) the next morning,
 * after the settlement run's cut-off before midnight (in test, once that day's run has finished), so that with its
 * retries the file is there by 06:00 UTC; a gateway that was down catches up on the last LOOKBACK_DAYS days. Each file is one upload job (unique per entity and
 * day: never sent twice once delivered), retried with backoff on any failure — a refused connection, a timeout, a
 * full disk (452), a connection lost mid-upload — until MAX_ATTEMPTS; a destination the outbound rules refuse, or an
 * entity whose settings were removed, is given up at once. The file's row records every attempt's outcome.
 */

export const RECONCILIATION_SCHEDULE_JOB = 'reconciliation.schedule';
const SCHEDULE_EVERY_MS = 60 * 60_000;
/** Days back a schedule run still fills in (a gateway down over a weekend still delivers Friday's file). */
const LOOKBACK_DAYS = 7;
/** Attempts of one send: with waits of 1, 2, 4, ... minutes up to an hour between them, about 14 hours of trying. */
export const UPLOAD_MAX_ATTEMPTS = 20;
export const uploadRetryDelayMs = exponentialBackoff(60_000, 60 * 60_000);
/** An upload that takes longer is stopped (and tried again); the worker's lease (gateway.ts) outlasts it. */
export const UPLOAD_DEADLINE_MS = 50 * 60_000;
export const RECONCILIATION_LEASE_MS = 60 * 60_000;

export interface ReconciliationServices {
  readonly store: Store;
  readonly vault: CardVault;
  readonly logger: Logger;
  readonly now: () => Date;
  readonly outbound: OutboundPolicy;
  /** How long an FTP server may stay silent before an attempt fails (the gateway's outbound timeout). */
  readonly timeoutMs: number;
  /** PspId of every file. */
  readonly pspId: string;
  /** RECONCILIATION_FILE_HOUR: from this hour (UTC) on, yesterday's files are due. */
  readonly fileHour: number;
  /**
   * A day's files wait for its settlement run to finish (the test environment, whose simulated acquirers settle in the
   * daily run: a gateway back after the cut-off sends no file before its catch-up run wrote the day's records).
   */
  readonly settledDaysOnly: boolean;
}

const DAY_MS = 24 * 60 * 60_000;
const dateOf = (time: number) => new Date(time).toISOString().slice(0, 10);

/** The settlement days a schedule run at `now` fills in: up to yesterday once the file hour has come, else the day before. */
function dueDays(now: Date, fileHour: number): { readonly first: string; readonly last: string } {
  const today = Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), now.getUTCDate());
  const last = today - (now.getUTCHours() >= fileHour ? 1 : 2) * DAY_MS;
  return { first: dateOf(last - (LOOKBACK_DAYS - 1) * DAY_MS), last: dateOf(last) };
}

interface UploadPayload {
  readonly entityId: string;
  readonly date: string;
  readonly jobKey: string;
}

function payloadOf(payload: Readonly<Record<string, unknown>>): UploadPayload {
  const { entityId, date, jobKey } = payload;
  if (typeof entityId !== 'string' || typeof date !== 'string' || typeof jobKey !== 'string') throw new PermanentJobError('malformed reconciliation upload payload');
  return { entityId, date, jobKey };
}

export function reconciliationJobHandlers(services: ReconciliationServices): JobHandler[] {
  const { store, logger, now } = services;

  async function upload(payload: UploadPayload, attempts: number, signal: AbortSignal): Promise<void> {
    const file = await findFile(store, payload.entityId, payload.date);
    // Delivered, given up, or taken over by a re-send: nothing for this job to do.
    if (!file || file.jobKey !== payload.jobKey || file.status === 'uploaded' || file.status === 'failed') return;
    const record = (outcome: AttemptOutcome) => recordAttempt(store, payload, outcome, now());
    const settings = await findFtpSettings(store, payload.entityId);
    if (!settings) {
      await record({ status: 'failed', error: 'the entity has no FTP settings' });
      throw new PermanentJobError('the entity has no FTP settings');
    }
    try {
      const sealed = await findSealed(store, settings.passwordId);
      if (!sealed) throw new Error('the FTP password is not in the vault');
      const built = await dayFile(store, payload.entityId, payload.date, services.pspId);
      if (!built) throw new PermanentJobError('no such entity');
      const result = await uploadToFtp({ ...settings, password: services.vault.open<string>(sealed) }, built.name, built.chunks, {
        policy: services.outbound,
        timeoutMs: services.timeoutMs,
        deadlineMs: UPLOAD_DEADLINE_MS,
        signal,
        keepExisting: payload.jobKey === scheduledJobKey(payload.entityId, payload.date),
      });
      const recordCount = result.outcome === 'uploaded' ? built.counted.records : null;
      await record({ status: 'uploaded', sizeBytes: result.bytes, recordCount, remotePath: result.remotePath });
      logger.info('reconciliation file delivered', {
        entityId: payload.entityId,
        date: payload.date,
        path: result.remotePath,
        bytes: result.bytes,
        ...(result.outcome === 'present' ? { alreadyThere: true } : { records: recordCount }),
      });
    } catch (error) {
      const permanent = error instanceof RefusedDestination || error instanceof PermanentJobError;
      const message = error instanceof Error ? error.message : String(error);
      await record({ status: permanent || attempts >= UPLOAD_MAX_ATTEMPTS ? 'failed' : 'retrying', error: message.slice(0, 1000) });
      throw permanent ? new PermanentJobError(message) : error;
    }
  }

  return [
    {
      kind: RECONCILIATION_SCHEDULE_JOB,
      everyMs: SCHEDULE_EVERY_MS,
      maxAttempts: 5,
      retryDelayMs: exponentialBackoff(60_000, 10 * 60_000),
      async run() {
        const scheduled = await scheduleDueFiles(store, { ...dueDays(now(), services.fileHour), settledDaysOnly: services.settledDaysOnly }, now());
        if (scheduled > 0) logger.info('reconciliation files scheduled', { files: scheduled });
      },
    },
    {
      kind: RECONCILIATION_UPLOAD_JOB,
      maxAttempts: UPLOAD_MAX_ATTEMPTS,
      retryDelayMs: uploadRetryDelayMs,
      run: (job, context) => upload(payloadOf(job.payload), job.attempts, context.signal),
    },
  ];
}
