import type { Logger } from '../logger.ts';
import type { Store } from '../store/index.ts';
import type { ClaimedJob } from './repository.ts';

/** What a handler gets besides its job: the store, the (injectable) clock, and a signal to stop early. */
export interface JobContext {
  readonly store: Store;
  readonly logger: Logger;
  readonly now: () => Date;
  /** Aborted when the worker stops: outbound calls pass it on so shutdown does not wait for them. */
  readonly signal: AbortSignal;
}

/**
 * One kind of job. `run` resolving means done; throwing means this attempt failed and the job runs again
 * after `retryDelayMs(attempts)` until `maxAttempts` attempts have been made (a PermanentJobError gives up
 * at once). Handlers must be idempotent: a worker that dies after the effect but before recording it
 * leaves the job to run again.
 */
export interface JobHandler {
  readonly kind: string;
  /**
   * For housekeeping that recurs: the job runs at every multiple of this interval. One run per interval is
   * scheduled (by a unique key) whichever instances schedule it, at start-up and after each run.
   */
  readonly everyMs?: number;
  readonly maxAttempts: number;
  /** Delay before the next attempt, given the number of attempts made so far (1 after the first). */
  retryDelayMs(attempts: number): number;
  run(job: ClaimedJob, context: JobContext): Promise<void>;
  /**
   * Runs several claimed jobs of this kind together, when the kind can share their statements (one read, one write
   * for all): one promise per job, in the order given, settling as `run` would for that job, each as soon as that
   * job is finished (a slow one holds up no other). The worker uses it instead of `run` when present and records
   * the jobs' outcomes as they settle, those settling together in one statement. Failures are logged as for `run`,
   * but not each job done (about 17 µs a line): such a kind keeps its own record of what it did.
   */
  runBatch?(jobs: readonly ClaimedJob[], context: JobContext): readonly Promise<void>[];
}

export type JobRegistry = ReadonlyMap<string, JobHandler>;

/** The handlers a worker runs, by kind; two handlers for one kind is a programming error. */
export function createJobRegistry(handlers: readonly JobHandler[]): JobRegistry {
  const registry = new Map<string, JobHandler>();
  for (const handler of handlers) {
    if (registry.has(handler.kind)) throw new Error(`two job handlers for kind ${handler.kind}`);
    if (!Number.isInteger(handler.maxAttempts) || handler.maxAttempts < 1) {
      throw new Error(`job kind ${handler.kind}: maxAttempts must be a positive integer`);
    }
    registry.set(handler.kind, handler);
  }
  return registry;
}

/** A failure that no retry can fix (a malformed URL, a payload of the wrong shape): the job is given up at once. */
export class PermanentJobError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'PermanentJobError';
  }
}

/**
 * Delays that double from `firstMs` up to `maxMs`: attempt 1 failed → firstMs, 2 → 2 × firstMs, ...
 * A shared shape, so each kind states only its numbers.
 */
export function exponentialBackoff(firstMs: number, maxMs: number): (attempts: number) => number {
  return (attempts) => Math.min(maxMs, firstMs * 2 ** Math.max(0, attempts - 1));
}
