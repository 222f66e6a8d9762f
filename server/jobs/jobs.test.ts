import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { createLogger } from '../logger.ts';
import { openStore, type Store } from '../store/index.ts';
import {
  createTestClock,
  freshStoreLocation,
  STORE_KINDS,
  warnIfPostgresSkipped,
  type StoreLocation,
  type TestClock,
} from '../testing/harness.ts';
import { createJobRegistry, exponentialBackoff, PermanentJobError, type JobHandler } from './registry.ts';
import { claimDueJobs, findJobByKey, findJobsOfKind, markJobDone, scheduleJob, type ClaimedJob } from './repository.ts';
import { startJobWorker, type JobWorker } from './worker.ts';

warnIfPostgresSkipped('jobs.test.ts');

const SECOND = 1000;
const silent = createLogger({ level: 'silent' });

/** A handler that records what it ran and fails as told (by a function of the attempt number). */
function recordingHandler(
  kind: string,
  options: { maxAttempts?: number; fail?: (job: ClaimedJob) => Error | undefined; delayMs?: number } = {},
): JobHandler & { runs: ClaimedJob[] } {
  const runs: ClaimedJob[] = [];
  return {
    kind,
    runs,
    maxAttempts: options.maxAttempts ?? 3,
    retryDelayMs: exponentialBackoff(10 * SECOND, 60 * SECOND),
    async run(job) {
      runs.push(job);
      if (options.delayMs) await new Promise((resolve) => setTimeout(resolve, options.delayMs));
      const failure = options.fail?.(job);
      if (failure) throw failure;
    },
  };
}

describe.each(STORE_KINDS)('jobs on %s', (kind) => {
  let location: StoreLocation;
  let store: Store;
  let clock: TestClock;
  const workers: JobWorker[] = [];
  beforeAll(async () => {
    location = await freshStoreLocation(kind);
    store = await openStore(location);
    clock = createTestClock();
  });
  afterAll(async () => {
    await Promise.all(workers.map((worker) => worker.stop()));
    await store?.close();
    await location?.dispose();
  });

  const worker = (handlers: JobHandler[], options: { leaseMs?: number; batchSize?: number } = {}) => {
    const started = startJobWorker({ store, logger: silent, now: clock.now, handlers: createJobRegistry(handlers), pollMs: 0, ...options });
    workers.push(started);
    return started;
  };
  const schedule = (kind: string, uniqueKey?: string, runAt = clock.now(), payload: Record<string, unknown> = {}) =>
    scheduleJob(store, { kind, uniqueKey, runAt, payload }, clock.now());

  it('schedules idempotently by unique key, whatever state the first job is in', async () => {
    expect(await schedule('unique', 'unique:1', clock.now(), { n: 1 })).toBe(true);
    expect(await schedule('unique', 'unique:1', clock.now(), { n: 2 })).toBe(false);
    const handler = recordingHandler('unique');
    await worker([handler]).runDueJobs();
    expect(await schedule('unique', 'unique:1')).toBe(false);
    expect(handler.runs.map((run) => run.payload)).toEqual([{ n: 1 }]);
    expect(await findJobsOfKind(store, 'unique')).toHaveLength(1);
    // Without a key, every schedule is a job of its own.
    expect(await schedule('unique')).toBe(true);
    expect(await schedule('unique')).toBe(true);
    expect(await findJobsOfKind(store, 'unique')).toHaveLength(3);
  });

  it('runs a job when it is due, once, and records it done', async () => {
    const handler = recordingHandler('due');
    const jobs = worker([handler]);
    await schedule('due', 'due:later', new Date(clock.now().getTime() + 10 * SECOND), { what: 'later' });
    expect(await jobs.runDueJobs()).toBe(0);
    clock.advance(10 * SECOND);
    expect(await jobs.runDueJobs()).toBe(1);
    expect(await jobs.runDueJobs()).toBe(0);
    expect(handler.runs).toHaveLength(1);
    expect(handler.runs[0]).toMatchObject({ kind: 'due', payload: { what: 'later' }, attempts: 1 });
    expect(await findJobByKey(store, 'due:later')).toMatchObject({ attempts: 1, failedAt: null, lastError: null, lockedUntil: null });
    expect((await findJobByKey(store, 'due:later'))?.doneAt).not.toBeNull();
  });

  it('never runs a job twice when two workers claim at the same time', async () => {
    for (let n = 0; n < 30; n++) await schedule('race', `race:${n}`);
    const first = recordingHandler('race', { delayMs: 5 });
    const second = recordingHandler('race', { delayMs: 5 });
    const [ranByFirst, ranBySecond] = await Promise.all([
      worker([first], { batchSize: 4 }).runDueJobs(),
      worker([second], { batchSize: 4 }).runDueJobs(),
    ]);
    expect(ranByFirst + ranBySecond).toBe(30);
    // Both took part: the claims really competed.
    expect(ranByFirst).toBeGreaterThan(0);
    expect(ranBySecond).toBeGreaterThan(0);
    const ran = [...first.runs, ...second.runs].map((run) => run.uniqueKey);
    expect(new Set(ran).size).toBe(30);
    expect(ran).toHaveLength(30);
    for (const job of await findJobsOfKind(store, 'race')) expect(job).toMatchObject({ attempts: 1 });
  });

  // PGlite is one connection, so no second transaction can hold a row meanwhile: this case exists on PostgreSQL only.
  (kind === 'PostgreSQL' ? it : () => undefined)('passes over a job another transaction holds locked (SKIP LOCKED), without waiting', async () => {
    await schedule('held', 'held:1');
    await schedule('held', 'held:2');
    await store.transaction(async (tx) => {
      await tx.query("SELECT id FROM jobs WHERE unique_key = 'held:1' FOR UPDATE");
      // Another connection of the pool claims meanwhile: it gets the free job and skips the held one.
      const claimed = await claimDueJobs(store, { kinds: ['held'], now: clock.now(), limit: 10, leaseMs: 60 * SECOND });
      expect(claimed.map((job) => job.uniqueKey)).toEqual(['held:2']);
    });
  });

  it('retries a failed job with backoff, then records it done', async () => {
    const handler = recordingHandler('retry', { fail: (job) => (job.attempts < 3 ? new Error(`receiver said no (${job.attempts})`) : undefined), maxAttempts: 5 });
    const jobs = worker([handler]);
    await schedule('retry', 'retry:1');
    expect(await jobs.runDueJobs()).toBe(1);
    let job = await findJobByKey(store, 'retry:1');
    expect(job).toMatchObject({ attempts: 1, doneAt: null, failedAt: null, lastError: 'receiver said no (1)' });
    expect(job?.runAt.getTime()).toBe(clock.now().getTime() + 10 * SECOND);

    clock.advance(10 * SECOND - 1);
    expect(await jobs.runDueJobs()).toBe(0);
    clock.advance(1);
    expect(await jobs.runDueJobs()).toBe(1);
    job = await findJobByKey(store, 'retry:1');
    expect(job?.runAt.getTime()).toBe(clock.now().getTime() + 20 * SECOND);

    clock.advance(20 * SECOND);
    expect(await jobs.runDueJobs()).toBe(1);
    job = await findJobByKey(store, 'retry:1');
    expect(job).toMatchObject({ attempts: 3, failedAt: null, lastError: null });
    expect(job?.doneAt).not.toBeNull();
    expect(handler.runs.map((run) => run.attempts)).toEqual([1, 2, 3]);
  });

  it('gives up after maxAttempts, recording the last error', async () => {
    const handler = recordingHandler('doomed', { maxAttempts: 3, fail: (job) => new Error(`failure ${job.attempts} for card 4200000000000000`) });
    const jobs = worker([handler]);
    await schedule('doomed', 'doomed:1');
    for (let round = 0; round < 5; round++) {
      await jobs.runDueJobs();
      clock.advance(60 * SECOND);
    }
    expect(handler.runs).toHaveLength(3);
    const job = await findJobByKey(store, 'doomed:1');
    expect(job).toMatchObject({ attempts: 3, doneAt: null, lockedUntil: null });
    expect(job?.failedAt).not.toBeNull();
    expect(job?.lastError).toMatch(/^failure 3 for card /);
    // Errors are stored through the logger's redaction: a card number in a message never reaches the row.
    expect(job?.lastError).not.toContain('4200000000000000');
  });

  it('gives up at once on a PermanentJobError', async () => {
    const handler = recordingHandler('permanent', { fail: () => new PermanentJobError('not an http URL') });
    await schedule('permanent', 'permanent:1');
    await worker([handler]).runDueJobs();
    const job = await findJobByKey(store, 'permanent:1');
    expect(job).toMatchObject({ attempts: 1, lastError: 'not an http URL' });
    expect(job?.failedAt).not.toBeNull();
  });

  it("takes over a dead worker's job after its lease, and ignores the dead worker's late result", async () => {
    await schedule('lease', 'lease:1');
    const abandoned = await claimDueJobs(store, { kinds: ['lease'], now: clock.now(), limit: 1, leaseMs: 30 * SECOND });
    expect(abandoned).toHaveLength(1);
    const handler = recordingHandler('lease');
    const jobs = worker([handler], { leaseMs: 30 * SECOND });
    expect(await jobs.runDueJobs()).toBe(0);
    clock.advance(30 * SECOND);
    expect(await jobs.runDueJobs()).toBe(1);
    expect(handler.runs[0]?.attempts).toBe(2);
    expect(await markJobDone(store, abandoned[0] as ClaimedJob, clock.now())).toBe(false);
    expect((await findJobByKey(store, 'lease:1'))?.attempts).toBe(2);
  });

  it('claims only the kinds it has handlers for', async () => {
    await schedule('someone-else', 'someone-else:1');
    const handler = recordingHandler('mine');
    expect(await worker([handler]).runDueJobs()).toBe(0);
    expect((await findJobByKey(store, 'someone-else:1'))?.attempts).toBe(0);
  });

  it('runs by itself every pollMs, and stop() waits for a running job and aborts its outbound wait', async () => {
    let started: () => void = () => undefined;
    const running = new Promise<void>((resolve) => {
      started = resolve;
    });
    const handler: JobHandler = {
      kind: 'polled',
      maxAttempts: 3,
      retryDelayMs: () => SECOND,
      run: (_job, context) =>
        new Promise<void>((_resolve, reject) => {
          started();
          context.signal.addEventListener('abort', () => reject(new Error('the worker stopped')));
        }),
    };
    await schedule('polled', 'polled:1');
    const polling = startJobWorker({ store, logger: silent, now: clock.now, handlers: createJobRegistry([handler]), pollMs: 20 });
    await running;
    await polling.stop();
    const job = await findJobByKey(store, 'polled:1');
    expect(job).toMatchObject({ attempts: 1, doneAt: null, failedAt: null, lastError: 'the worker stopped', lockedUntil: null });
    expect(await polling.runDueJobs()).toBe(0);
  });

  it('polls at once when started, and keeps running while a run stops at its limit with jobs still due', async () => {
    // 2 per batch, 10 batches a run: 25 jobs need three runs. With an hour between polls, only running the next at
    // once (the run before was full) gets them all done now.
    for (let n = 0; n < 25; n++) await schedule('backlog');
    const handler = recordingHandler('backlog');
    const polling = startJobWorker({ store, logger: silent, now: clock.now, handlers: createJobRegistry([handler]), pollMs: 3600 * SECOND, batchSize: 2 });
    workers.push(polling);
    await vi.waitFor(async () => expect((await findJobsOfKind(store, 'backlog')).filter((job) => job.doneAt !== null)).toHaveLength(25), { timeout: 20 * SECOND, interval: 50 });
    expect(handler.runs).toHaveLength(25);
  });

  it('runs a kind with runBatch a claim at a time, recording each outcome right: done, retried, given up, taken over', async () => {
    // Each job's payload says how its run ends; `taken` is claimed by another worker (its lease ran out) meanwhile.
    const outcomes = ['done', 'retry', 'permanent', 'exhausted', 'taken', 'done'];
    for (const [n, outcome] of outcomes.entries()) await schedule('batched', `batched:${n}`, clock.now(), { outcome });
    // Two attempts made before: this one is the last allowed.
    await store.query("UPDATE jobs SET attempts = 2 WHERE unique_key = 'batched:3'");
    const batches: ClaimedJob[][] = [];
    const handler: JobHandler = {
      kind: 'batched',
      maxAttempts: 3,
      retryDelayMs: exponentialBackoff(10 * SECOND, 60 * SECOND),
      run: () => Promise.reject(new Error('run is not used when runBatch is there')),
      runBatch(jobs) {
        batches.push([...jobs]);
        return jobs.map(async (job) => {
          switch (job.payload.outcome) {
            case 'retry':
              throw new Error('receiver said no');
            case 'permanent':
              throw new PermanentJobError('not an http URL');
            case 'exhausted':
              throw new Error('receiver said no, again');
            case 'taken':
              await store.query("UPDATE jobs SET claim_token = $1, attempts = attempts + 1 WHERE id = $2", ['f'.repeat(32), job.id]);
              return;
          }
        });
      },
    };
    const claimedAt = clock.now().getTime();
    expect(await worker([handler], { batchSize: 10 }).runDueJobs()).toBe(6);
    expect(batches.map((batch) => batch.length)).toEqual([6]);
    const job = (n: number) => findJobByKey(store, `batched:${n}`);
    for (const n of [0, 5]) {
      expect(await job(n)).toMatchObject({ attempts: 1, failedAt: null, lastError: null, lockedUntil: null });
      expect((await job(n))?.doneAt).not.toBeNull();
    }
    expect(await job(1)).toMatchObject({ attempts: 1, doneAt: null, failedAt: null, lastError: 'receiver said no', lockedUntil: null });
    expect((await job(1))?.runAt.getTime()).toBe(claimedAt + 10 * SECOND);
    expect(await job(2)).toMatchObject({ attempts: 1, doneAt: null, lastError: 'not an http URL' });
    expect((await job(2))?.failedAt).not.toBeNull();
    expect(await job(3)).toMatchObject({ attempts: 3, doneAt: null, lastError: 'receiver said no, again' });
    expect((await job(3))?.failedAt).not.toBeNull();
    // The late result of a claim taken over does not count: the new holder decides.
    expect(await job(4)).toMatchObject({ attempts: 2, doneAt: null, failedAt: null, lastError: null });
    expect((await job(4))?.lockedUntil).not.toBeNull();
  });

  it('claims again once half its slots are free, without waiting for a slow job of its batch', async () => {
    await schedule('slow-batch', 'slow-batch:slow', new Date(clock.now().getTime() - SECOND), { slow: true });
    for (let n = 0; n < 9; n++) await schedule('slow-batch', `slow-batch:${n}`);
    let releaseSlow: () => void = () => undefined;
    const slow = new Promise<void>((resolve) => {
      releaseSlow = resolve;
    });
    const quick: string[] = [];
    const handler: JobHandler = {
      kind: 'slow-batch',
      maxAttempts: 3,
      retryDelayMs: () => SECOND,
      run: () => Promise.reject(new Error('run is not used when runBatch is there')),
      runBatch: (jobs) =>
        jobs.map(async (job) => {
          if (job.payload.slow === true) return slow;
          quick.push(job.id);
        }),
    };
    const run = worker([handler], { batchSize: 4 }).runDueJobs();
    // The slow job holds one slot of four: the other nine go through the three left meanwhile.
    await vi.waitFor(async () => expect((await findJobsOfKind(store, 'slow-batch')).filter((job) => job.doneAt !== null)).toHaveLength(9), {
      timeout: 10 * SECOND,
      interval: 20,
    });
    expect((await findJobByKey(store, 'slow-batch:slow'))?.doneAt).toBeNull();
    releaseSlow();
    expect(await run).toBe(10);
    expect(quick).toHaveLength(9);
    expect((await findJobByKey(store, 'slow-batch:slow'))?.doneAt).not.toBeNull();
  });

  it('keeps jobs across a restart: scheduled, store closed, run by a worker on the reopened store', async () => {
    await schedule('restart', 'restart:1', new Date(clock.now().getTime() + 5 * SECOND), { note: 'kept' });
    await Promise.all(workers.splice(0).map((running) => running.stop()));
    await store.close();
    store = await openStore(location);
    clock.advance(5 * SECOND);
    const handler = recordingHandler('restart');
    expect(await worker([handler]).runDueJobs()).toBe(1);
    expect(handler.runs[0]?.payload).toEqual({ note: 'kept' });
  });

  it('refuses two handlers for one kind', () => {
    expect(() => createJobRegistry([recordingHandler('twice'), recordingHandler('twice')])).toThrow(/two job handlers/);
  });
});
