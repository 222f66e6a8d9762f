import { redactText, type Logger } from '../logger.ts';
import type { Store } from '../store/index.ts';
import { PermanentJobError, type JobContext, type JobRegistry } from './registry.ts';
import { claimDueJobs, markJobDone, markJobFailed, scheduleNextRun, type ClaimedJob } from './repository.ts';

/**
 * The claim loop: every `pollMs` it claims due jobs of the kinds it has handlers for, runs them, and
 * records done, retry-at or given-up. Any number of instances may run one against a shared PostgreSQL.
 */

export interface JobWorkerOptions {
  readonly store: Store;
  readonly logger: Logger;
  readonly now: () => Date;
  readonly handlers: JobRegistry;
  /**
   * Interval of the background loop; 0 runs nothing by itself (tests drive it with runDueJobs). The loop's first run
   * is at once, and a run that stopped at its limit with jobs still due is followed at once by the next: a backlog
   * drains at the rate the handlers go, never at one run per interval.
   */
  readonly pollMs: number;
  /** How long a claim holds; longer than any handler may take (outbound calls time out at 30 s). */
  readonly leaseMs?: number;
  /** Jobs claimed, and run concurrently, at a time. */
  readonly batchSize?: number;
}

export interface JobWorker {
  /** Stops the loop, aborts running handlers' outbound calls and waits for them to be recorded. */
  stop(): Promise<void>;
  /** Claims and runs the jobs due now; resolves with how many ran. */
  runDueJobs(): Promise<number>;
  /** Makes sure every recurring job (JobHandler.everyMs) has its next run scheduled; called at start-up. */
  scheduleRecurring(): Promise<void>;
}

const DEFAULT_LEASE_MS = 5 * 60_000;
const DEFAULT_BATCH_SIZE = 10;
/** A full batch suggests more are due; at most this many batches per call so one call cannot run forever. */
const MAX_BATCHES_PER_RUN = 10;
const ERROR_TEXT_LIMIT = 1000;

function errorText(error: unknown): string {
  const text = error instanceof Error ? error.message : String(error);
  return redactText(text).slice(0, ERROR_TEXT_LIMIT);
}

export function startJobWorker(options: JobWorkerOptions): JobWorker {
  const { store, logger, now, handlers } = options;
  const leaseMs = options.leaseMs ?? DEFAULT_LEASE_MS;
  const batchSize = options.batchSize ?? DEFAULT_BATCH_SIZE;
  const kinds = [...handlers.keys()];
  const stopping = new AbortController();
  const context: JobContext = { store, logger, now, signal: stopping.signal };
  const running = new Set<Promise<unknown>>();
  let timer: NodeJS.Timeout | undefined;

  async function runOne(job: ClaimedJob): Promise<void> {
    const handler = handlers.get(job.kind);
    const fields = { jobId: job.id, kind: job.kind, attempt: job.attempts };
    if (!handler) return; // claimDueJobs only returns kinds in the registry
    let failure: unknown;
    try {
      await handler.run(job, context);
    } catch (error) {
      failure = error;
    }
    try {
      if (handler.everyMs !== undefined) await scheduleNextRun(store, handler.kind, handler.everyMs, now());
      if (failure === undefined) {
        await markJobDone(store, job, now());
        logger.info('job done', fields);
        return;
      }
      const text = errorText(failure);
      const giveUp = failure instanceof PermanentJobError || job.attempts >= handler.maxAttempts;
      const failedAt = now();
      const retryAt = giveUp ? undefined : new Date(failedAt.getTime() + handler.retryDelayMs(job.attempts));
      await markJobFailed(store, job, { now: failedAt, error: text, retryAt });
      if (retryAt) logger.warn('job failed, will retry', { ...fields, error: text, retryAt: retryAt.toISOString() });
      else logger.error('job failed, given up', { ...fields, error: text });
    } catch (error) {
      // The store could not record the outcome: the lease runs out and the job runs again (at-least-once).
      logger.error('job outcome not recorded', { ...fields, error: errorText(error) });
    }
  }

  /** Runs batches until one is not full (or MAX_BATCHES_PER_RUN ran); `more` says the last one was full. */
  async function runDue(): Promise<{ ran: number; more: boolean }> {
    let ran = 0;
    for (let batch = 0; batch < MAX_BATCHES_PER_RUN && !stopping.signal.aborted; batch++) {
      const claimed = await claimDueJobs(store, { kinds, now: now(), limit: batchSize, leaseMs });
      await Promise.all(claimed.map(runOne));
      ran += claimed.length;
      if (claimed.length < batchSize) return { ran, more: false };
    }
    return { ran, more: true };
  }

  function tracked<T>(run: Promise<T>): Promise<T> {
    running.add(run);
    void run.finally(() => running.delete(run)).catch(() => undefined);
    return run;
  }

  function runDueJobs(): Promise<number> {
    if (stopping.signal.aborted) return Promise.resolve(0);
    return tracked(runDue()).then(({ ran }) => ran);
  }

  function scheduleTick(delayMs: number): void {
    if (options.pollMs <= 0 || stopping.signal.aborted) return;
    timer = setTimeout(() => {
      if (stopping.signal.aborted) return;
      tracked(runDue()).then(
        ({ more }) => scheduleTick(more ? 0 : options.pollMs),
        (error: unknown) => {
          logger.error('job poll failed', { error: errorText(error) });
          scheduleTick(options.pollMs);
        },
      );
    }, delayMs);
    timer.unref();
  }

  scheduleTick(0);

  return {
    async scheduleRecurring() {
      for (const handler of handlers.values()) {
        if (handler.everyMs !== undefined) await scheduleNextRun(store, handler.kind, handler.everyMs, now());
      }
    },
    runDueJobs,
    async stop() {
      stopping.abort();
      clearTimeout(timer);
      await Promise.allSettled([...running]);
    },
  };
}
