import { createHash } from 'node:crypto';
import { compileQuartz, fieldsOfExpression, isQuartzProblem, type QuartzSchedule } from '../domain/cron.ts';
import type { Outbox } from '../events/outbox.ts';
import type { Logger } from '../logger.ts';
import type { Store } from '../store/index.ts';
import { earliestFireAt, executionKey, findSchedulesById, lockDueSchedules, recordTakenFires, type DueSchedule, type TakenFire } from './repository.ts';
import { scheduleEvent } from './view.ts';

/**
 * Taking fire times (DESIGN principle 4; research §3.4): every schedule row holds its next fire time; each instance
 * runs this loop, which takes due schedules in batches (`FOR UPDATE SKIP LOCKED`: instances never wait for each
 * other), writes one execution row per fire time (its primary key (schedule, fire time) makes a fire time run once,
 * whichever instances are up), queues the execution's payment job (execution.ts) and moves the schedule to its next
 * fire time, all in one transaction of a few statements per batch. No timer per schedule is held in memory: a
 * hundred thousand schedules cost rows, not memory. A schedule left without a fire time before its end has ended
 * (active ──▶ ended), with its SCHEDULE UPDATED event in the same transaction.
 *
 * A fire time found late by more than MISFIRE_THRESHOLD_MS (no gateway ran at the time) is a misfire, handled as
 * Quartz's "fire once now": the missed fire times within the catch-up window are run as one execution (for the latest
 * of them, counting the others in `missed`), older ones are skipped, and the schedule goes on from now.
 */

/** Later than this, a fire time was missed (Quartz's default misfire threshold); earlier, it is just being taken. */
export const MISFIRE_THRESHOLD_MS = 60_000;
/** Schedules taken per transaction. */
const BATCH_SIZE = 500;
/**
 * Batches one instance takes at once on PostgreSQL (SKIP LOCKED keeps them apart): a burst's last fire time waits for
 * the batches before it, and two in flight halve that wait while the database has cores to spare. PGlite is one
 * connection: one at a time.
 */
const CONCURRENT_TAKERS = 2;
/** How soon to look again at due schedules another instance is taking. */
const BUSY_ELSEWHERE_RETRY_MS = 50;
/** A catch-up counts at most this many missed fire times (a schedule firing every second, down for a day). */
const MAX_COUNTED_MISSES = 10_000;

export const SCHEDULE_EXECUTION_JOB = 'schedule.execute';

/**
 * The id of a fire time's payment, derived from its idempotency key (`schedule:<id>:<fire time>`): however often
 * the execution's job runs, on whichever instance, it finds or makes this one payment.
 */
export function executionPaymentId(scheduleId: string, fireAt: Date): string {
  return createHash('sha256').update(executionKey(scheduleId, fireAt)).digest('hex').slice(0, 32);
}

/** Compiled expressions by their text (many schedules share one): compiling is the costly part of a fire time. */
export function createQuartzCache(limit = 10_000): (expression: string) => QuartzSchedule {
  const compiled = new Map<string, QuartzSchedule>();
  return (expression) => {
    const known = compiled.get(expression);
    if (known) return known;
    const fields = fieldsOfExpression(expression);
    const result = isQuartzProblem(fields) ? fields : compileQuartz(fields);
    // Stored expressions were compiled when their schedule was made.
    if (isQuartzProblem(result)) throw new Error(`stored cron expression "${expression}" does not compile: ${result.message}`);
    if (compiled.size >= limit) compiled.clear();
    compiled.set(expression, result);
    return result;
  };
}

/** Within the schedule's end (inclusive), or undefined. */
function beforeEnd(fire: Date | undefined, endAt: Date | null): Date | undefined {
  if (fire === undefined || (endAt !== null && fire.getTime() > endAt.getTime())) return undefined;
  return fire;
}

/** What taking a due schedule at `now` does: the fire time to run (if any), how many it stands for, what comes next. */
export function takeFire(schedule: DueSchedule, quartz: QuartzSchedule, now: Date, catchUpMs: number): TakenFire {
  const due = schedule.nextFireAt;
  if (now.getTime() - due.getTime() <= MISFIRE_THRESHOLD_MS) {
    return {
      scheduleId: schedule.id,
      fireAt: due,
      missed: 0,
      paymentId: executionPaymentId(schedule.id, due),
      nextFireAt: beforeEnd(quartz.next(due), schedule.endAt) ?? null,
    };
  }
  // A misfire: the latest fire time not after now, if it is within the window, runs for every missed one.
  const windowStart = now.getTime() - catchUpMs;
  let latest: Date | undefined;
  let inWindow = 0;
  let fire: Date | undefined = due.getTime() >= windowStart ? due : quartz.next(new Date(windowStart - 1));
  while (fire !== undefined && fire.getTime() <= now.getTime() && inWindow < MAX_COUNTED_MISSES) {
    latest = fire;
    inWindow += 1;
    fire = quartz.next(fire);
  }
  const nextFireAt = beforeEnd(quartz.next(now), schedule.endAt) ?? null;
  if (latest === undefined || beforeEnd(latest, schedule.endAt) === undefined) {
    return { scheduleId: schedule.id, fireAt: null, missed: 0, paymentId: null, nextFireAt };
  }
  return { scheduleId: schedule.id, fireAt: latest, missed: inWindow - 1, paymentId: executionPaymentId(schedule.id, latest), nextFireAt };
}

export interface SchedulerOptions {
  readonly store: Store;
  /** Where the ended schedules' events are appended. */
  readonly outbox: Outbox;
  readonly logger: Logger;
  readonly now: () => Date;
  /** How long after a missed fire time it is still run when a gateway comes back (docs/api.md, "Schedules"). */
  readonly catchUpMs: number;
  /**
   * The background loop looks for due schedules at the earliest fire time, and at least this often; 0 runs nothing by
   * itself (tests drive it with takeDueFires).
   */
  readonly pollMs: number;
}

export interface Scheduler {
  /** Takes every fire time due now, in batches; resolves with how many schedules were taken. */
  takeDueFires(): Promise<number>;
  stop(): Promise<void>;
}

export function startScheduler(options: SchedulerOptions): Scheduler {
  const { store, logger, now } = options;
  const quartzOf = createQuartzCache();
  let stopped = false;
  let timer: NodeJS.Timeout | undefined;
  let running: Promise<number> | undefined;

  async function takeBatch(): Promise<number> {
    return store.transaction(async (tx) => {
      const at = now();
      const due = await lockDueSchedules(tx, at, BATCH_SIZE);
      if (due.length === 0) return 0;
      const fires = due.map((schedule) => takeFire(schedule, quartzOf(schedule.expression), at, options.catchUpMs));
      await recordTakenFires(tx, fires, SCHEDULE_EXECUTION_JOB, { at, by: store.instanceId });
      const ended = fires.filter((fire) => fire.nextFireAt === null).map((fire) => fire.scheduleId);
      if (ended.length > 0) await options.outbox.append(tx, (await findSchedulesById(tx, ended)).map((schedule) => scheduleEvent(schedule, 'UPDATED', at)));
      for (const fire of fires) {
        if (fire.fireAt === null) logger.warn('schedule fire times missed beyond the catch-up window were skipped', { scheduleId: fire.scheduleId });
        else if (fire.missed > 0) logger.warn('missed schedule fire times run as one execution', { scheduleId: fire.scheduleId, fireAt: fire.fireAt.toISOString(), missed: fire.missed });
      }
      return due.length;
    });
  }

  async function takeAll(): Promise<number> {
    let taken = 0;
    const taker = async () => {
      for (;;) {
        const batch = await takeBatch();
        taken += batch;
        if (batch < BATCH_SIZE || stopped) return;
      }
    };
    await Promise.all(Array.from({ length: store.kind === 'postgres' ? CONCURRENT_TAKERS : 1 }, taker));
    return taken;
  }

  function takeDueFires(): Promise<number> {
    if (stopped) return Promise.resolve(0);
    const run = (running ?? Promise.resolve(0)).catch(() => 0).then(takeAll);
    running = run;
    return run;
  }

  /**
   * Until the earliest fire time (so a burst is taken on its second, not up to a poll later), at most pollMs. A fire
   * time due but not taken is another instance's batch in progress: looked at again shortly, not in a busy loop.
   */
  async function delayUntilNextFire(taken: number): Promise<number> {
    const earliest = await earliestFireAt(store);
    if (earliest === undefined) return options.pollMs;
    const untilDue = earliest.getTime() - now().getTime();
    if (untilDue <= 0 && taken === 0) return Math.min(options.pollMs, BUSY_ELSEWHERE_RETRY_MS);
    return Math.min(options.pollMs, Math.max(0, untilDue));
  }

  function tick(delayMs: number): void {
    if (options.pollMs <= 0 || stopped) return;
    timer = setTimeout(() => {
      takeDueFires()
        .then(delayUntilNextFire)
        .then(
          (next) => tick(next),
          (error: unknown) => {
            logger.error('taking due schedules failed', { error: error instanceof Error ? error.message : String(error) });
            tick(options.pollMs);
          },
        );
    }, delayMs);
    timer.unref();
  }
  tick(0);

  return {
    takeDueFires,
    async stop() {
      stopped = true;
      clearTimeout(timer);
      await running?.catch(() => undefined);
    },
  };
}
