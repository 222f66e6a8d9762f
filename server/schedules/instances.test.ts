import { randomBytes } from 'node:crypto';
import pg from 'pg';
import { describe, expect, it } from 'vitest';
import { startGateway, type RunningGateway } from '../gateway.ts';
import { startGatewayProcess, type GatewayProcess } from '../testing/gatewayProcess.ts';
import {
  CIT_INITIAL,
  configAt,
  createTestClock,
  freshStoreLocation,
  MIT_REPEATED,
  readResponse,
  STORE_KINDS,
  TEST_DATABASE_URL,
  testCard,
  warnIfPostgresSkipped,
  type ApiResponse,
  type StoreKind,
  type StoreLocation,
} from '../testing/harness.ts';
import { executionPaymentId, SCHEDULE_EXECUTION_JOB } from './firing.ts';
import { findExecutions } from './repository.ts';

warnIfPostgresSkipped('schedules/instances.test.ts');

/**
 * Schedules across real gateway processes (server/testing/clockedGateway.ts: `node --import tsx`, the production
 * gateway with a clock the test sets through the environment and moves with SIGUSR2; no test waits for a fire time):
 * two instances on one PostgreSQL take every fire time once and make its payment once; a process killed (SIGKILL)
 * while the acquirer holds an execution's payment leaves one payment, recovered or made afresh, never two; and a fire
 * time missed while no gateway ran is run once when one comes back, within the catch-up window.
 */

const SECOND_MS = 1000;
const HOUR_MS = 60 * 60_000;
/** The job worker's default lease (jobs/worker.ts): a killed process's claims are taken over after it. */
const LEASE_MS = 5 * 60_000;
const ENTRY = 'server/testing/clockedGateway.ts';


interface Merchant {
  readonly entityId: string;
  readonly token: string;
}

/** The merchant the processes make at start (their demo merchant), so no process opens the store before them. */
function newMerchant(): Merchant {
  return { entityId: randomBytes(16).toString('hex'), token: `instances-${randomBytes(16).toString('hex')}` };
}

/** What every gateway process on `location` is started with (as crash.test.ts starts its processes), plus `extra`. */
function processEnv(location: StoreLocation, merchant: Merchant, extra: Record<string, string> = {}): Record<string, string> {
  return {
    DATA_DIR: location.dataDir,
    DATABASE_URL: location.databaseUrl ?? '',
    CARD_DATA_KEY: location.cardDataKey?.toString('hex') ?? '',
    PORT: '0',
    HOST: '127.0.0.1',
    DEMO_ENTITY_ID: merchant.entityId,
    DEMO_ACCESS_TOKEN: merchant.token,
    LOG_LEVEL: 'warn',
    ...extra,
  };
}

interface Instance {
  readonly process: GatewayProcess;
  readonly url: string;
  /** store.instanceId: what the process writes in acquirer_attempts.instance_id. */
  readonly instanceId: string;
}

async function started(process: GatewayProcess): Promise<Instance> {
  const banner = await process.listening;
  return {
    process,
    url: /Gateway listening on (\S+)/.exec(banner)?.[1] as string,
    instanceId: /instance ([0-9a-f]{32})/.exec(banner)?.[1] as string,
  };
}

/** SIGTERM: the gateway closes (running jobs finish, the embedded store is closed cleanly), then the process exits. */
async function stop(instance: Instance): Promise<void> {
  instance.process.child.kill('SIGTERM');
  expect(await instance.process.exited).toBe(0);
}

function client(url: string, merchant: Merchant) {
  const headers = { Authorization: `Bearer ${merchant.token}` };
  return {
    post: async (path: string, params: Record<string, string>): Promise<ApiResponse> =>
      readResponse(
        await fetch(`${url}${path}`, {
          method: 'POST',
          headers: { ...headers, 'Content-Type': 'application/x-www-form-urlencoded; charset=UTF-8' },
          body: new URLSearchParams(params),
        }),
      ),
    get: async (path: string, query: Record<string, string>): Promise<ApiResponse> =>
      readResponse(await fetch(`${url}${path}?${new URLSearchParams(query).toString()}`, { headers })),
  };
}
type Client = ReturnType<typeof client>;

/** Step 1 of the subscription flow: an approved CIT INITIAL payment that stores the card; then the holder it is given. */
async function storedCard(api: Client, merchant: Merchant, holder?: string): Promise<string> {
  const initial = await api.post('/v1/payments', {
    entityId: merchant.entityId,
    amount: '9.99',
    currency: 'EUR',
    paymentType: 'PA',
    createRegistration: 'true',
    ...testCard(),
    ...CIT_INITIAL,
  });
  expect(initial.status, JSON.stringify(initial.body)).toBe(200);
  const registrationId = initial.body.registrationId as string;
  if (holder !== undefined) {
    const updated = await api.post(`/v1/registrations/${registrationId}`, { entityId: merchant.entityId, 'card.holder': holder });
    expect(updated.status, JSON.stringify(updated.body)).toBe(200);
  }
  return registrationId;
}

/** job.startDate / job.endDate: `yyyy-MM-dd HH:mm:ss` in UTC. */
const utc = (at: number) => new Date(at).toISOString().slice(0, 19).replace('T', ' ');

async function createSchedule(api: Client, merchant: Merchant, registrationId: string, params: Record<string, string>): Promise<{ id: string; job: { startDate: number } }> {
  const created = await api.post('/scheduling/v1/schedules', {
    entityId: merchant.entityId,
    registrationId,
    amount: '12.50',
    currency: 'EUR',
    paymentType: 'DB',
    ...MIT_REPEATED,
    ...params,
  });
  expect(created.status, JSON.stringify(created.body)).toBe(200);
  return created.body;
}

/** Polls `check` until it returns something other than undefined; fails after `timeoutMs` with `what`. */
async function until<T>(what: string, check: () => Promise<T | undefined>, timeoutMs: number, intervalMs = 50): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await check();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`${what}: not within ${timeoutMs} ms`);
    await new Promise((resolve) => setTimeout(resolve, intervalMs));
  }
}

/** `count` calls of `task`, `concurrency` at a time, results in order. */
async function inParallel<T>(count: number, concurrency: number, task: (index: number) => Promise<T>): Promise<T[]> {
  const results: T[] = new Array(count);
  let next = 0;
  const worker = async () => {
    while (next < count) {
      const index = next++;
      results[index] = await task(index);
    }
  };
  await Promise.all(Array.from({ length: concurrency }, worker));
  return results;
}

describe.runIf(TEST_DATABASE_URL)('two gateway processes on one PostgreSQL', () => {
  it('take each of 1,000 fire times (200 schedules) once and make its payment once, both instances sharing the work', async () => {
    const REGISTRATIONS = 20;
    const SCHEDULES = 200;
    const FIRES_PER_SCHEDULE = 5;
    const location = await freshStoreLocation('PostgreSQL');
    const merchant = newMerchant();
    // Schedule i fires every second from base + (i mod 10) s, five times (job.endDate is inclusive). The base is an hour
    // ahead of the real clock, where the processes' clocks start; SIGUSR2 moves both clocks 20 s past the base at
    // once (all 1,000 fire times due, none later than MISFIRE_THRESHOLD_MS: each is its own execution).
    const base = Math.ceil(Date.now() / 60_000) * 60_000 + HOUR_MS;
    const jumpTo = new Date(base + 20 * SECOND_MS).toISOString();
    // The two clocks read even and odd milliseconds: a taken_at or started_at says which instance wrote it.
    const processes: GatewayProcess[] = [];
    const start = (parity: number) => {
      const process = startGatewayProcess(
        processEnv(location, merchant, { GATEWAY_TEST_CLOCK_AT_SIGNAL: jumpTo, GATEWAY_TEST_CLOCK_PARITY: String(parity), JOB_POLL_MS: '100' }),
        ENTRY,
      );
      processes.push(process);
      return started(process);
    };
    const db = new pg.Client({ connectionString: location.databaseUrl });
    await db.connect();
    try {
      // One after the other: two processes that start together on a fresh store both try to create the demo merchant
      // (merchants/demo.ts ensureDemoMerchant is check-then-insert), and one exits on the duplicate key.
      const a = await start(0);
      const b = await start(1);
      // The schedules, made through the first instance's API before any of them is due.
      const api = client(a.url, merchant);
      const registrations = await inParallel(REGISTRATIONS, 4, () => storedCard(api, merchant));
      const schedules = await inParallel(SCHEDULES, 8, (index) => {
        const from = base + (index % 10) * SECOND_MS;
        return createSchedule(api, merchant, registrations[index % REGISTRATIONS] as string, {
          'job.expression': '* * * * * ?',
          'job.startDate': utc(from),
          'job.endDate': utc(from + (FIRES_PER_SCHEDULE - 1) * SECOND_MS),
        });
      });
      const expected = new Set(
        schedules.flatMap((schedule, index) =>
          Array.from({ length: FIRES_PER_SCHEDULE }, (_, fire) => `${schedule.id}@${new Date(base + ((index % 10) + fire) * SECOND_MS).toISOString()}`),
        ),
      );
      expect(expected.size).toBe(SCHEDULES * FIRES_PER_SCHEDULE);
      expect((await db.query('SELECT 1 FROM schedule_executions')).rows).toEqual([]);

      // Both clocks jump past every fire time while both instances run.
      const fired = performance.now();
      for (const instance of [a, b]) instance.process.child.kill('SIGUSR2');
      await Promise.all([a, b].map((instance) => instance.process.printed(/clock at \S+/)));
      const finished = await until(
        'every execution finished',
        async () => {
          const counts = (await db.query<{ total: number; finished: number }>('SELECT count(*)::int AS total, count(finished_at)::int AS finished FROM schedule_executions')).rows[0];
          return counts && counts.total >= expected.size && counts.finished === counts.total ? counts : undefined;
        },
        45_000,
        100,
      ).catch((error: Error) => {
        throw new Error(`${error.message}\n--- instance A:\n${a.process.stderr()}\n--- instance B:\n${b.process.stderr()}`);
      });
      const elapsed = Math.round(performance.now() - fired);
      expect(finished.total).toBe(expected.size);

      // Exactly the expected fire times, each once, each paid with the payment its idempotency key names.
      const executions = (
        await db.query<{ schedule_id: string; fire_at: Date; payment_id: string; outcome: string; missed: number; taken_at: Date; started_at: Date }>(
          'SELECT schedule_id, fire_at, payment_id, outcome, missed, taken_at, started_at FROM schedule_executions',
        )
      ).rows;
      expect(executions).toHaveLength(expected.size);
      expect(new Set(executions.map((row) => `${row.schedule_id}@${row.fire_at.toISOString()}`))).toEqual(expected);
      expect(executions.filter((row) => row.outcome !== 'paid' || row.missed !== 0)).toEqual([]);
      expect(executions.filter((row) => row.payment_id !== executionPaymentId(row.schedule_id, row.fire_at))).toEqual([]);
      const executionPayments = new Set(executions.map((row) => row.payment_id));
      expect(executionPayments.size).toBe(expected.size);

      // One payment per execution and no payment without one; each asked of the acquirer once.
      const payments = (await db.query<{ id: string; status: string }>("SELECT id, status FROM payments WHERE source = 'SYSTEM'")).rows;
      expect(payments).toHaveLength(expected.size);
      expect(new Set(payments.map((row) => row.id))).toEqual(executionPayments);
      expect(payments.filter((row) => row.status !== 'approved')).toEqual([]);
      const attempts = (
        await db.query<{ payment_id: string; instance_id: string; outcome: string; operations: number }>(
          `SELECT a.payment_id, a.instance_id, a.outcome, (SELECT count(*)::int FROM simulator_operations o WHERE o.attempt_id = a.id) AS operations
             FROM acquirer_attempts a JOIN payments p ON p.id = a.payment_id WHERE p.source = 'SYSTEM'`,
        )
      ).rows;
      expect(attempts).toHaveLength(expected.size);
      expect(new Set(attempts.map((row) => row.payment_id)).size).toBe(expected.size);
      expect(attempts.filter((row) => row.outcome !== 'recorded' || row.operations !== 1)).toEqual([]);
      // Each execution's job ran once (no second claim, no retry), and every schedule has ended after its fifth fire time.
      const jobs = (await db.query<{ total: number; done: number; rerun: number }>(
        'SELECT count(*)::int AS total, count(done_at)::int AS done, count(*) FILTER (WHERE attempts <> 1)::int AS rerun FROM jobs WHERE kind = $1',
        [SCHEDULE_EXECUTION_JOB],
      )).rows[0];
      expect(jobs).toEqual({ total: expected.size, done: expected.size, rerun: 0 });
      expect((await db.query("SELECT status, count(*)::int AS n FROM schedules GROUP BY status")).rows).toEqual([{ status: 'ended', n: SCHEDULES }]);

      // Who did what: the instance that made a payment wrote its id in the attempt; the clock parity of the instance
      // that started the execution is in started_at (the same instance: each job ran once), and that of the instance
      // that took the fire time in taken_at.
      const parityOf = (instanceId: string) => (instanceId === a.instanceId ? 0 : instanceId === b.instanceId ? 1 : -1);
      const payerParity = new Map(attempts.map((row) => [row.payment_id, parityOf(row.instance_id)]));
      expect(executions.filter((row) => row.started_at.getTime() % 2 !== payerParity.get(row.payment_id))).toEqual([]);
      const paidBy = [0, 1].map((parity) => attempts.filter((row) => parityOf(row.instance_id) === parity).length);
      const takenBy = [0, 1].map((parity) => executions.filter((row) => row.taken_at.getTime() % 2 === parity).length);
      process.stderr.write(
        `[schedules, two instances] ${expected.size} fire times run in ${elapsed} ms after the clocks moved: ` +
          `taken ${takenBy[0]} by A and ${takenBy[1]} by B, paid ${paidBy[0]} by A and ${paidBy[1]} by B\n`,
      );
      // Both made payments: each worker claims 32 executions at a time and the 1,000 take seconds, so both get some.
      expect(paidBy[0]).toBeGreaterThan(0);
      expect(paidBy[1]).toBeGreaterThan(0);
      expect(paidBy[0]! + paidBy[1]!).toBe(expected.size);
      // The takes are only reported: the 200 schedules due at once are one batch (up to 500) of whichever instance
      // locks them first, so each of the five rounds goes wholly to one instance, and both getting one is likely only.
      expect(takenBy[0]! + takenBy[1]!).toBe(expected.size);
      // Neither instance failed on the way (a fire time taken twice would fail its transaction on the execution's key
      // if recordTakenFires did not pass over fire times already taken): nothing logged at error level.
      for (const instance of [a, b]) expect(instance.process.stderr().split('\n').filter((line) => line.includes('"level":"error"'))).toEqual([]);
    } finally {
      await Promise.all(processes.map((process) => process.kill()));
      await db.end();
      await location.dispose();
    }
  }, 90_000);
});

describe.each(STORE_KINDS)('a gateway process killed while the acquirer holds an execution’s payment, on %s', (kind: StoreKind) => {
  // The acquirer's record of its answer committed before it answers (SIMULATOR_DURABLE_RECORDS), so the crash leaves it.
  it.each([
    ['after the acquirer decided', 'HANG AFTER ANSWER', true],
    ['before the acquirer received it', 'HANG', false],
  ])('%s: the fire time ends with one payment, once a survivor past the job lease runs the due jobs', async (_when, holder, durable) => {
    const location = await freshStoreLocation(kind);
    const config = configAt(location, { simulatorDurableRecords: durable });
    const merchant = newMerchant();
    // One fire time, at hh:05:00; the process's clock starts at hh:00:00 and SIGUSR2 moves it 5 s past the fire time
    // (not past hh:10, where the embedded store's vacuum, a recurring job, would hold its one connection for seconds).
    const fireAt = Math.ceil(Date.now() / HOUR_MS) * HOUR_MS + HOUR_MS + 5 * 60_000;
    const crashing = startGatewayProcess(
      processEnv(location, merchant, {
        GATEWAY_TEST_HANG: '1',
        JOB_POLL_MS: '100',
        SIMULATOR_DURABLE_RECORDS: String(durable),
        GATEWAY_TEST_CLOCK_OFFSET_MS: String(fireAt - 5 * 60_000 - Date.now()),
        GATEWAY_TEST_CLOCK_AT_SIGNAL: new Date(fireAt + 5 * SECOND_MS).toISOString(),
      }),
      ENTRY,
    );
    // The survivor's clock: where the killed process's clock was, moved on by hand.
    const clock = createTestClock(new Date(fireAt + 5 * SECOND_MS));
    let survivor: RunningGateway | undefined;
    try {
      const instance = await started(crashing);
      const api = client(instance.url, merchant);
      const registrationId = await storedCard(api, merchant, holder);
      const schedule = await createSchedule(api, merchant, registrationId, { 'job.expression': '0 5 * * * ?', 'job.startDate': utc(fireAt), 'job.endDate': utc(fireAt + SECOND_MS) });
      expect(schedule.job.startDate).toBe(fireAt);
      const clockMoved = performance.now();
      crashing.child.kill('SIGUSR2');
      const paymentId = executionPaymentId(schedule.id, new Date(fireAt));
      const attemptId = /acquirer called for ([0-9a-f]{32})/.exec(await crashing.printed(/acquirer called for [0-9a-f]{32}/))?.[1] as string;

      // On PostgreSQL another instance runs all along; the embedded store is reopened after the crash.
      if (kind === 'PostgreSQL') survivor = await startGateway(config, { now: clock.now, jobPollMs: 0, logSink: () => undefined });
      await crashing.kill();
      clock.advance(performance.now() - clockMoved);
      survivor ??= await startGateway(config, { now: clock.now, jobPollMs: 0, logSink: () => undefined });
      const { store } = survivor;

      // Left by the killed process: the execution started, its attempt open, no payment.
      const [left] = await findExecutions(store, schedule.id);
      expect(left).toMatchObject({ fireAt: new Date(fireAt), paymentId, startedAt: expect.any(Date), finishedAt: null });
      const open = await store.query<{ payment_id: string; instance_id: string; finished_at: Date | null }>(
        'SELECT payment_id, instance_id, finished_at FROM acquirer_attempts WHERE id = $1',
        [attemptId],
      );
      expect(open.rows).toEqual([{ payment_id: paymentId, instance_id: instance.instanceId, finished_at: null }]);
      expect((await store.query('SELECT 1 FROM payments WHERE id = $1', [paymentId])).rows).toEqual([]);

      // The dead process's database session goes a moment after the kill (PostgreSQL); its claim on the execution's
      // job holds until the lease runs out: the survivor's clock goes past it.
      await until('the killed instance seen as gone', async () => ((await store.isInstanceAlive(instance.instanceId)) ? undefined : true), 10_000);
      clock.advance(LEASE_MS + 60_000);
      await until(
        'the execution finished by the survivor',
        async () => {
          await survivor?.schedules.executions.runDueJobs();
          const [execution] = await findExecutions(store, schedule.id);
          if (execution?.finishedAt) return execution;
          // The other jobs, the recovery of open attempts among them.
          await survivor?.jobs.runDueJobs();
          return undefined;
        },
        15_000,
      );

      // One execution, paid by the one payment its key names.
      const payments = await store.query<{ id: string; status: string; result_code: string; acquirer_reference: string }>(
        "SELECT id, status, result_code, acquirer_reference FROM payments WHERE registration_id = $1 AND source = 'SYSTEM'",
        [registrationId],
      );
      expect(payments.rows).toEqual([{ id: paymentId, status: 'approved', result_code: '000.100.110', acquirer_reference: expect.any(String) }]);
      const payment = payments.rows[0]!;
      expect(await findExecutions(store, schedule.id)).toMatchObject([{ fireAt: new Date(fireAt), paymentId, missed: 0, outcome: 'paid', resultCode: '000.100.110', finishedAt: expect.any(Date) }]);
      const attempts = await store.query<{ id: string; instance_id: string; outcome: string; reference: string | null }>(
        `SELECT a.id, a.instance_id, a.outcome, o.reference FROM acquirer_attempts a LEFT JOIN simulator_operations o ON o.attempt_id = a.id
          WHERE a.payment_id = $1 ORDER BY a.created_at`,
        [paymentId],
      );
      if (holder === 'HANG AFTER ANSWER') {
        // The acquirer approved it under the killed process's attempt. Recovery (here the execution's own
        // recoverAttemptsOf, the killed instance being gone; else the recovery job) asks the acquirer with inquire and
        // records its answer as the dead process would have: that approval is the payment, under the id the attempt's
        // plan holds (the execution's), and paymentMadeBefore returns it. The acquirer is not asked to authorize again.
        expect(attempts.rows).toEqual([{ id: attemptId, instance_id: instance.instanceId, outcome: 'recorded', reference: payment.acquirer_reference }]);
      } else {
        // The acquirer never saw it: recovery (here the execution's own recoverAttemptsOf, the killed instance being
        // gone; else the recovery job) finds no answer and closes the attempt as `unknown`, writing no payment (nothing
        // moved). paymentMadeBefore then finds neither a payment nor an open attempt, so the execution makes the
        // payment afresh, under the same id, with a new attempt of the survivor's: the acquirer saw one operation.
        expect(attempts.rows).toEqual([
          { id: attemptId, instance_id: instance.instanceId, outcome: 'unknown', reference: null },
          { id: expect.not.stringMatching(attemptId), instance_id: survivor.store.instanceId, outcome: 'recorded', reference: payment.acquirer_reference },
        ]);
      }
      const events = await store.query<{ action: string }>("SELECT action FROM events WHERE resource_id = $1 AND type = 'PAYMENT'", [paymentId]);
      expect(events.rows.map((row) => row.action)).toEqual(['CREATED']);
      // The job the killed process held was taken over once (its second attempt), and is done.
      const jobs = await store.query<{ attempts: number; done: boolean }>('SELECT attempts, done_at IS NOT NULL AS done FROM jobs WHERE kind = $1', [SCHEDULE_EXECUTION_JOB]);
      expect(jobs.rows).toEqual([{ attempts: 2, done: true }]);
      expect((await store.query('SELECT status FROM schedules WHERE id = $1', [schedule.id])).rows).toEqual([{ status: 'ended' }]);
    } finally {
      await crashing.kill();
      await survivor?.close();
      await location.dispose();
    }
  }, 60_000);
});

describe('a gateway process down at a fire time (PGlite)', () => {
  it('runs the missed fire times within SCHEDULE_CATCH_UP_HOURS once when it comes back, and only once', async () => {
    const location = await freshStoreLocation('PGlite');
    const config = configAt(location, { scheduleCatchUpHours: 2 });
    const merchant = newMerchant();
    let survivor: RunningGateway | undefined;
    const processes: GatewayProcess[] = [];
    try {
      // Running before the fire times: the schedule is made, fires at hh:00 from two hours ahead.
      const before = await started(startGatewayProcess(processEnv(location, merchant, { JOB_POLL_MS: '100' }), ENTRY));
      processes.push(before.process);
      const api = client(before.url, merchant);
      const registrationId = await storedCard(api, merchant);
      const first = Math.ceil(Date.now() / HOUR_MS) * HOUR_MS + HOUR_MS;
      const schedule = await createSchedule(api, merchant, registrationId, { 'job.expression': '0 0 * * * ?', 'job.startDate': utc(first), merchantTransactionId: 'catch-up-1' });
      expect(schedule.job.startDate).toBe(first);
      await stop(before);

      // Back at first + 2 h 30 min with a 2-hour window: `first` is outside it (skipped), first + 1 h and first + 2 h
      // inside; they make one execution, for the latest, counting the other as missed.
      const caughtUpAt = first + 2 * HOUR_MS;
      const paymentId = executionPaymentId(schedule.id, new Date(caughtUpAt));
      const back = await started(
        startGatewayProcess(
          processEnv(location, merchant, {
            JOB_POLL_MS: '100',
            SCHEDULE_CATCH_UP_HOURS: '2',
            THROTTLE_PAYMENT_READS_PER_MINUTE: '1000000',
            GATEWAY_TEST_CLOCK_OFFSET_MS: String(first + 2 * HOUR_MS + 30 * 60_000 - Date.now()),
          }),
          ENTRY,
        ),
      );
      processes.push(back.process);
      const paid = await until(
        'the caught-up payment',
        async () => {
          const read = await client(back.url, merchant).get(`/v1/payments/${paymentId}`, { entityId: merchant.entityId });
          return read.status === 200 ? read.body : undefined;
        },
        20_000,
        100,
      );
      expect(paid).toMatchObject({ id: paymentId, paymentType: 'DB', amount: '12.50', registrationId, merchantTransactionId: 'catch-up-1', result: { code: '000.100.110' } });
      await stop(back);

      // Started again later within the hour (in-process, its clock at first + 2 h 50 min): nothing runs twice.
      const clock = createTestClock(new Date(first + 2 * HOUR_MS + 50 * 60_000));
      survivor = await startGateway(config, { now: clock.now, jobPollMs: 0, logSink: () => undefined });
      expect(await survivor.schedules.scheduler.takeDueFires()).toBe(0);
      while ((await survivor.schedules.executions.runDueJobs()) > 0);
      const { store } = survivor;
      expect(await findExecutions(store, schedule.id)).toMatchObject([{ fireAt: new Date(caughtUpAt), missed: 1, paymentId, outcome: 'paid', finishedAt: expect.any(Date) }]);
      const payments = await store.query<{ id: string }>("SELECT id FROM payments WHERE registration_id = $1 AND source = 'SYSTEM'", [registrationId]);
      expect(payments.rows).toEqual([{ id: paymentId }]);
      expect((await store.query<{ n: number }>('SELECT count(*)::int AS n FROM acquirer_attempts WHERE payment_id = $1', [paymentId])).rows).toEqual([{ n: 1 }]);
      // The schedule goes on from there.
      const next = await store.query<{ next_fire_at: Date; status: string }>('SELECT next_fire_at, status FROM schedules WHERE id = $1', [schedule.id]);
      expect(next.rows).toEqual([{ next_fire_at: new Date(first + 3 * HOUR_MS), status: 'active' }]);
    } finally {
      await Promise.all(processes.map((process) => process.kill()));
      await survivor?.close();
      await location.dispose();
    }
  }, 60_000);
});
