/**
 * `npm run bench`: throughput and latency of POST /v1/payments next to two baselines, measured the same
 * way in one run, on loopback only.
 *
 *   A  a trivial Hono JSON route on @hono/node-server (the HTTP stack's ceiling on this machine);
 *   B  per store, the raw single-row insert+commit rate through the Store interface (and B0: PGlite as it
 *      starts by default, with fsync off, to show what the gateway's durable commits cost);
 *   C  per store, POST /v1/payments (DB, test card) on a real gateway;
 *   D  per store, POST /v1/registrations/{id}/payments (DB with a stored card, opened from the vault) on the same
 *      gateway: the vault must not halve what C makes.
 *   E  per store, webhook deliveries per second: a backlog of pending deliveries (made with SQL as the outbox makes
 *      them) drained by one instance's delivery worker to a receiver process that decrypts each notification;
 *   F  PostgreSQL only, the time to drain BENCH_WEBHOOK_BACKLOG (100,000) pending deliveries with one instance, then
 *      with two (two gateways in this process, on one schema; they share its CPU);
 *   G  per store, what delivering costs the payments it notifies: POST /v1/payments for a merchant without a webhook,
 *      then for one whose webhook gets every payment, on one gateway whose delivery worker runs as in production
 *      (polling); target: the second rate at least two thirds of the first (delivering costs at most a third of the
 *      payment throughput), with the deliveries keeping up (the backlog left when the load stops, and its drain time).
 *   H  PostgreSQL only, schedules: BENCH_SCHEDULES (100,000) active, BENCH_SCHEDULE_BURST (10,000) of them due in the
 *      same second, on two gateway instances that are processes of their own (real clock, default polls): fire drift
 *      (taken_at − fire_at) p50/p99/max, the payments' start drift and payments per second, and each instance's
 *      memory with 1,000 and with 100,000 schedules (target: drift p99 ≤ 1 s; memory that does not grow with them).
 *      BENCH_ONLY=H runs only this section (with TEST_DATABASE_URL or DATABASE_URL); BENCH_ONLY=G only section G.
 *   R  per store, smart retry (smartRetry.ts): POST /v1/payments all approved at once, then half of them soft-declined
 *      and retried at the fallback acquirer, each stored once; BENCH_ONLY=R runs only this section.
 *   T  per store, throttling (throttling.ts): POST /v1/payments with the entity's request limits off, counted in the
 *      store, counted in Redis (target: counted ≥ 90% of off); BENCH_ONLY=T runs only this section. The other
 *      sections count the limits as in production, set so high that nothing is refused.
 *   L  PGlite, legacy credentials (legacyCredentials.ts): POST /v1/payments with a Bearer token, then with
 *      authentication.userId/password in the body, alternated rounds, payments/s and CPU per payment (target:
 *      legacy ≥ 95% of Bearer: the scrypt check is not on the hot path); BENCH_ONLY=L runs only this section,
 *      BENCH_LEGACY_ROUNDS (5) its rounds.
 *   P  per store, what one payment costs the gateway (paymentCost.ts): POST /v1/payments (typed card), POST
 *      /v1/registrations/{id}/payments (stored card) and the widget's submit POST /v1/checkouts/{id}/payment (checkouts
 *      made beforehand, each paid once): per payment of the measured window, the CPU time of this process (cost.ts)
 *      and the statements, transactions and round trips the store was asked (server/store/statementCount.ts), under
 *      load and for payments made one at a time (target: CPU ≤ 1 ms per typed-card payment); BENCH_ONLY=P, about a
 *      minute and a half.
 *   U  per store, the reconciliation file (reconciliation.ts): a day of BENCH_RECONCILIATION_RECORDS (1,000,000)
 *      settlement records seeded with SQL, generated and uploaded by the gateway's upload job to an FTP server process
 *      on loopback (target ≤ 30 s), and the gateway's live heap, peak heap and RSS growth meanwhile, next to a day of a
 *      tenth of the records (memory flat, not proportional to rows); BENCH_ONLY=U runs only this section.
 *   W  per store, payments waiting on the acquirer (acquirerWait.ts): the simulated acquirers answering after 200 ms
 *      (SIMULATED_ACQUIRER_LATENCY_MS) and 500 connections: payments/s against the ideal (500 ÷ 0.2 s = 2,500/s, or
 *      the store's raw insert rate measured as in B if lower), p50/p99 minus 200 ms, the gateway's peak RSS and heap;
 *      then 50 connections without latency (target: ≥ 90% of the ideal, p99 added ≤ 50 ms); BENCH_ONLY=W, about a
 *      minute.
 *   O  per store, the opp connector (opp.ts): POST /v1/payments at 50 connections straight to an upstream provider (this
 *      gateway in test mode, a process of its own: server/testing/upstream.ts), then on a live front gateway in this
 *      process whose one acquirer is a connector to it, in alternated rounds: payments/s and p50/p99 of each, the
 *      latency the front adds (target p50 ≤ 5 ms, p99 ≤ 20 ms), the front's CPU per payment (target ≤ 1 ms; beside a
 *      payment made on the simulator in this process, and the upstream's own) and the connector's rate as a share of
 *      the direct one; then both with one connection (the front's added latency when nothing queues); BENCH_ONLY=O,
 *      about a minute and a half per store, BENCH_OPP_ROUNDS (2) its rounds.
 *   Q  per store, the query API (query.ts) on BENCH_QUERY_PAYMENTS (1,000,000) payments seeded with SQL:
 *      GET /v1/query/{id} and by merchantTransactionId p50/p99 (target p99 ≤ 10 ms), date ranges of 500 rows;
 *      BENCH_ONLY=Q runs only this section, BENCH_QUERY_LOOKUPS (2000) lookups of each kind.
 *   V  per store, the dashboard (dashboard.ts) on BENCH_DASHBOARD_PAYMENTS (1,000,000) payments seeded with SQL, in headless
 *      Chromium: its first page's JavaScript gzipped (target ≤ 60 KB) and the first list of 50 payments rendered after
 *      sign-in, as an operator and as a merchant (target ≤ 300 ms); BENCH_ONLY=V runs only this section.
 *   X  the widget (widget.ts): gzip sizes against their budgets, every chunk loaded on demand, and the time to onReady of
 *      a card-only page and of a page with the wallet buttons and the card form; BENCH_ONLY=X runs only this section.
 *
 * HTTP load comes from autocannon in a separate process; the store loops run in this process, which is
 * where the gateway's store runs too. Every measurement: same concurrency, a warm-up, then a measured
 * window of the same length; rates are completed operations / window, latencies are per-operation
 * percentiles. Timing figures never fail the run; a gateway that does not start, or any non-2xx answer
 * or connection error, does (exit code 1).
 *
 * Knobs (optional): BENCH_CONNECTIONS (10), BENCH_WARMUP_SECONDS (2), BENCH_DURATION_SECONDS (8),
 * BENCH_WEBHOOK_DELIVERIES (E's backlog, 3000), BENCH_WEBHOOK_BACKLOG (F's backlog, 100000),
 * BENCH_WEBHOOK_DRAIN_SECONDS (45: a drain that takes longer is stopped there, and its full time projected from its
 * rate, which keeps `npm run bench` within about five minutes; H adds about a minute and a half),
 * BENCH_SCHEDULES (100000), BENCH_SCHEDULE_BURST (10000), BENCH_ONLY (C, G, H, L, M, O, P, Q, R, S, T, U, V, W or X: only that section),
 * BENCH_REDIS_URL (T's Redis, default redis://127.0.0.1:6379), BENCH_THROTTLE_ROUNDS (T's alternated rounds, 3).
 */
import { serve, type ServerType } from '@hono/node-server';
import { Hono } from 'hono';
import type { AddressInfo } from 'node:net';
import { randomBytes } from 'node:crypto';
import os from 'node:os';
import { loadConfig, type GatewayConfig } from '../server/config.ts';
import { isSuccessfulCode } from '../server/domain/resultCodes.ts';
import { startGateway, type RunningGateway } from '../server/gateway.ts';
import { createEntity, grantToken, newAccessToken } from '../server/merchants/repository.ts';
import { cardPayment, testCard } from '../server/testing/harness.ts';
import { measureHttp } from './http-load.ts';
import { hasFailures, type LoadResult, type LoadSpec, type Outcome } from './load-protocol.ts';
import { displayUrl, freshLocation, postgresSource, type StoreKind } from './locations.ts';
import { formatMs, formatRate, type Summary } from './stats.ts';
import { measureStoreInserts, openNonDurablePGlite, RAW_TABLE } from './store-load.ts';
import { createDeliveryBacklog, drainDeliveries, drainSeconds, pendingDeliveries, startWebhookReceivers, type DrainResult } from './webhooks.ts';
import { measureWidget } from './widget.ts';
import { createWebhook } from '../server/webhooks/service.ts';
import { openStore } from '../server/store/index.ts';
import * as schedules from './schedules.ts';
import type { BenchSectionContext } from './section.ts';
import { benchSmartRetry } from './smartRetry.ts';
import { benchThrottling } from './throttling.ts';
import { benchQuery } from './query.ts';
import { benchDashboard } from './dashboard.ts';
import { benchLegacyCredentials } from './legacyCredentials.ts';
import { benchAcquirerWait } from './acquirerWait.ts';
import { benchPaymentCost } from './paymentCost.ts';
import { benchOppConnector } from './opp.ts';
import { benchStartup } from './startup.ts';
import { benchInstances } from './instances.ts';
import { benchReconciliationFile } from './reconciliation.ts';
import { MAX_LIMIT } from '../server/throttling/limits.ts';
import { positiveIntFromEnv } from './env.ts';

/** Payments as a share of the raw insert rate (issue 10): about all of it on PGlite, at least 70% on PostgreSQL. */
const TARGET_RATIO: Record<StoreKind, number> = { PGlite: 0.9, PostgreSQL: 0.7 };
/** Payments with a stored card as a share of payments with a typed one (issue 11: the vault must not halve it). */
const STORED_CARD_TARGET_RATIO = 0.5;

const CONNECTIONS = positiveIntFromEnv('BENCH_CONNECTIONS', 10, 1000);
const WARMUP_SECONDS = positiveIntFromEnv('BENCH_WARMUP_SECONDS', 2, 60);
const DURATION_SECONDS = positiveIntFromEnv('BENCH_DURATION_SECONDS', 8, 120);
const WEBHOOK_DELIVERIES = positiveIntFromEnv('BENCH_WEBHOOK_DELIVERIES', 3_000, 10_000_000);
const WEBHOOK_BACKLOG = positiveIntFromEnv('BENCH_WEBHOOK_BACKLOG', 100_000, 10_000_000);
/** A drain stops after this long; the time for the whole backlog is then projected from the rate seen. */
const WEBHOOK_DRAIN_SECONDS = positiveIntFromEnv('BENCH_WEBHOOK_DRAIN_SECONDS', 45, 3600);
/** Receiver origins (one merchant and webhook each): more than the per-receiver limit could hold back. */
const WEBHOOK_RECEIVERS = 16;
/** Payments of a merchant whose webhook is notified, as a share of payments without (G). */
const NOTIFIED_PAYMENTS_TARGET_RATIO = 2 / 3;
/** How long G waits, after its load, for the deliveries still pending. */
const DELIVERY_CATCH_UP_LIMIT_MS = 120_000;
const HOST = '127.0.0.1';
const SCHEDULES = positiveIntFromEnv('BENCH_SCHEDULES', 100_000, 10_000_000);
/** At least one schedule is not in the burst: the one made through the API, whose row the others copy. */
const SCHEDULE_BURST = positiveIntFromEnv('BENCH_SCHEDULE_BURST', Math.min(10_000, Math.max(SCHEDULES - 1, 1)), Math.max(SCHEDULES - 1, 1));
/** H: fire drift target (issue): p99 ≤ 1 s; the figures are taken when the burst's payments are made, or this long after their second. */
const SCHEDULE_DRIFT_TARGET_MS = 1000;
const SCHEDULE_BURST_LIMIT_MS = 120_000;
/** Seconds of merchant payments measured beside the schedules' burst, from about a second before its fire time. */
const SCHEDULE_NOISE_SECONDS = 5;
/** BENCH_ONLY=<letter> runs that section alone (C with B and D, which it runs beside; H on PostgreSQL only). */
const ONLY = (['C', 'G', 'H', 'L', 'M', 'O', 'P', 'Q', 'R', 'S', 'T', 'U', 'V', 'W', 'X'] as const).find((section) => section === process.env.BENCH_ONLY);
if (process.env.BENCH_ONLY !== undefined && process.env.BENCH_ONLY !== '' && ONLY === undefined) throw new Error('BENCH_ONLY must be C, G, H, L, M, O, P, Q, R, S, T, U, V, W or X');
/** The stores the per-store sections measure: both unless BENCH_STORES names one (PGlite or PostgreSQL). */
const STORES: readonly StoreKind[] = (() => {
  const raw = process.env.BENCH_STORES;
  if (raw === undefined || raw === '') return ['PGlite', 'PostgreSQL'];
  const named = raw.split(',').map((name) => name.trim());
  const unknown = named.filter((name) => name !== 'PGlite' && name !== 'PostgreSQL');
  if (unknown.length > 0 || named.length === 0) throw new Error(`BENCH_STORES must list PGlite and/or PostgreSQL, got "${raw}"`);
  return named as StoreKind[];
})();

// ---------------------------------------------------------------------------------------------------
// Clean-up that also runs on Ctrl-C: every resource is registered with a scope, closed in reverse order.

const failures: string[] = [];
let interrupted = false;
let interruptedAt = 0;

/** Records a failure (it makes the run exit 1) and says so loudly; quiet once Ctrl-C is tearing things down. */
function fail(failure: string, loud: string = `!!! ${failure}`): void {
  if (interrupted) return;
  failures.push(failure);
  console.error(loud);
}

function messageOf(error: unknown): string {
  if (!(error instanceof Error)) return String(error);
  const cause = error.cause instanceof Error ? `: ${error.cause.message}` : '';
  return `${error.message}${cause}`;
}

function withTimeout<T>(promise: Promise<T>, ms: number, what: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`${what} did not finish within ${ms / 1000} s`)), ms);
  });
  return Promise.race([promise, timeout]).finally(() => clearTimeout(timer));
}

class Scope {
  static readonly open = new Set<Scope>();
  private readonly closers: { label: string; close: () => Promise<void> }[] = [];

  constructor() {
    Scope.open.add(this);
  }

  defer(label: string, close: () => Promise<void>): void {
    this.closers.push({ label, close });
  }

  async close(): Promise<void> {
    Scope.open.delete(this);
    for (const { label, close } of this.closers.splice(0).reverse()) {
      try {
        await withTimeout(close(), 15_000, label);
      } catch (error) {
        failures.push(`clean-up failed (${label}): ${messageOf(error)}`);
        console.error(`!!! clean-up failed (${label}): ${messageOf(error)}`);
      }
    }
  }
}

async function withScope<T>(work: (scope: Scope) => Promise<T>): Promise<T> {
  const scope = new Scope();
  try {
    return await work(scope);
  } finally {
    await scope.close();
  }
}

for (const signal of ['SIGINT', 'SIGTERM'] as const) {
  process.on(signal, () => {
    // Ctrl-C reaches this process twice (from the terminal, and relayed by npm/tsx): only a signal
    // well after the first one forces an exit without clean-up.
    if (interrupted) {
      if (performance.now() - interruptedAt > 2000) process.exit(130);
      return;
    }
    interrupted = true;
    interruptedAt = performance.now();
    console.error(`\n${signal}: cleaning up (press Ctrl-C again to exit at once)...`);
    void Promise.all([...Scope.open].map((scope) => scope.close())).finally(() => process.exit(130));
  });
}

// ---------------------------------------------------------------------------------------------------
// Results

interface Row {
  readonly label: string;
  readonly unit: 'req/s' | 'ops/s' | 'del/s' | 'fire/s' | 'pay/s';
  readonly summary: Summary | undefined;
  /** "all 200", "5 non-2xx", "FAILED: ..." */
  readonly check: string;
}

const rows: Row[] = [];
const ratios: string[] = [];

function describeOutcome(outcome: Outcome): string {
  const codes = Object.entries(outcome.statusCodes)
    .map(([code, count]) => `${code}×${count}`)
    .join(' ');
  return `${outcome.responses} responses [${codes || 'none'}], non-2xx ${outcome.non2xx}, errors ${outcome.errors}, timeouts ${outcome.timeouts}`;
}

function onlyStatus200(outcome: Outcome): boolean {
  return Object.keys(outcome.statusCodes).every((code) => code === '200');
}

/** Records (and prints loudly) any non-2xx, non-200 or connection error in warm-up or measured window. */
function checkHttp(label: string, result: LoadResult): string {
  const problems: string[] = [];
  for (const [window, outcome] of [
    ['warm-up', result.warmup],
    ['measured', result.measured],
  ] as const) {
    if (hasFailures(outcome) || !onlyStatus200(outcome)) problems.push(`${window}: ${describeOutcome(outcome)}`);
  }
  if (result.measured.responses === 0) problems.push('measured: no responses at all');
  if (problems.length === 0) return `all ${result.warmup.responses + result.measured.responses} HTTP 200`;
  for (const problem of problems) {
    fail(`${label}: ${problem}`, `\n!!! ERRORS in ${label}: ${problem} !!!\n`);
  }
  return `ERRORS: ${result.warmup.non2xx + result.measured.non2xx} non-2xx, ${result.warmup.errors + result.measured.errors} conn errors`;
}

function printMeasurement(label: string, unit: string, summary: Summary, extra: string): void {
  console.log(
    `  ${label}: ${formatRate(summary.rate)} ${unit}, p50 ${formatMs(summary.p50)} ms, p99 ${formatMs(summary.p99)} ms ` +
      `(${summary.count} in ${summary.seconds.toFixed(2)} s) — ${extra}`,
  );
}

function loadSpec(url: string, method: 'GET' | 'POST', headers: Record<string, string>, body?: string): LoadSpec {
  return {
    url,
    method,
    headers,
    ...(body !== undefined ? { body } : {}),
    connections: CONNECTIONS,
    warmupSeconds: WARMUP_SECONDS,
    durationSeconds: DURATION_SECONDS,
  };
}

/** A gateway on a bench store location: any free port on loopback, no demo merchant, logging as in production. */
function benchGatewayConfig(location: { readonly dataDir: string; readonly databaseUrl: string | undefined }): GatewayConfig {
  const defaults = loadConfig({});
  return {
    ...defaults,
    port: 0,
    host: HOST,
    dataDir: location.dataDir,
    databaseUrl: location.databaseUrl,
    // PostgreSQL requires a configured card-data key (vault/key.ts); PGlite generates one in its directory.
    cardDataKey: location.databaseUrl ? randomBytes(32) : undefined,
    demoMerchant: undefined,
    // Logging as in production (a line per request, redacted), into a sink that drops the lines.
    logLevel: 'info',
    // The entity's request limits counted as in production, but never refusing the bench's thousands a minute.
    limits: { ...defaults.limits, requestsPerMinute: MAX_LIMIT, paymentCreationsPerMinute: MAX_LIMIT },
  };
}

// ---------------------------------------------------------------------------------------------------
// A: trivial Hono route

async function baselineHono(): Promise<Summary | undefined> {
  const label = 'A  GET / trivial Hono JSON';
  console.log(`\n[A] trivial Hono JSON route (@hono/node-server)`);
  try {
    return await withScope(async (scope) => {
      const app = new Hono().get('/', (c) => c.json({ ok: true }));
      const server: ServerType = await new Promise((resolve) => {
        const started = serve({ fetch: app.fetch, port: 0, hostname: HOST }, () => resolve(started));
      });
      scope.defer('close Hono baseline server', () => new Promise<void>((resolve) => server.close(() => resolve())));
      const { port } = server.address() as AddressInfo;
      const result = await measureHttp(loadSpec(`http://${HOST}:${port}/`, 'GET', {}));
      const check = checkHttp(label, result);
      printMeasurement('GET /', 'req/s', result.measured, check);
      rows.push({ label, unit: 'req/s', summary: result.measured, check });
      return result.measured;
    });
  } catch (error) {
    fail(`${label}: ${messageOf(error)}`, `!!! ${label} FAILED: ${messageOf(error)}`);
    rows.push({ label, unit: 'req/s', summary: undefined, check: `FAILED: ${messageOf(error)}` });
    return undefined;
  }
}

// ---------------------------------------------------------------------------------------------------
// B0: what the embedded store's durable commits cost

/** The raw insert rate of PGlite as it starts by default (fsync off), beside B's durable store. */
async function durabilityBaseline(entityId: string): Promise<void> {
  const label = 'B0 raw insert+commit, PGlite fsync off (not durable)';
  try {
    await withScope(async (scope) => {
      const location = await freshLocation('PGlite', undefined);
      scope.defer(`remove the fsync-off PGlite at ${location.where}`, () => location.dispose());
      const store = await openNonDurablePGlite(location.dataDir);
      scope.defer('close the fsync-off PGlite', () => store.close());
      const result = await measureStoreInserts(store, {
        concurrency: CONNECTIONS,
        warmupSeconds: WARMUP_SECONDS,
        durationSeconds: DURATION_SECONDS,
        entityId,
      });
      printMeasurement('raw insert+commit, fsync off', 'ops/s', result.measured, '0 errors');
      rows.push({ label, unit: 'ops/s', summary: result.measured, check: '0 errors' });
    });
  } catch (error) {
    fail(`${label}: ${messageOf(error)}`, `!!! ${label} FAILED: ${messageOf(error)}`);
    rows.push({ label, unit: 'ops/s', summary: undefined, check: `FAILED: ${messageOf(error)}` });
  }
}

// ---------------------------------------------------------------------------------------------------
// B + C for one store

async function benchStore(kind: StoreKind, honoRate: number | undefined): Promise<Summary | undefined> {
  const rawLabel = `B  raw insert+commit, ${kind}`;
  const payLabel = `C  POST /v1/payments, ${kind}`;
  const storedLabel = `D  POST /v1/registrations/{id}/payments, ${kind}`;
  console.log(`\n[${kind}]`);
  let raw: Summary | undefined;
  let payments: Summary | undefined;
  let storedPayments: Summary | undefined;
  try {
    await withScope(async (scope) => {
      const location = await freshLocation(kind, postgresSource());
      scope.defer(`remove ${kind} store at ${location.where}`, () => location.dispose());
      console.log(`  store: ${location.where}`);

      const config = benchGatewayConfig(location);
      let gateway: RunningGateway;
      try {
        gateway = await startGateway(config, { logSink: () => undefined });
      } catch (error) {
        throw new Error(`the gateway failed to start over ${kind}`, { cause: error });
      }
      scope.defer(`close gateway over ${kind}`, () => gateway.close());
      const store = gateway.store;
      if (store.kind === 'postgres') {
        const settings = await store.query<{ version: string; sc: string; fsync: string }>(
          "SELECT current_setting('server_version') AS version, current_setting('synchronous_commit') AS sc, current_setting('fsync') AS fsync",
        );
        const s = settings.rows[0];
        if (s) console.log(`  PostgreSQL ${s.version}, synchronous_commit=${s.sc}, fsync=${s.fsync}, gateway pool size 10`);
      }

      const token = newAccessToken();
      const entity = await store.transaction(async (tx) => {
        const created = await createEntity(tx, 'Bench merchant');
        await grantToken(tx, token, 'bench', [created.id]);
        return created;
      });

      // B: raw store rate, on the very store the gateway uses (the HTTP server is idle meanwhile).
      try {
        const rawResult = await measureStoreInserts(store, {
          concurrency: CONNECTIONS,
          warmupSeconds: WARMUP_SECONDS,
          durationSeconds: DURATION_SECONDS,
          entityId: entity.id,
        });
        raw = rawResult.measured;
        const check = `0 errors, ${rawResult.rowsInTable} rows in ${RAW_TABLE} (incl. ${rawResult.warmupOps} warm-up)`;
        printMeasurement('raw insert+commit', 'ops/s', raw, check);
        rows.push({ label: rawLabel, unit: 'ops/s', summary: raw, check: '0 errors' });
      } catch (error) {
        fail(`${rawLabel}: ${messageOf(error)}`, `!!! ${rawLabel} FAILED: ${messageOf(error)}`);
        rows.push({ label: rawLabel, unit: 'ops/s', summary: undefined, check: `FAILED: ${messageOf(error)}` });
      }
      if (kind === 'PGlite') await durabilityBaseline(entity.id);

      // C: payments over HTTP. One request first, so a broken gateway is reported as such, not as a figure.
      const url = `${gateway.url}/v1/payments`;
      const body = new URLSearchParams(cardPayment(entity.id)).toString();
      const headers = {
        Authorization: `Bearer ${token}`,
        'Content-Type': 'application/x-www-form-urlencoded; charset=UTF-8',
      };
      const probe = await fetch(url, { method: 'POST', headers, body });
      const probeBody = (await probe.json().catch(() => undefined)) as { result?: { code?: string } } | undefined;
      const probeCode = probeBody?.result?.code;
      if (probe.status !== 200 || probeCode === undefined || !isSuccessfulCode(probeCode)) {
        throw new Error(`the gateway over ${kind} answered the probe payment with HTTP ${probe.status}, result ${probeCode ?? '(none)'}`);
      }

      const result = await measureHttp(loadSpec(url, 'POST', headers, body));
      const check = checkHttp(payLabel, result);
      payments = result.measured;
      const stored = await store.query<{ n: number }>(
        "SELECT count(*)::int AS n FROM payments WHERE entity_id = $1 AND status = 'approved'",
        [entity.id],
      );
      const answered = 1 + (result.warmup.statusCodes['200'] ?? 0) + (result.measured.statusCodes['200'] ?? 0);
      printMeasurement('POST /v1/payments', 'req/s', payments, check);
      console.log(
        `  approved payment rows stored: ${stored.rows[0]?.n ?? 0} (HTTP 200 answers incl. probe and warm-up: ${answered};` +
          ' a few more rows are normal: requests in flight when a run stops are stored but not counted)',
      );
      rows.push({ label: payLabel, unit: 'req/s', summary: payments, check });

      // D: the same payment with a stored card: the registration read and its card opened from the vault.
      const registration = await fetch(`${gateway.url}/v1/registrations`, {
        method: 'POST',
        headers,
        body: new URLSearchParams({ entityId: entity.id, ...testCard() }).toString(),
      });
      const registrationId = ((await registration.json()) as { id?: string }).id;
      if (registration.status !== 200 || registrationId === undefined) throw new Error(`the gateway over ${kind} did not store the bench card (HTTP ${registration.status})`);
      const storedBody = new URLSearchParams({ entityId: entity.id, amount: '92.00', currency: 'EUR', paymentType: 'DB' }).toString();
      const storedResult = await measureHttp(loadSpec(`${gateway.url}/v1/registrations/${registrationId}/payments`, 'POST', headers, storedBody));
      const storedCheck = checkHttp(storedLabel, storedResult);
      storedPayments = storedResult.measured;
      printMeasurement('POST /v1/registrations/{id}/payments', 'req/s', storedPayments, storedCheck);
      rows.push({ label: storedLabel, unit: 'req/s', summary: storedPayments, check: storedCheck });
    });
  } catch (error) {
    fail(`${kind}: ${messageOf(error)}`, `\n!!! ${kind} FAILED: ${messageOf(error)} !!!\n`);
    if (!interrupted && error instanceof Error && error.cause instanceof Error && error.cause.stack) console.error(error.cause.stack);
    if (!raw) rows.push({ label: rawLabel, unit: 'ops/s', summary: undefined, check: 'not measured' });
    if (!payments) rows.push({ label: payLabel, unit: 'req/s', summary: undefined, check: `FAILED: ${messageOf(error)}` });
    if (!storedPayments) rows.push({ label: storedLabel, unit: 'req/s', summary: undefined, check: `FAILED: ${messageOf(error)}` });
  }
  if (payments && storedPayments) {
    const ratio = storedPayments.rate / payments.rate;
    ratios.push(
      `${kind}: payments with a stored card ${formatRate(storedPayments.rate)} req/s = ${Math.round(ratio * 100)}% of payments with a typed card ` +
        `(target ≥ ${STORED_CARD_TARGET_RATIO * 100}%) — ${ratio >= STORED_CARD_TARGET_RATIO ? 'meets target' : 'BELOW target'}`,
    );
  }

  if (raw && payments) {
    const ratio = payments.rate / raw.rate;
    const verdict = ratio >= TARGET_RATIO[kind] ? 'meets target' : 'BELOW target';
    ratios.push(
      `${kind}: payments ${formatRate(payments.rate)} req/s = ${Math.round(ratio * 100)}% of raw insert rate ` +
        `${formatRate(raw.rate)} ops/s (target ≥ ${TARGET_RATIO[kind] * 100}%) — ${verdict}` +
        (honoRate ? `; ${Math.round((payments.rate / honoRate) * 100)}% of the trivial Hono route` : ''),
    );
  }
  return payments;
}

// ---------------------------------------------------------------------------------------------------
// E + F: webhook deliveries

function drainRow(label: string, result: DrainResult): Row {
  const summary: Summary = { count: result.delivered, seconds: result.seconds, rate: result.delivered / result.seconds, p50: result.p50, p99: result.p99 };
  const { seconds, projected } = drainSeconds(result);
  const check = projected
    ? `${result.delivered} of ${result.backlog} in ${WEBHOOK_DRAIN_SECONDS} s, all: ~${seconds.toFixed(0)} s projected`
    : `all ${result.backlog} in ${seconds.toFixed(1)} s`;
  printMeasurement(label, 'deliveries/s', summary, `${check}, every attempt HTTP 200 (p50/p99: send latency)`);
  return { label, unit: 'del/s', summary, check };
}

async function benchWebhooks(kind: StoreKind, payments: Summary | undefined): Promise<void> {
  const deliveriesLabel = `E  webhook deliveries, ${kind}`;
  console.log(`\n[${kind} webhooks] ${WEBHOOK_RECEIVERS} webhooks (one receiver origin each) in a receiver process that decrypts`);
  let deliveries: Row | undefined;
  try {
    await withScope(async (scope) => {
      const location = await freshLocation(kind, postgresSource());
      scope.defer(`remove ${kind} store at ${location.where}`, () => location.dispose());
      const config = benchGatewayConfig(location);
      // Workers driven here (jobPollMs 0), as fast as they go.
      const gateway = await startGateway(config, { jobPollMs: 0, logSink: () => undefined });
      scope.defer(`close gateway over ${kind}`, () => gateway.close());
      const secret = randomBytes(32).toString('hex').toUpperCase();
      const receivers = await startWebhookReceivers(secret, WEBHOOK_RECEIVERS);
      scope.defer('stop the webhook receiver process', () => receivers.close());

      // A real payment's event is the template of the backlog's events.
      const token = newAccessToken();
      const entity = await gateway.store.transaction(async (tx) => {
        const created = await createEntity(tx, 'Bench merchant');
        await grantToken(tx, token, 'bench', [created.id]);
        return created;
      });
      const paid = await fetch(`${gateway.url}/v1/payments`, {
        method: 'POST',
        headers: { Authorization: `Bearer ${token}`, 'Content-Type': 'application/x-www-form-urlencoded; charset=UTF-8' },
        body: new URLSearchParams(cardPayment(entity.id)).toString(),
      });
      const paymentId = ((await paid.json()) as { id?: string }).id;
      if (paid.status !== 200 || !paymentId) throw new Error(`the template payment answered HTTP ${paid.status}`);
      const template = await gateway.store.query<{ payload: Record<string, unknown> }>('SELECT payload FROM events WHERE resource_id = $1 LIMIT 1', [paymentId]);
      const payload = template.rows[0]?.payload;
      if (!payload) throw new Error('the template payment has no event');

      const entityIds: string[] = [];
      for (const url of receivers.urls) {
        const merchant = await gateway.store.transaction((tx) => createEntity(tx, 'Bench webhook merchant'));
        const { webhook } = await createWebhook(gateway.webhooks.services, merchant.id, { url, secret, types: ['PAYMENT'] });
        if (webhook.status !== 'active') throw new Error(`the bench webhook to ${url} did not activate`);
        entityIds.push(merchant.id);
      }
      const drainLimitMs = WEBHOOK_DRAIN_SECONDS * 1000;

      // E: one instance.
      await createDeliveryBacklog(gateway.store, entityIds, payload, WEBHOOK_DELIVERIES, new Date());
      deliveries = drainRow(`E  ${WEBHOOK_DELIVERIES} webhook deliveries, 1 instance`, await drainDeliveries(gateway.store, [gateway.webhooks.deliveries], drainLimitMs));
      rows.push({ ...deliveries, label: deliveriesLabel });
      if (payments) {
        const ratio = (deliveries.summary?.rate ?? 0) / payments.rate;
        ratios.push(`${kind}: webhook deliveries from a backlog ${formatRate(deliveries.summary?.rate ?? 0)}/s vs payments ${formatRate(payments.rate)}/s (C) = ${ratio.toFixed(2)}×`);
      }
      if (kind !== 'PostgreSQL') return;

      // F: the big backlog, one instance, then two on the same schema.
      const drains: Record<number, DrainResult> = {};
      for (const instances of [1, 2]) {
        const workers = [gateway.webhooks.deliveries];
        if (instances === 2) {
          const second = await startGateway({ ...config, port: 0 }, { jobPollMs: 0, logSink: () => undefined });
          scope.defer('close the second gateway', () => second.close());
          workers.push(second.webhooks.deliveries);
        }
        const made = performance.now();
        await createDeliveryBacklog(gateway.store, entityIds, payload, WEBHOOK_BACKLOG, new Date());
        console.log(`  backlog of ${WEBHOOK_BACKLOG} deliveries made with SQL in ${((performance.now() - made) / 1000).toFixed(1)} s`);
        const result = await drainDeliveries(gateway.store, workers, drainLimitMs);
        drains[instances] = result;
        rows.push(drainRow(`F  drain ${WEBHOOK_BACKLOG} deliveries, ${instances} instance${instances > 1 ? 's' : ''}`, result));
      }
      const one = drains[1];
      const two = drains[2];
      if (one && two) {
        const [a, b] = [drainSeconds(one), drainSeconds(two)];
        const shown = (drain: { seconds: number; projected: boolean }) => `${drain.projected ? '~' : ''}${drain.seconds.toFixed(0)} s${drain.projected ? ' (projected)' : ''}`;
        ratios.push(
          `PostgreSQL: ${WEBHOOK_BACKLOG} pending deliveries drained in ${shown(a)} by one instance, ${shown(b)} by two ` +
            `(${(a.seconds / b.seconds).toFixed(2)}× faster; both instances in this one process, sharing its CPU)`,
        );
      }
    });
  } catch (error) {
    fail(`${kind} webhooks: ${messageOf(error)}`, `\n!!! ${kind} webhooks FAILED: ${messageOf(error)} !!!\n`);
    if (!deliveries) rows.push({ label: deliveriesLabel, unit: 'del/s', summary: undefined, check: `FAILED: ${messageOf(error)}` });
  }
}

// ---------------------------------------------------------------------------------------------------
// G: what delivering costs the payments it notifies

async function benchDeliveryCost(kind: StoreKind): Promise<void> {
  const plainLabel = `G  POST /v1/payments, no webhook, ${kind}`;
  const notifiedLabel = `G  POST /v1/payments, each delivered to a webhook, ${kind}`;
  console.log(`\n[${kind} delivery cost] one gateway, its delivery worker polling as in production`);
  let plain: Summary | undefined;
  let notified: Summary | undefined;
  try {
    await withScope(async (scope) => {
      const location = await freshLocation(kind, postgresSource());
      scope.defer(`remove ${kind} store at ${location.where}`, () => location.dispose());
      const gateway = await startGateway(benchGatewayConfig(location), { logSink: () => undefined });
      scope.defer(`close gateway over ${kind}`, () => gateway.close());
      const secret = randomBytes(32).toString('hex').toUpperCase();
      const receivers = await startWebhookReceivers(secret, 1);
      scope.defer('stop the webhook receiver process', () => receivers.close());
      const token = newAccessToken();
      const [without, withWebhook] = await gateway.store.transaction(async (tx) => {
        const first = await createEntity(tx, 'Bench merchant without a webhook');
        const second = await createEntity(tx, 'Bench merchant with a webhook');
        await grantToken(tx, token, 'bench', [first.id, second.id]);
        return [first, second];
      });
      const { webhook } = await createWebhook(gateway.webhooks.services, withWebhook.id, { url: receivers.urls[0]!, secret, types: ['PAYMENT'] });
      if (webhook.status !== 'active') throw new Error('the bench webhook did not activate');
      const headers = { Authorization: `Bearer ${token}`, 'Content-Type': 'application/x-www-form-urlencoded; charset=UTF-8' };
      const measure = async (label: string, entityId: string): Promise<Summary> => {
        const result = await measureHttp(loadSpec(`${gateway.url}/v1/payments`, 'POST', headers, new URLSearchParams(cardPayment(entityId)).toString()));
        const check = checkHttp(label, result);
        printMeasurement(label.slice(3), 'req/s', result.measured, check);
        rows.push({ label, unit: 'req/s', summary: result.measured, check });
        return result.measured;
      };
      plain = await measure(plainLabel, without.id);
      notified = await measure(notifiedLabel, withWebhook.id);

      // The deliveries: every payment event of the notified merchant delivered once, decrypted by the receiver.
      const left = await pendingDeliveries(gateway.store);
      const catchUpStarted = performance.now();
      while ((await pendingDeliveries(gateway.store)) > 0) {
        if (performance.now() - catchUpStarted > DELIVERY_CATCH_UP_LIMIT_MS) throw new Error(`deliveries still pending ${DELIVERY_CATCH_UP_LIMIT_MS / 1000} s after the load`);
        await new Promise((resolve) => setTimeout(resolve, 100));
      }
      const catchUpSeconds = (performance.now() - catchUpStarted) / 1000;
      const events = await gateway.store.query<{ n: number }>("SELECT count(*)::int AS n FROM events WHERE entity_id = $1 AND type = 'PAYMENT'", [withWebhook.id]);
      const expected = events.rows[0]?.n ?? 0;
      const received = await receivers.stats();
      // The activation message is one more notification the receiver decrypted.
      if (received.failed > 0 || received.ok !== expected + 1) {
        throw new Error(`the receiver decrypted ${received.ok} notifications (${received.failed} not) for ${expected} payment events and the activation`);
      }
      console.log(
        `  ${expected} payment events, each delivered and decrypted once; ${left} deliveries were pending when the load stopped, ` +
          `delivered ${catchUpSeconds.toFixed(1)} s later`,
      );
      const ratio = notified.rate / plain.rate;
      ratios.push(
        `${kind}: payments whose webhook is notified ${formatRate(notified.rate)} req/s = ${Math.round(ratio * 100)}% of payments without ` +
          `${formatRate(plain.rate)} req/s (target ≥ ${Math.round(NOTIFIED_PAYMENTS_TARGET_RATIO * 100)}%: delivering costs at most a third of ` +
          `the payment throughput) — ${ratio >= NOTIFIED_PAYMENTS_TARGET_RATIO ? 'meets target' : 'BELOW target'}; ` +
          `${left} deliveries pending at the end of the load, drained ${catchUpSeconds.toFixed(1)} s later`,
      );
    });
  } catch (error) {
    fail(`${kind} delivery cost: ${messageOf(error)}`, `\n!!! ${kind} delivery cost FAILED: ${messageOf(error)} !!!\n`);
    if (!plain) rows.push({ label: plainLabel, unit: 'req/s', summary: undefined, check: `FAILED: ${messageOf(error)}` });
    if (!notified) rows.push({ label: notifiedLabel, unit: 'req/s', summary: undefined, check: `FAILED: ${messageOf(error)}` });
  }
}

// ---------------------------------------------------------------------------------------------------
// H: schedules, a burst due in one second among many that are not

async function benchSchedules(): Promise<void> {
  const takenLabel = `H  ${SCHEDULE_BURST} of ${SCHEDULES} schedules due at once, fire drift, PostgreSQL`;
  const paidLabel = `H  their payments, start drift, PostgreSQL`;
  const instanceCount = 2;
  console.log(`\n[PostgreSQL schedules] ${SCHEDULES} active schedules, ${SCHEDULE_BURST} due in one second, ${instanceCount} gateway processes on one schema`);
  let reported = false;
  try {
    await withScope(async (scope) => {
      const location = await freshLocation('PostgreSQL', postgresSource());
      scope.defer(`remove PostgreSQL store at ${location.where}`, () => location.dispose());
      // The bench's own connection (setup, figures); it migrates the schema before the instances start.
      const store = await openStore({ databaseUrl: location.databaseUrl, dataDir: location.dataDir });
      scope.defer('close the bench connection', () => store.close());
      const cardDataKey = randomBytes(32);
      const instances: schedules.ScheduleInstance[] = [];
      for (let i = 1; i <= instanceCount; i++) {
        const instance = await schedules.startScheduleInstance(location.databaseUrl as string, cardDataKey, location.dataDir);
        scope.defer(`stop schedule instance ${i}`, () => instance.stop());
        instances.push(instance);
      }
      const stats = () => Promise.all(instances.map((instance) => instance.stats()));
      const template = await schedules.createScheduleTemplate(store, instances[0]!.url);
      const few = Math.min(1000, SCHEDULES - SCHEDULE_BURST);
      await schedules.loadFutureSchedules(store, template, 1, few - 1);
      await schedules.sleep(schedules.SCHEDULE_SETTLE_MS);
      const withFew = await stats();
      const loading = performance.now();
      await schedules.loadFutureSchedules(store, template, few, SCHEDULES - SCHEDULE_BURST - few);
      const fireAt = await schedules.loadBurstSchedules(store, template, SCHEDULES - SCHEDULE_BURST, SCHEDULE_BURST);
      const active = await schedules.activeSchedules(store);
      console.log(`  ${active} active schedules (${SCHEDULES - few} more made with SQL in ${((performance.now() - loading) / 1000).toFixed(1)} s); ${SCHEDULE_BURST} due at ${fireAt.toISOString()}`);
      await schedules.sleep(schedules.SCHEDULE_SETTLE_MS);
      const withAll = await stats();
      if (Date.now() > fireAt.getTime() - 100) throw new Error('the burst second came before the instances were measured (loading too slow)');
      // The noise a busy gateway lives with: merchants' payments on every instance from before the fire time until
      // after the taking, from the bench's own load generator (a process per instance).
      const warmupSeconds = Math.max(1, Math.floor((fireAt.getTime() - Date.now()) / 1000) - 1);
      const noise = Promise.all(
        instances.map((instance) =>
          measureHttp({
            url: `${instance.url}/v1/payments`,
            method: 'POST',
            headers: { Authorization: `Bearer ${template.token}`, 'Content-Type': 'application/x-www-form-urlencoded' },
            body: new URLSearchParams(cardPayment(template.entityId)).toString(),
            connections: Math.max(1, Math.round(CONNECTIONS / instances.length)),
            warmupSeconds,
            durationSeconds: SCHEDULE_NOISE_SECONDS,
          }),
        ),
      );
      const finished = await schedules.waitForBurst(store, fireAt, SCHEDULE_BURST, SCHEDULE_BURST_LIMIT_MS);
      const noiseResults = await noise;
      const noiseRate = noiseResults.reduce((sum, result) => sum + result.measured.rate, 0);
      const noiseFailures = noiseResults.filter((result) => hasFailures(result.measured)).length;
      if (noiseFailures > 0) fail(`H schedules: the payment load beside the burst had failed answers on ${noiseFailures} instance(s)`);
      console.log(
        `  beside the burst: ${formatRate(noiseRate)} merchant payments/s over ${instances.length} instances (${CONNECTIONS} connections, from ${warmupSeconds} s before the fire time for ${SCHEDULE_NOISE_SECONDS} s)`,
      );
      const atEnd = await stats();
      const figures = await schedules.burstFigures(store, fireAt, atEnd);
      const statements = schedules.statementsBetween(withAll, atEnd);
      schedules.printBurst({ burst: SCHEDULE_BURST, finished, figures, statements, memory: [[few, withFew], [SCHEDULES, withAll], ['after the burst', atEnd]] });
      const { ms, drift, memory } = schedules.format;

      // Payments still being made at the limit are a figure (a slow machine), not a failure; a wrong count is.
      const complete = finished >= SCHEDULE_BURST;
      const problems = await schedules.checkBurst(store, fireAt, SCHEDULE_BURST, complete);
      const done = complete ? `all ${SCHEDULE_BURST} paid once` : `${finished} of ${SCHEDULE_BURST} paid once in ${SCHEDULE_BURST_LIMIT_MS / 1000} s`;
      const check = problems.length === 0 ? done : `FAILED: ${problems.join('; ')}`;
      for (const problem of problems) fail(`H schedules: ${problem}`);
      const secondsTaking = figures.queued.max / 1000;
      const meets = figures.taken.p99 <= SCHEDULE_DRIFT_TARGET_MS;
      rows.push({
        label: takenLabel,
        unit: 'fire/s',
        summary: { count: figures.executions, seconds: secondsTaking, rate: figures.takenPerSecond, p50: figures.taken.p50, p99: figures.taken.p99 },
        check: `max ${ms(figures.taken.max)}; p99 ≤ ${SCHEDULE_DRIFT_TARGET_MS} ms: ${meets ? 'meets target' : 'BELOW target'}`,
      });
      rows.push({
        label: paidLabel,
        unit: 'pay/s',
        summary: { count: finished, seconds: figures.lastFinishedMs / 1000, rate: figures.paymentsPerSecond, p50: figures.started.p50, p99: figures.started.p99 },
        check,
      });
      reported = true;
      const growth = withAll.map((s, i) => (s.heapUsed - (withFew[i]?.heapUsed ?? 0)) / (SCHEDULES - few));
      // A timer or any object kept per schedule would cost well over 100 bytes each; 20 is the GC's noise over 99,000.
      const grows = growth.some((bytes) => bytes > 20);
      ratios.push(
        `PostgreSQL: ${SCHEDULE_BURST} of ${SCHEDULES} schedules due in one second, ${instanceCount} instance processes, ${formatRate(noiseRate)} merchant payments/s beside: fire drift (taken) ${drift(figures.taken)} ` +
          `(target p99 ≤ ${SCHEDULE_DRIFT_TARGET_MS} ms) — ${meets ? 'meets target' : 'BELOW target'}; payments started ${drift(figures.started)}, ` +
          `${formatRate(figures.paymentsPerSecond)} payments/s, the last finished ${(figures.lastFinishedMs / 1000).toFixed(1)} s after the fire time`,
        `PostgreSQL: scheduler memory per instance, heap after GC / RSS: ${few} schedules ${memory(withFew)} MB, ${SCHEDULES} ${memory(withAll)} MB ` +
          `(${growth.map((bytes) => `${bytes.toFixed(1)}`).join(' / ')} bytes of heap per added schedule) — ${grows ? 'GROWS with the number of schedules' : 'does not grow with the number of schedules'}`,
      );
    });
  } catch (error) {
    fail(`PostgreSQL schedules: ${messageOf(error)}`, `\n!!! PostgreSQL schedules FAILED: ${messageOf(error)} !!!\n`);
    if (!reported) rows.push({ label: takenLabel, unit: 'fire/s', summary: undefined, check: `FAILED: ${messageOf(error)}` });
  }
}

// ---------------------------------------------------------------------------------------------------
// R and T, sections of their own files (smartRetry.ts, throttling.ts), with this file's knobs, clean-up and report

const sectionContext: BenchSectionContext = {
  load: { connections: CONNECTIONS, warmupSeconds: WARMUP_SECONDS, durationSeconds: DURATION_SECONDS },
  gatewayConfig: benchGatewayConfig,
  withScope,
  checkHttp,
  row: (label, summary, check) => rows.push({ label, unit: 'req/s', summary, check }),
  ratio: (text) => ratios.push(text),
  fail: (failure) => fail(failure),
};

// ---------------------------------------------------------------------------------------------------

function printTable(): void {
  const header = ['measurement', 'rate', 'p50 ms', 'p99 ms', 'count', 'check'];
  const body = rows.map((row) => [
    row.label,
    row.summary ? `${formatRate(row.summary.rate)} ${row.unit}` : '—',
    row.summary ? formatMs(row.summary.p50) : '—',
    row.summary ? formatMs(row.summary.p99) : '—',
    row.summary ? String(row.summary.count) : '—',
    row.check,
  ]);
  const widths = header.map((title, i) => Math.max(title.length, ...body.map((cells) => (cells[i] ?? '').length)));
  const line = (cells: string[]) =>
    cells.map((cell, i) => (i >= 1 && i <= 4 ? cell.padStart(widths[i]!) : cell.padEnd(widths[i]!))).join('  ').trimEnd();
  console.log(line(header));
  console.log(widths.map((w) => '-'.repeat(w)).join('  '));
  for (const cells of body) console.log(line(cells));
}

async function main(): Promise<void> {
  const started = performance.now();
  const cpus = os.cpus();
  const source = postgresSource();
  const loadBefore = os.loadavg()[0] ?? 0;
  console.log('Payment gateway bench');
  console.log(
    `machine: ${cpus.length} CPUs (${cpus[0]?.model.trim() ?? 'unknown'}), ${Math.round(os.totalmem() / 2 ** 30)} GiB, ` +
      `${os.platform()} ${os.release()}, node ${process.version}, load average ${os.loadavg().map((l) => l.toFixed(2)).join(' ')}`,
  );
  console.log(
    `method: ${CONNECTIONS} connections / concurrent loops, ${WARMUP_SECONDS} s warm-up + ${DURATION_SECONDS} s measured each, ` +
      `loopback ${HOST}; HTTP load by autocannon in a separate process; rate = completed / measured seconds; ` +
      'latency percentiles over every operation in the window',
  );
  const kinds: StoreKind[] = STORES.includes('PGlite') ? ['PGlite'] : [];
  if (!STORES.includes('PostgreSQL')) {
    console.log('stores: PGlite only (BENCH_STORES)');
  } else if (source) {
    kinds.push('PostgreSQL');
    console.log(`stores: ${kinds.length === 2 ? 'PGlite (temp dir), ' : ''}PostgreSQL from ${source.variable}=${displayUrl(source.url)} (own temp schema)`);
  } else {
    console.log('stores: PGlite only — PostgreSQL SKIPPED: neither TEST_DATABASE_URL nor DATABASE_URL is set');
  }

  const honoRate = ONLY ? undefined : (await baselineHono())?.rate;
  for (const kind of ONLY === 'H' ? [] : kinds) {
    if (interrupted) break;
    if (!ONLY || ONLY === 'C') {
      const payments = await benchStore(kind, honoRate);
      if (!interrupted && !ONLY) await benchWebhooks(kind, payments);
    }
    if (!interrupted && (!ONLY || ONLY === 'G')) await benchDeliveryCost(kind);
    if (!interrupted && (!ONLY || ONLY === 'R')) await benchSmartRetry(kind, sectionContext);
    if (!interrupted && (!ONLY || ONLY === 'T')) await benchThrottling(kind, sectionContext);
    if (!interrupted && (!ONLY || ONLY === 'Q')) await benchQuery(kind, sectionContext);
    if (!interrupted && (!ONLY || ONLY === 'U')) await benchReconciliationFile(kind, sectionContext);
    if (!interrupted && (!ONLY || ONLY === 'V')) await benchDashboard(kind, sectionContext);
  }
  if (!interrupted && (!ONLY || ONLY === 'L')) await benchLegacyCredentials(sectionContext);
  if (!interrupted && (!ONLY || ONLY === 'P')) await benchPaymentCost(kinds, sectionContext);
  if (!interrupted && (!ONLY || ONLY === 'W')) await benchAcquirerWait(kinds, sectionContext);
  if (!interrupted && (!ONLY || ONLY === 'O')) await benchOppConnector(kinds, sectionContext);
  if (!interrupted && (!ONLY || ONLY === 'S')) await benchStartup(sectionContext);
  if (source && !interrupted && (!ONLY || ONLY === 'M')) await benchInstances(sectionContext);
  if (source && !interrupted && (!ONLY || ONLY === 'H')) await benchSchedules();
  if (interrupted) return; // the signal handler cleans up and exits

  try {
    if (!ONLY || ONLY === 'X') await measureWidget();
  } catch (error) {
    failures.push(`widget figures: ${error instanceof Error ? error.message : String(error)}`);
  }

  console.log(`\n=== Summary (${CONNECTIONS} connections, ${DURATION_SECONDS} s each, node ${process.version}, ${cpus.length} CPUs) ===`);
  printTable();
  if (!source) console.log('PostgreSQL: SKIPPED (set TEST_DATABASE_URL or DATABASE_URL to include it)');
  console.log('');
  for (const ratio of ratios) console.log(ratio);
  const loadNow = os.loadavg()[0] ?? 0;
  console.log(
    `\ntotal bench time ${((performance.now() - started) / 1000).toFixed(1)} s; 1-min load average before ${loadBefore.toFixed(2)}, after ${loadNow.toFixed(2)}`,
  );
  if (loadBefore > cpus.length * 0.5) {
    console.log(`note: the machine was already busy before the run (load ${loadBefore.toFixed(2)} on ${cpus.length} CPUs): figures are noisy`);
  }
  if (failures.length > 0) {
    console.error(`\n!!! BENCH RUN HAD ${failures.length} FAILURE(S) — figures above are not trustworthy !!!`);
    for (const failure of failures) console.error(`!!!   ${failure}`);
    process.exitCode = 1;
  }
}

main()
  .catch((error: unknown) => {
    console.error('!!! bench crashed:', error);
    process.exitCode = 1;
  })
  .finally(() => {
    if (!interrupted) process.exit();
  });
