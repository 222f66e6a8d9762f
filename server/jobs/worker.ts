import { redactText, type Logger } from '../logger.ts';
import type { Store } from '../store/index.ts';
import { PermanentJobError, type JobContext, type JobHandler, type JobRegistry } from './registry.ts';
import { claimDueJobs, markJobDone, markJobFailed, markJobs, scheduleNextRun, type ClaimedJob, type JobOutcome } from './repository.ts';

/**
 * The claim loop: every `pollMs` it claims due jobs of the kinds it has handlers for, runs them, and
 * records done, retry-at or given-up. Any number of instances may run one against a shared PostgreSQL.
 * A kind whose handler has runBatch is run a claim at a time, and its outcomes are recorded together: a delivery
 * batch of 32 costs a handful of statements, not a hundred.
 */

export interface JobWorkerOptions {
  readonly store: Store;
  readonly logger: Logger;
  readonly now: () => Date;
  /** Told each recorded outcome (the metrics: done, retry, failed = given up). */
  readonly onOutcome?: (kind: string, outcome: JobOutcome['kind']) => void;
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
/** A full claim suggests more are due; at most this many batches' worth of jobs per call so one call cannot run forever. */
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
  /** The fewest free slots claimed for while jobs run. */
  const claimSize = Math.ceil(batchSize / 2);
  const kinds = [...handlers.keys()];
  const stopping = new AbortController();
  const context: JobContext = { store, logger, now, signal: stopping.signal };
  const running = new Set<Promise<unknown>>();
  let timer: NodeJS.Timeout | undefined;

  const fieldsOf = (job: ClaimedJob) => ({ jobId: job.id, kind: job.kind, attempt: job.attempts });

  /** What an attempt that ended with `failure` (undefined: none) comes to: done, retried on the kind's schedule, or given up. */
  function outcomeOf(handler: JobHandler, job: ClaimedJob, failure: { readonly error: unknown } | undefined, at: Date): JobOutcome {
    if (failure === undefined) return { kind: 'done' };
    const error = errorText(failure.error);
    if (failure.error instanceof PermanentJobError || job.attempts >= handler.maxAttempts) return { kind: 'failed', error };
    return { kind: 'retry', at: new Date(at.getTime() + handler.retryDelayMs(job.attempts)), error };
  }

  function logOutcome(job: ClaimedJob, outcome: JobOutcome): void {
    if (outcome.kind === 'done') logger.info('job done', fieldsOf(job));
    else if (outcome.kind === 'retry') logger.warn('job failed, will retry', { ...fieldsOf(job), error: outcome.error, retryAt: outcome.at.toISOString() });
    else logger.error('job failed, given up', { ...fieldsOf(job), error: outcome.error });
  }

  async function runOne(handler: JobHandler, job: ClaimedJob): Promise<void> {
    let failure: { readonly error: unknown } | undefined;
    try {
      await handler.run(job, context);
    } catch (error) {
      failure = { error };
    }
    try {
      if (handler.everyMs !== undefined) await scheduleNextRun(store, handler.kind, handler.everyMs, now());
      const at = now();
      const outcome = outcomeOf(handler, job, failure, at);
      if (outcome.kind === 'done') await markJobDone(store, job, at);
      else await markJobFailed(store, job, { now: at, error: outcome.error, retryAt: outcome.kind === 'retry' ? outcome.at : undefined });
      logOutcome(job, outcome);
      options.onOutcome?.(job.kind, outcome.kind);
    } catch (error) {
      // The store could not record the outcome: the lease runs out and the job runs again (at-least-once).
      logger.error('job outcome not recorded', { ...fieldsOf(job), error: errorText(error) });
    }
  }

  /**
   * Outcomes of batch-run jobs (JobHandler.runBatch) that settled in the same turn of the event loop, recorded
   * together in one statement (a batch whose jobs all finish together: one statement for all its marks).
   */
  let settledJobs: { handler: JobHandler; job: ClaimedJob; failure: { readonly error: unknown } | undefined; recorded: () => void }[] = [];

  async function recordSettledJobs(): Promise<void> {
    const settled = settledJobs;
    settledJobs = [];
    const at = now();
    const marks = settled.map(({ handler, job, failure }) => ({ job, outcome: outcomeOf(handler, job, failure, at) }));
    try {
      for (const handler of new Set(settled.map((entry) => entry.handler))) {
        if (handler.everyMs !== undefined) await scheduleNextRun(store, handler.kind, handler.everyMs, at);
      }
      await markJobs(store, marks, at);
      // Done is not logged (JobHandler.runBatch): the kind keeps its own record (webhook attempts).
      for (const { job, outcome } of marks) if (outcome.kind !== 'done') logOutcome(job, outcome);
      for (const { job, outcome } of marks) options.onOutcome?.(job.kind, outcome.kind);
    } catch (error) {
      for (const { job } of marks) logger.error('job outcome not recorded', { ...fieldsOf(job), error: errorText(error) });
    } finally {
      for (const entry of settled) entry.recorded();
    }
  }

  function runBatch(handler: JobHandler, jobs: readonly ClaimedJob[]): Promise<void>[] {
    let settling: readonly Promise<void>[];
    try {
      settling = handler.runBatch?.(jobs, context) ?? [];
    } catch (error) {
      settling = jobs.map(() => Promise.reject(error));
    }
    return jobs.map((job, index) =>
      (settling[index] ?? Promise.reject(new Error('the batch gave this job no outcome'))).then(
        () => undefined,
        (error: unknown) => ({ error }),
      ).then(
        (failure) =>
          new Promise<void>((recorded) => {
            settledJobs.push({ handler, job, failure, recorded });
            if (settledJobs.length === 1) setImmediate(() => void recordSettledJobs());
          }),
      ),
    );
  }

  /** Starts the claimed jobs, a kind with runBatch as one batch; one promise per job, resolved once it is recorded. */
  function start(claimed: readonly ClaimedJob[]): Promise<void>[] {
    const byKind = new Map<string, ClaimedJob[]>();
    for (const job of claimed) {
      const ofKind = byKind.get(job.kind);
      if (ofKind) ofKind.push(job);
      else byKind.set(job.kind, [job]);
    }
    const started: Promise<void>[] = [];
    for (const [kind, jobs] of byKind) {
      const handler = handlers.get(kind);
      // claimDueJobs only returns kinds in the registry
      if (!handler) started.push(...jobs.map(() => Promise.resolve()));
      else if (handler.runBatch) started.push(...runBatch(handler, jobs));
      else started.push(...jobs.map((job) => runOne(handler, job)));
    }
    return started;
  }

  /**
   * Claims due jobs and runs them, at most batchSize at a time: once half the slots are free again, they are claimed
   * for, so slow jobs (receivers that take their 30 s) hold up no more than their own slots, while each claim (and
   * a batch's read and records) still serves at least half a batch. Stops claiming when a claim finds fewer jobs due
   * than it asked for, or once MAX_BATCHES_PER_RUN × batchSize were claimed (`more`: jobs may still be due);
   * resolves when every job it claimed is recorded.
   */
  async function runDue(): Promise<{ ran: number; more: boolean }> {
    const limit = MAX_BATCHES_PER_RUN * batchSize;
    const finishing: Promise<void>[] = [];
    let claimedCount = 0;
    let active = 0;
    let slotFreed: (() => void) | undefined;
    while (!stopping.signal.aborted && claimedCount < limit) {
      const free = Math.min(batchSize - active, limit - claimedCount);
      if (active > 0 && free < Math.min(claimSize, limit - claimedCount)) {
        await new Promise<void>((resolve) => {
          slotFreed = resolve;
        });
        // Jobs recorded together free their slots together: one claim for all of them.
        await new Promise((resolve) => setImmediate(resolve));
        continue;
      }
      const claimed = await claimDueJobs(store, { kinds, now: now(), limit: free, leaseMs });
      claimedCount += claimed.length;
      active += claimed.length;
      for (const job of start(claimed)) {
        finishing.push(
          job.finally(() => {
            active -= 1;
            slotFreed?.();
            slotFreed = undefined;
          }),
        );
      }
      if (claimed.length < free) break;
    }
    await Promise.all(finishing);
    return { ran: claimedCount, more: claimedCount >= limit };
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
