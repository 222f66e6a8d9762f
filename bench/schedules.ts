import { fork, type ChildProcess } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { createEntity, grantToken, newAccessToken } from '../server/merchants/repository.ts';
import { createQuartzCache, SCHEDULE_EXECUTION_JOB } from '../server/schedules/firing.ts';
import type { Store } from '../server/store/index.ts';
import { CIT_INITIAL, MIT_REPEATED, testCard } from '../server/testing/harness.ts';
import type { InstanceMessage, InstanceStats } from './schedule-instance.ts';
import { percentile } from './stats.ts';

/**
 * Schedule figures (H): PostgreSQL, gateway instances as processes of their own (schedule-instance.ts: each its own
 * event loop and heap) on one schema, running as in production (real clock, default polls). A merchant's cards are
 * stored by cardholder-initiated INITIAL payments and one schedule is made through the API; the others are copies
 * of that row made in bulk with SQL (realistic daily, weekly and monthly jobs, next fire times in the future, at
 * least an hour ahead), and `burst` of them fire once a day at one same second a few seconds ahead of now. The
 * instances find that second by themselves (the scheduler sleeps until the earliest fire time); what they did is
 * read back from the database: taken_at − fire_at per execution (the fire drift, as schedule_executions defines it),
 * started_at − fire_at (the payment's start), finished_at (payments per second).
 */

const INSTANCE = fileURLToPath(new URL('./schedule-instance.ts', import.meta.url));

/** Registrations the schedules are spread over (their payments read and move a registration each). */
const REGISTRATIONS = 20;
/** Distinct job expressions among the schedules that do not fire in the bench. */
const EXPRESSIONS = 2_000;
const CHUNK = 20_000;
/** The burst's second is at least this far after the burst schedules are loaded (the instances see it at once). */
const BURST_LEAD_MS = 8_000;
/** Time the instances get, after a load, to look at the schedules again before their memory is read. */
const SETTLE_MS = 2_000;
const START_LIMIT_MS = 60_000;
const ASK_LIMIT_MS = 15_000;


const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

// ---------------------------------------------------------------------------------------------------
// Instances

export interface ScheduleInstance {
  readonly url: string;
  stats(): Promise<InstanceStats>;
  /** Closes the gateway (or kills the process when it does not close in time) and waits for the exit. */
  stop(): Promise<void>;
}

function nextMessage<K extends 'started' | 'stats' | 'stopped'>(child: ChildProcess, key: K, limitMs: number): Promise<Extract<InstanceMessage, Record<K, unknown>>> {
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => finish(new Error(`the schedule instance did not answer "${key}" within ${limitMs / 1000} s`)), limitMs);
    const onExit = (code: number | null) => finish(new Error(`the schedule instance exited (code ${code})`));
    const onMessage = (message: InstanceMessage) => {
      if ('failed' in message) finish(new Error(`the schedule instance failed to start: ${message.failed}`));
      else if (key in message) finish(undefined, message as Extract<InstanceMessage, Record<K, unknown>>);
    };
    function finish(error: Error | undefined, message?: Extract<InstanceMessage, Record<K, unknown>>) {
      clearTimeout(timer);
      child.off('exit', onExit);
      child.off('message', onMessage);
      if (error) reject(error);
      else resolve(message as Extract<InstanceMessage, Record<K, unknown>>);
    }
    child.on('exit', onExit);
    child.on('message', onMessage);
  });
}

/** Forks an instance over `databaseUrl` (its environment holds only what a gateway reads) and waits until it listens. */
export async function startScheduleInstance(databaseUrl: string, cardDataKey: Buffer, dataDir: string): Promise<ScheduleInstance> {
  const child = fork(INSTANCE, [], {
    execArgv: [...process.execArgv, '--expose-gc'],
    env: {
      PATH: process.env.PATH ?? '',
      DATABASE_URL: databaseUrl,
      CARD_DATA_KEY: cardDataKey.toString('hex'),
      DATA_DIR: dataDir,
      PORT: '0',
      HOST: '127.0.0.1',
      LOG_LEVEL: 'info',
    },
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
  });
  const exited = new Promise<void>((resolve) => {
    if (child.exitCode !== null || child.signalCode !== null) resolve();
    else child.once('exit', () => resolve());
  });
  const kill = async () => {
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
    await exited;
  };
  let url: string;
  try {
    url = (await nextMessage(child, 'started', START_LIMIT_MS)).started.url;
  } catch (error) {
    await kill();
    throw error;
  }
  return {
    url,
    async stats() {
      const answer = nextMessage(child, 'stats', ASK_LIMIT_MS);
      child.send({ stats: true });
      return (await answer).stats;
    },
    async stop() {
      if (child.exitCode !== null || child.signalCode !== null) return;
      try {
        const answer = nextMessage(child, 'stopped', 10_000);
        child.send({ stop: true });
        await answer;
        await Promise.race([exited, sleep(5_000)]);
      } catch {
        // It exited or hung: either way it is gone below.
      }
      await kill();
    },
  };
}

// ---------------------------------------------------------------------------------------------------
// Schedules

export interface ScheduleTemplate {
  readonly entityId: string;
  /** The merchant's access token (the payment load beside the burst pays with it). */
  readonly token: string;
  readonly registrationIds: readonly string[];
  /** The schedule made through the API, whose row the others copy. */
  readonly scheduleId: string;
}

async function post(url: string, token: string, body: Record<string, string>): Promise<{ status: number; body: Record<string, unknown> }> {
  const answer = await fetch(url, {
    method: 'POST',
    headers: { Authorization: `Bearer ${token}`, 'Content-Type': 'application/x-www-form-urlencoded; charset=UTF-8' },
    body: new URLSearchParams(body).toString(),
  });
  return { status: answer.status, body: (await answer.json()) as Record<string, unknown> };
}

/**
 * A merchant, its cards stored by approved CIT INITIAL payments (the subscription flow's first step), and one
 * schedule made through the API (a monthly job), on the instance at `url`.
 */
export async function createScheduleTemplate(store: Store, url: string): Promise<ScheduleTemplate> {
  const token = newAccessToken();
  const entity = await store.transaction(async (tx) => {
    const created = await createEntity(tx, 'Bench schedules merchant');
    await grantToken(tx, token, 'bench', [created.id]);
    return created;
  });
  const registrationIds: string[] = [];
  for (let i = 0; i < REGISTRATIONS; i++) {
    const initial = await post(`${url}/v1/payments`, token, {
      entityId: entity.id,
      amount: '9.99',
      currency: 'EUR',
      paymentType: 'PA',
      createRegistration: 'true',
      ...testCard(),
      ...CIT_INITIAL,
    });
    const registrationId = initial.body.registrationId;
    if (initial.status !== 200 || typeof registrationId !== 'string') throw new Error(`the CIT INITIAL payment answered HTTP ${initial.status}`);
    registrationIds.push(registrationId);
  }
  const made = await post(`${url}/scheduling/v1/schedules`, token, {
    entityId: entity.id,
    registrationId: registrationIds[0]!,
    amount: '12.50',
    currency: 'EUR',
    paymentType: 'DB',
    ...MIT_REPEATED,
    'job.second': '0',
    'job.minute': '0',
    'job.hour': '10',
    'job.dayOfMonth': '1',
    'job.month': '*',
    descriptor: 'Bench membership',
  });
  const scheduleId = made.body.id;
  if (made.status !== 200 || typeof scheduleId !== 'string') throw new Error(`POST /scheduling/v1/schedules answered HTTP ${made.status}: ${JSON.stringify(made.body)}`);
  return { entityId: entity.id, token, registrationIds, scheduleId };
}

/** Jobs as merchants write them: daily, weekly and monthly at a time of day, each with its next fire time after `after`. */
function futureJobs(after: Date): { expressions: string[]; nextFireAt: string[] } {
  const quartz = createQuartzCache();
  const expressions: string[] = [];
  const nextFireAt: string[] = [];
  for (let i = 0; i < EXPRESSIONS; i++) {
    const [second, minute, hour] = [(i * 7) % 60, (i * 13) % 60, (i * 5) % 24];
    const expression = [
      `${second} ${minute} ${hour} * * ? *`,
      `${second} ${minute} ${hour} ? * ${1 + (i % 7)} *`,
      `${second} ${minute} ${hour} ${1 + (i % 28)} * ? *`,
      `0 ${minute} ${hour} L * ? *`,
    ][i % 4] as string;
    const next = quartz(expression).next(after);
    if (!next) throw new Error(`the bench job "${expression}" never fires`);
    expressions.push(expression);
    nextFireAt.push(next.toISOString());
  }
  return { expressions, nextFireAt };
}

/**
 * Copies of the template schedule, numbered from `from` (so every call makes new ids), `count` of them, each with
 * a registration, an expression and its next fire time picked from the arrays by its number.
 */
async function copySchedules(store: Store, template: ScheduleTemplate, from: number, count: number, jobs: { expressions: readonly string[]; nextFireAt: readonly string[] }, now: Date): Promise<void> {
  for (let done = 0; done < count; done += CHUNK) {
    const size = Math.min(CHUNK, count - done);
    await store.query(
      `INSERT INTO schedules (id, entity_id, registration_id, payment_type, amount_minor, currency, test_mode, request_echo, job, expression,
                              start_at, end_at, next_fire_at, status, created_at)
       SELECT md5('bench-schedule-' || $1::text || '-' || g), t.entity_id, ($2::text[])[1 + g % cardinality($2::text[])], t.payment_type,
              t.amount_minor, t.currency, t.test_mode, t.request_echo,
              t.job || jsonb_build_object('second', f[1], 'minute', f[2], 'hour', f[3], 'dayOfMonth', f[4], 'month', f[5],
                                          'dayOfWeek', f[6], 'year', f[7], 'expression', j.expression),
              j.expression, $5::timestamptz, NULL, j.next_fire_at, 'active', $5::timestamptz
         FROM generate_series($6::int, $7::int) g
        CROSS JOIN (SELECT * FROM schedules WHERE id = $1) t
        CROSS JOIN LATERAL (SELECT ($3::text[])[1 + g % cardinality($3::text[])] AS expression,
                                   ($4::timestamptz[])[1 + g % cardinality($4::timestamptz[])] AS next_fire_at) j
        CROSS JOIN LATERAL string_to_array(j.expression, ' ') f`,
      [template.scheduleId, [...template.registrationIds], [...jobs.expressions], [...jobs.nextFireAt], now.toISOString(), from + done, from + done + size - 1],
    );
  }
}

/** Adds schedules that do not fire within the next hour, numbered from `from`. */
export async function loadFutureSchedules(store: Store, template: ScheduleTemplate, from: number, count: number): Promise<void> {
  const now = new Date();
  await copySchedules(store, template, from, count, futureJobs(new Date(now.getTime() + 3_600_000)), now);
  await store.query('ANALYZE schedules');
}

/**
 * Adds `count` schedules, numbered from `from`, whose job fires once a day at the same second, the first whole
 * second at least BURST_LEAD_MS ahead: that second.
 */
export async function loadBurstSchedules(store: Store, template: ScheduleTemplate, from: number, count: number): Promise<Date> {
  const now = new Date();
  const fireAt = new Date(Math.ceil((now.getTime() + BURST_LEAD_MS) / 1000) * 1000);
  const expression = `${fireAt.getUTCSeconds()} ${fireAt.getUTCMinutes()} ${fireAt.getUTCHours()} * * ? *`;
  const first = createQuartzCache()(expression).next(new Date(fireAt.getTime() - 1000));
  if (first?.getTime() !== fireAt.getTime()) throw new Error(`the burst job "${expression}" does not fire at ${fireAt.toISOString()}`);
  await copySchedules(store, template, from, count, { expressions: [expression], nextFireAt: [fireAt.toISOString()] }, now);
  await store.query('ANALYZE schedules');
  return fireAt;
}

export async function activeSchedules(store: Store): Promise<number> {
  const found = await store.query<{ n: number }>("SELECT count(*)::int AS n FROM schedules WHERE status = 'active'");
  return found.rows[0]?.n ?? 0;
}

export { SETTLE_MS as SCHEDULE_SETTLE_MS, sleep };

// ---------------------------------------------------------------------------------------------------
// The burst's figures

/** Waits until the executions of `fireAt` are all finished, or `limitMs` passed; resolves with how many finished. */
export async function waitForBurst(store: Store, fireAt: Date, burst: number, limitMs: number): Promise<number> {
  const deadline = fireAt.getTime() + limitMs;
  for (;;) {
    const found = await store.query<{ n: number }>('SELECT count(*)::int AS n FROM schedule_executions WHERE fire_at = $1 AND finished_at IS NOT NULL', [fireAt]);
    const finished = found.rows[0]?.n ?? 0;
    if (finished >= burst || Date.now() > deadline) return finished;
    await sleep(250);
  }
}

export interface Distribution {
  readonly count: number;
  readonly min: number;
  readonly p50: number;
  readonly p99: number;
  readonly max: number;
}

function distribution(values: number[]): Distribution {
  const sorted = Float64Array.from(values).sort();
  const asArray = Array.from(sorted);
  return { count: asArray.length, min: asArray[0] ?? Number.NaN, p50: percentile(asArray, 50), p99: percentile(asArray, 99), max: asArray.at(-1) ?? Number.NaN };
}

export interface BurstFigures {
  readonly executions: number;
  /** taken_at − fire_at, ms: when an instance took the fire time (its batch's transaction began). */
  readonly taken: Distribution;
  /** When the taking transaction's COMMIT was answered − fire_at, ms (from the instances' statement counts). */
  readonly queued: Distribution;
  /** started_at − fire_at, ms: when the payment's job began. */
  readonly started: Distribution;
  /** finished_at − fire_at of the last one, ms. */
  readonly lastFinishedMs: number;
  /** Payments made per second: executions / (last finished_at − first started_at). */
  readonly paymentsPerSecond: number;
  /** Fire times taken per second: executions / (last COMMIT − fire time). */
  readonly takenPerSecond: number;
  /** Fire times taken by each instance. */
  readonly takenBy: readonly number[];
}

/** The executions of `fireAt`: drifts from the database, and the instances' COMMIT times of their taking batches. */
export async function burstFigures(store: Store, fireAt: Date, instances: readonly InstanceStats[]): Promise<BurstFigures> {
  const found = await store.query<{ taken: number; started: number | null; finished: number | null }>(
    `SELECT extract(epoch FROM taken_at - fire_at)::float8 * 1000 AS taken,
            extract(epoch FROM started_at - fire_at)::float8 * 1000 AS started,
            extract(epoch FROM finished_at - fire_at)::float8 * 1000 AS finished
       FROM schedule_executions WHERE fire_at = $1`,
    [fireAt],
  );
  const rows = found.rows;
  const started = rows.flatMap((row) => (row.started === null ? [] : [row.started]));
  const finished = rows.flatMap((row) => (row.finished === null ? [] : [row.finished]));
  const lastFinishedMs = finished.length > 0 ? Math.max(...finished) : Number.NaN;
  const firstStartedMs = started.length > 0 ? Math.min(...started) : Number.NaN;
  const queued: number[] = [];
  const takenBy: number[] = [];
  for (const instance of instances) {
    let taken = 0;
    for (const commit of instance.commits) {
      if (commit.at < fireAt.getTime()) continue;
      taken += commit.rows;
      for (let i = 0; i < commit.rows; i++) queued.push(commit.at - fireAt.getTime());
    }
    takenBy.push(taken);
  }
  const queuedFigures = distribution(queued);
  return {
    executions: rows.length,
    taken: distribution(rows.map((row) => row.taken)),
    queued: queuedFigures,
    started: distribution(started),
    lastFinishedMs,
    paymentsPerSecond: finished.length / ((lastFinishedMs - firstStartedMs) / 1000),
    takenPerSecond: queuedFigures.count / (queuedFigures.max / 1000),
    takenBy,
  };
}

/**
 * What must hold after the burst, else the run fails: exactly `burst` executions, all of the burst's second, no
 * other schedule fired, every burst schedule moved to the same second tomorrow; every finished execution paid, with
 * one approved SYSTEM payment each and no other payment; no execution job given up or run more than once. With
 * `complete` (every execution finished), also: `burst` payments and `burst` jobs done.
 */
export async function checkBurst(store: Store, fireAt: Date, burst: number, complete: boolean): Promise<string[]> {
  const problems: string[] = [];
  const one = async (sql: string, params: unknown[] = []): Promise<number> => (await store.query<{ n: number }>(sql, params)).rows[0]?.n ?? 0;
  const executions = await one('SELECT count(*)::int AS n FROM schedule_executions WHERE fire_at = $1', [fireAt]);
  if (executions !== burst) problems.push(`${executions} executions for the ${burst} schedules due at ${fireAt.toISOString()}`);
  const others = await one('SELECT count(*)::int AS n FROM schedule_executions WHERE fire_at <> $1', [fireAt]);
  if (others > 0) problems.push(`${others} executions of other fire times`);
  const tomorrow = new Date(fireAt.getTime() + 86_400_000);
  const moved = await one("SELECT count(*)::int AS n FROM schedules WHERE next_fire_at = $1 AND status = 'active'", [tomorrow]);
  if (moved !== burst) problems.push(`${moved} schedules moved to ${tomorrow.toISOString()}, not ${burst}`);
  const finished = await one('SELECT count(*)::int AS n FROM schedule_executions WHERE fire_at = $1 AND finished_at IS NOT NULL', [fireAt]);
  const paid = await one("SELECT count(*)::int AS n FROM schedule_executions WHERE fire_at = $1 AND outcome = 'paid'", [fireAt]);
  if (paid !== finished) problems.push(`${finished - paid} finished executions not paid`);
  const payments = await one("SELECT count(*)::int AS n FROM payments WHERE source = 'SYSTEM'");
  const approved = await one(
    `SELECT count(*)::int AS n FROM payments p JOIN schedule_executions e ON e.payment_id = p.id
      WHERE e.fire_at = $1 AND p.status = 'approved' AND p.source = 'SYSTEM'`,
    [fireAt],
  );
  if (payments !== approved || approved < paid || (complete && payments !== burst)) {
    problems.push(`${payments} scheduled payments (${approved} approved, of an execution) for ${paid} paid executions`);
  }
  const jobs = await store.query<{ done: number; failed: number; retried: number; total: number }>(
    `SELECT count(*) FILTER (WHERE done_at IS NOT NULL)::int AS done, count(*) FILTER (WHERE failed_at IS NOT NULL)::int AS failed,
            count(*) FILTER (WHERE attempts > 1)::int AS retried, count(*)::int AS total
       FROM jobs WHERE kind = $1`,
    [SCHEDULE_EXECUTION_JOB],
  );
  const job = jobs.rows[0];
  if (!job || job.total !== burst || job.failed > 0 || job.retried > 0 || (complete && job.done !== burst)) {
    problems.push(`execution jobs: ${job?.total ?? 0} queued, ${job?.done ?? 0} done, ${job?.failed ?? 0} given up, ${job?.retried ?? 0} run more than once`);
  }
  return problems;
}

/** Statements sent by the instances between two stats answers, by shape (how many, total ms waited), most first. */
export function statementsBetween(before: readonly InstanceStats[], after: readonly InstanceStats[]): { total: number; shapes: [string, { count: number; ms: number }][] } {
  const shapes = new Map<string, { count: number; ms: number }>();
  let total = 0;
  after.forEach((stats, i) => {
    const earlier = before[i];
    total += stats.statements - (earlier?.statements ?? 0);
    for (const [shape, counted] of Object.entries(stats.shapes)) {
      const count = counted.count - (earlier?.shapes[shape]?.count ?? 0);
      const ms = counted.ms - (earlier?.shapes[shape]?.ms ?? 0);
      if (count <= 0) continue;
      const sum = shapes.get(shape) ?? { count: 0, ms: 0 };
      shapes.set(shape, { count: sum.count + count, ms: sum.ms + ms });
    }
  });
  return { total, shapes: [...shapes].sort((a, b) => b[1].count - a[1].count) };
}

/** The firing loop's statements (schedules/repository.ts lockDueSchedules, recordTakenFires) among `shapes`. */
export function takingStatements(shapes: readonly [string, { count: number; ms: number }][]): [string, { count: number; ms: number }][] {
  const firing = [/^SELECT id, expression, end_at, next_fire_at FROM schedules/, /^WITH taken AS/];
  return firing.flatMap((pattern) => shapes.filter(([shape]) => pattern.test(shape)));
}

const ms = (value: number) => `${Math.round(value)} ms`;
const mb = (bytes: number) => (bytes / 2 ** 20).toFixed(1);
export const format = {
  ms,
  drift: (d: Distribution) => `p50 ${ms(d.p50)}, p99 ${ms(d.p99)}, max ${ms(d.max)}`,
  /** Heap used after GC / RSS, MB, per instance. */
  memory: (all: readonly InstanceStats[]) => all.map((s, i) => `#${i + 1} ${mb(s.heapUsed)}/${mb(s.rss)}`).join(', '),
};

/** The burst's figures in detail: drifts, payments, the instances' event loops, statements and memory. */
export function printBurst(report: {
  burst: number;
  finished: number;
  figures: BurstFigures;
  statements: ReturnType<typeof statementsBetween>;
  memory: readonly [number | string, readonly InstanceStats[]][];
}): void {
  const { burst, finished, figures, statements } = report;
  const atEnd = report.memory.at(-1)?.[1] ?? [];
  console.log(`  fire drift, taken (taken_at − fire_at): first ${ms(figures.taken.min)}, ${format.drift(figures.taken)} (${figures.executions} executions; taken by the instances: ${figures.takenBy.join(' / ')})`);
  console.log(`  queued (its batch's COMMIT − fire_at): ${format.drift(figures.queued)}`);
  console.log(
    `  payment started (started_at − fire_at): ${format.drift(figures.started)}; ${finished} of ${burst} finished, the last ` +
      `${(figures.lastFinishedMs / 1000).toFixed(1)} s after the fire time, ${Math.round(figures.paymentsPerSecond)} payments/s`,
  );
  console.log(`  event loop delay during the burst (p99/max ms): ${atEnd.map((s, i) => `#${i + 1} ${s.loopDelayP99Ms.toFixed(0)}/${s.loopDelayMaxMs.toFixed(0)}`).join(', ')}`);
  console.log(`  statements per scheduled payment, taking included: ${(statements.total / burst).toFixed(1)}; most sent (per payment × mean wait for the answer):`);
  for (const [shape, { count, ms: waited }] of statements.shapes.slice(0, 15)) {
    console.log(`    ${(count / burst).toFixed(2).padStart(6)} × ${(waited / count).toFixed(1).padStart(5)} ms  ${shape}`);
  }
  const taking = takingStatements(statements.shapes);
  console.log(`  taking (all batches): ${taking.map(([shape, { count, ms: waited }]) => `${count} × ${(waited / count).toFixed(0)} ms ${shape.split(' ').slice(0, 3).join(' ')}`).join('; ')}`);
  console.log(`  memory per instance, heap used after GC / RSS (MB): ${report.memory.map(([when, all]) => `${typeof when === 'number' ? `${when} schedules` : when} ${format.memory(all)}`).join('; ')}`);
}

export type { InstanceStats };
