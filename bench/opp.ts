import { execFileSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { saveCredentials } from '../server/acquirers/credentials.ts';
import { startGateway } from '../server/gateway.ts';
import { createEntity, grantToken, newAccessToken } from '../server/merchants/repository.ts';
import { countStatements, type CountedStore, type StatementCounts } from '../server/store/statementCount.ts';
import { cardPayment, connectorTo } from '../server/testing/harness.ts';
import { startUpstream, type Upstream } from '../server/testing/upstream.ts';
import { measureHttpCost, type HttpCost } from './cost.ts';
import { positiveIntFromEnv } from './env.ts';
import type { LoadResult, LoadSpec, Outcome } from './load-protocol.ts';
import { freshLocation, postgresSource, type StoreKind } from './locations.ts';
import type { BenchSectionContext } from './section.ts';
import { formatMs, formatRate } from './stats.ts';

/**
 * O: the `opp` connector (issue 33), per store: what a live gateway in front of a provider speaking the same API adds
 * to the provider's own figures. The provider (the upstream) is this gateway in test mode in a process of its own
 * (server/testing/upstream.ts: its database in memory, its logging off, its request limits lifted so that nothing the
 * bench sends is refused); the front gateway runs in this process, in live, on the store measured, its one acquirer a
 * connector to the upstream (production's settings: 128 connections at most, 30 s timeout), its merchant's credentials
 * there the upstream's demo merchant's; it logs as in production into a sink that drops the lines, and counts its
 * request limits, set so high that nothing is refused.
 *
 * Measured at 50 connections (POST /v1/payments, DB with the test card), warm-up then a measured window each, in
 * BENCH_OPP_ROUNDS (2) alternated rounds (ABBA: neither always runs first):
 *
 * - direct: straight to the upstream, with its demo merchant's credentials;
 * - through the connector: to the front, which sends each payment to the upstream and records its answer.
 *
 * Then each way once with one connection (a warm-up of at most 1 s, a window of at most 4 s): what the front adds to a
 * payment when none waits behind the others. At 50 connections a closed loop's latency is its connections ÷ its rate
 * (Little's law), so there the added latency is mostly the rate the front loses, sharing the machine's cores.
 *
 * Every answer must be an HTTP 200 with the upstream's success code. Figures: payments/s and p50/p99 of each; the
 * latency the front adds (the front's p50 and p99 minus the direct run's of the same round; targets p50 ≤ 5 ms,
 * p99 ≤ 20 ms); the connector's rate as a share of the direct one; the CPU time this process (the front and its store;
 * the load generator is a process of its own: cost.ts) spends per payment through the connector (target ≤ 1 ms), with
 * the statements and round trips its store was asked per payment (store/statementCount.ts, as section P counts them);
 * and, for comparison, what a payment costs where it is made: a gateway on the simulated acquirer in this process, on the
 * same store kind, measured the same way (as section P does), and the upstream process's own CPU time per payment
 * (from /proc, Linux only) in both runs. Each figure with several rounds is the median of the rounds.
 *
 * On a machine with few cores, the front, the upstream and the load generator share them: the connector's rate and
 * added latency then include the time each process waits for a core; the CPU figures move less with that (a process
 * that batches fewer payments per commit, at a lower rate, spends more per payment).
 */

const CONNECTIONS = 50;
/** The one-connection runs' warm-up and window, at most (the section's knobs otherwise). */
const ALONE_WARMUP_SECONDS = 1;
const ALONE_SECONDS = 4;
const ROUNDS = positiveIntFromEnv('BENCH_OPP_ROUNDS', 2, 9);
const TARGET_ADDED_P50_MS = 5;
const TARGET_ADDED_P99_MS = 20;
const TARGET_CPU_MS = 1;
const ACQUIRER = 'upstream';
const FORM = 'application/x-www-form-urlencoded; charset=UTF-8';
/** The upstream's limits on the bench's merchant there, lifted (the env's largest value: 1,000,000 a minute). */
const UPSTREAM_LIMITS = { THROTTLE_PAYMENT_CREATIONS_PER_MINUTE: '1000000', THROTTLE_REQUESTS_PER_MINUTE: '1000000' };

type Way = 'direct' | 'connector';

interface Round {
  readonly direct: Run;
  readonly connector: Run;
}

interface Run {
  readonly cost: HttpCost;
  /** The upstream process's CPU time per answer of the measured window (ms), when it can be read. */
  readonly upstreamCpuMs: number | undefined;
}

interface Figures {
  readonly kind: StoreKind;
  readonly rounds: readonly Round[];
  /** Both ways with one connection: what the front adds to one payment when nothing waits for a core or a turn. */
  readonly alone: Round;
  /** A payment made on the simulated acquirer by a gateway in this process, measured the same way. */
  readonly simulator: HttpCost | undefined;
}

function median(values: readonly number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  if (sorted.length === 0) return Number.NaN;
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1 ? (sorted[middle] as number) : ((sorted[middle - 1] as number) + (sorted[middle] as number)) / 2;
}

/** Clock ticks per second of /proc's CPU times. */
const CLOCK_TICKS = (() => {
  try {
    return Number(execFileSync('getconf', ['CLK_TCK'], { encoding: 'utf8' }).trim()) || 100;
  } catch {
    return 100;
  }
})();

/** A process's CPU time so far (user + system, ms), from /proc; undefined where there is none. */
function processCpuMs(pid: number | undefined): number | undefined {
  if (pid === undefined) return undefined;
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    // Fields after the command (in parentheses, which may hold spaces): state is field 3, utime 14, stime 15.
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return ((Number(fields[11]) + Number(fields[12])) * 1000) / CLOCK_TICKS;
  } catch {
    return undefined;
  }
}

async function post(url: string, headers: Record<string, string>, fields: Record<string, string>): Promise<{ status: number; body: { id?: string; result?: { code?: string } } }> {
  const response = await fetch(url, { method: 'POST', headers, body: new URLSearchParams(fields).toString() });
  return { status: response.status, body: (await response.json().catch(() => ({}))) as { id?: string; result?: { code?: string } } };
}

/** The answers that were not the upstream's success, per window, as failures. */
function answerProblems(result: LoadResult): string[] {
  const problems: string[] = [];
  for (const [window, outcome] of [
    ['warm-up', result.warmup],
    ['measured', result.measured],
  ] as const satisfies readonly (readonly [string, Outcome])[]) {
    if ((outcome.answerMismatches ?? 0) > 0) problems.push(`${window}: ${outcome.answerMismatches} answers without the success code, e.g. ${outcome.firstMismatch ?? '?'}`);
  }
  return problems;
}

/** One measurement: this process's CPU per answer (cost.ts), the upstream's from /proc, every answer checked. */
async function measure(label: string, spec: LoadSpec, upstream: Upstream | undefined, context: BenchSectionContext, counts?: () => StatementCounts): Promise<Run> {
  const pid = upstream?.process.child.pid;
  let upstreamAtStart: number | undefined;
  const cost = await measureHttpCost(spec, counts, () => {
    upstreamAtStart = processCpuMs(pid);
  });
  const upstreamAtEnd = processCpuMs(pid);
  const check = context.checkHttp(label, cost.result);
  for (const problem of answerProblems(cost.result)) context.fail(`${label}: ${problem}`);
  const { rate, p50, p99 } = cost.result.measured;
  const upstreamCpuMs = upstreamAtStart !== undefined && upstreamAtEnd !== undefined ? (upstreamAtEnd - upstreamAtStart) / Math.max(1, cost.result.measured.responses) : undefined;
  console.log(
    `  ${label.slice(3)}: ${formatRate(rate)} payments/s, p50 ${formatMs(p50)} ms, p99 ${formatMs(p99)} ms; CPU per payment: this process ` +
      `${cost.cpuMsPerAnswer.toFixed(2)} ms${upstreamCpuMs !== undefined ? `, the upstream ${upstreamCpuMs.toFixed(2)} ms` : ''}` +
      `${cost.perAnswer ? `; this process's store: ${cost.perAnswer.statements.toFixed(1)} statements, ${cost.perAnswer.roundTrips.toFixed(1)} round trips` : ''} — ${check}`,
  );
  context.row(label, cost.result.measured, check);
  return { cost, upstreamCpuMs };
}

async function benchStore(kind: StoreKind, context: BenchSectionContext): Promise<Figures> {
  const load = { ...context.load, connections: CONNECTIONS };
  const { measured: rounds, alone } = await context.withScope(async (scope) => {
    const upstream = await startUpstream(UPSTREAM_LIMITS);
    scope.defer('stop the upstream process', () => upstream.close());
    const location = await freshLocation(kind, postgresSource());
    scope.defer(`remove ${kind} store at ${location.where}`, () => location.dispose());
    let counted: CountedStore | undefined;
    const front = await startGateway(
      {
        ...context.gatewayConfig(location),
        environment: 'live',
        acquirers: [ACQUIRER],
        defaultAcquirer: ACQUIRER,
        // As ACQUIRERS_FILE's defaults make it (acquirerConfig.ts), loopback allowed.
        connectors: { [ACQUIRER]: connectorTo(upstream.url, { timeoutMs: 30_000, neverReceivedAfterMs: 300_000, maxConnections: 128 }) },
        // A live gateway keeps no generated key beside its embedded store (vault/key.ts).
        cardDataKey: randomBytes(32),
        simulatedSettlementMinutes: 0,
        simulatedAcquirerLatencyMs: 0,
        testControlApi: false,
        outboundAllowPrivate: true,
      },
      { logSink: () => undefined, wrapStore: (store) => (counted = countStatements(store)).store },
    );
    const frontCounts = (counted as CountedStore).counts;
    scope.defer(`close the front gateway over ${kind}`, () => front.close());
    const token = newAccessToken();
    const entity = await front.store.transaction(async (tx) => {
      const created = await createEntity(tx, 'Bench merchant paying through the opp connector');
      await grantToken(tx, token, 'bench', [created.id]);
      await saveCredentials(tx, front.payments.vault, created.id, ACQUIRER, upstream.credentials, new Date());
      return created;
    });

    // Probes first: a payment either way that is not approved, or not made at the upstream, is a broken bench, not a slow one.
    const directHeaders = { Authorization: `Bearer ${upstream.credentials.accessToken}`, 'Content-Type': FORM };
    const frontHeaders = { Authorization: `Bearer ${token}`, 'Content-Type': FORM };
    const direct = await post(`${upstream.url}/v1/payments`, directHeaders, cardPayment(upstream.credentials.entityId));
    const code = direct.body.result?.code;
    if (direct.status !== 200 || code === undefined) throw new Error(`the upstream answered the probe payment HTTP ${direct.status} ${JSON.stringify(direct.body)}`);
    const through = await post(`${front.url}/v1/payments`, frontHeaders, cardPayment(entity.id));
    if (through.status !== 200 || through.body.result?.code !== code) throw new Error(`the front answered the probe payment HTTP ${through.status} ${JSON.stringify(through.body)}`);
    const made = await front.store.query<{ acquirer: string; acquirer_reference: string | null }>('SELECT acquirer, acquirer_reference FROM payments WHERE id = $1', [through.body.id]);
    const reference = made.rows[0]?.acquirer_reference;
    if (made.rows[0]?.acquirer !== ACQUIRER || !reference) throw new Error(`the front's probe payment was not made at the upstream: ${JSON.stringify(made.rows[0])}`);
    const atUpstream = await upstream.api('GET', `/v1/payments/${reference}`);
    if (atUpstream.status !== 200) throw new Error(`the upstream does not know the front's probe payment ${reference}: HTTP ${atUpstream.status}`);

    const success = `"code":"${code}"`;
    const specs: Record<Way, LoadSpec> = {
      direct: {
        url: `${upstream.url}/v1/payments`,
        method: 'POST',
        headers: directHeaders,
        requests: [{ body: new URLSearchParams(cardPayment(upstream.credentials.entityId)).toString(), answerIncludes: success }],
        ...load,
      },
      connector: {
        url: `${front.url}/v1/payments`,
        method: 'POST',
        headers: frontHeaders,
        requests: [{ body: new URLSearchParams(cardPayment(entity.id)).toString(), answerIncludes: success }],
        ...load,
      },
    };
    const labels: Record<Way, string> = { direct: 'POST /v1/payments on the upstream (direct)', connector: 'POST /v1/payments on the front, through the connector' };
    const measured: Round[] = [];
    for (let round = 1; round <= ROUNDS; round++) {
      // ABBA: neither way always runs first (on a warming process, or a machine whose other load drifts).
      const order: Way[] = round % 2 === 1 ? ['direct', 'connector'] : ['connector', 'direct'];
      const runs: Partial<Record<Way, Run>> = {};
      for (const way of order) runs[way] = await measure(`O  ${labels[way]}, ${kind} (round ${round})`, specs[way], upstream, context, way === 'connector' ? frontCounts : undefined);
      measured.push({ direct: runs.direct as Run, connector: runs.connector as Run });
    }
    // One payment at a time each way: the front's own time, without the queue 50 connections make on a busy machine.
    const single = { connections: 1, warmupSeconds: Math.min(load.warmupSeconds, ALONE_WARMUP_SECONDS), durationSeconds: Math.min(load.durationSeconds, ALONE_SECONDS) };
    const alone: Round = {
      direct: await measure(`O  ${labels.direct}, 1 connection, ${kind}`, { ...specs.direct, ...single }, upstream, context),
      connector: await measure(`O  ${labels.connector}, 1 connection, ${kind}`, { ...specs.connector, ...single }, upstream, context, frontCounts),
    };
    return { measured, alone };
  });

  // What a payment costs a gateway that makes it itself: one on the simulated acquirer in this process, the same store kind.
  let simulator: HttpCost | undefined;
  try {
    simulator = await context.withScope(async (scope) => {
      const location = await freshLocation(kind, postgresSource());
      scope.defer(`remove ${kind} store at ${location.where}`, () => location.dispose());
      let counted: CountedStore | undefined;
      const gateway = await startGateway(context.gatewayConfig(location), { logSink: () => undefined, wrapStore: (store) => (counted = countStatements(store)).store });
      scope.defer(`close the simulator gateway over ${kind}`, () => gateway.close());
      const token = newAccessToken();
      const entity = await gateway.store.transaction(async (tx) => {
        const created = await createEntity(tx, 'Bench merchant paying on the simulator');
        await grantToken(tx, token, 'bench', [created.id]);
        return created;
      });
      const headers = { Authorization: `Bearer ${token}`, 'Content-Type': FORM };
      const probe = await post(`${gateway.url}/v1/payments`, headers, cardPayment(entity.id));
      if (probe.status !== 200) throw new Error(`the simulator gateway answered the probe payment HTTP ${probe.status} ${JSON.stringify(probe.body)}`);
      const spec: LoadSpec = { url: `${gateway.url}/v1/payments`, method: 'POST', headers, body: new URLSearchParams(cardPayment(entity.id)).toString(), ...load };
      return (await measure(`O  POST /v1/payments on a gateway on the simulator in this process, ${kind}`, spec, undefined, context, (counted as CountedStore).counts)).cost;
    });
  } catch (error) {
    const message = error instanceof Error ? error.message : String(error);
    context.fail(`O  the simulator gateway's payment cost, ${kind}: ${message}`);
  }
  return { kind, rounds, alone, simulator };
}

function report({ kind, rounds, alone, simulator }: Figures, context: BenchSectionContext): void {
  const of = (way: Way, figure: (run: Run) => number) => median(rounds.map((round) => figure(round[way])));
  const direct = { rate: of('direct', (r) => r.cost.result.measured.rate), p50: of('direct', (r) => r.cost.result.measured.p50), p99: of('direct', (r) => r.cost.result.measured.p99) };
  const connector = { rate: of('connector', (r) => r.cost.result.measured.rate), p50: of('connector', (r) => r.cost.result.measured.p50), p99: of('connector', (r) => r.cost.result.measured.p99) };
  // Added latency and share per round (each against the direct run beside it), then their medians.
  const addedP50 = median(rounds.map((r) => r.connector.cost.result.measured.p50 - r.direct.cost.result.measured.p50));
  const addedP99 = median(rounds.map((r) => r.connector.cost.result.measured.p99 - r.direct.cost.result.measured.p99));
  const share = median(rounds.map((r) => r.connector.cost.result.measured.rate / r.direct.cost.result.measured.rate));
  const frontCpu = of('connector', (r) => r.cost.cpuMsPerAnswer);
  const frontTrips = of('connector', (r) => r.cost.perAnswer?.roundTrips ?? Number.NaN);
  const trips = (value: number | undefined) => (value === undefined || Number.isNaN(value) ? '' : `, ${value.toFixed(1)} store round trips`);
  const upstreamCpu = (way: Way) => {
    const values = rounds.map((r) => r[way].upstreamCpuMs).filter((value): value is number => value !== undefined);
    return values.length === rounds.length ? `${median(values).toFixed(2)} ms` : 'n/a';
  };
  const meets = addedP50 <= TARGET_ADDED_P50_MS && addedP99 <= TARGET_ADDED_P99_MS && frontCpu <= TARGET_CPU_MS;
  const lines = [
    `${kind}: direct on the upstream ${formatRate(direct.rate)} payments/s, p50 ${formatMs(direct.p50)} ms, p99 ${formatMs(direct.p99)} ms; ` +
      `through the connector ${formatRate(connector.rate)} payments/s (${(share * 100).toFixed(0)}% of direct), p50 ${formatMs(connector.p50)} ms, p99 ${formatMs(connector.p99)} ms`,
    `${kind}: the front adds p50 ${formatMs(addedP50)} ms (target ≤ ${TARGET_ADDED_P50_MS}), p99 ${formatMs(addedP99)} ms (target ≤ ${TARGET_ADDED_P99_MS}); ` +
      `its CPU ${frontCpu.toFixed(2)} ms per payment${trips(frontTrips)} (target ≤ ${TARGET_CPU_MS} ms; a payment on the simulator in this process: ` +
      `${simulator ? `${simulator.cpuMsPerAnswer.toFixed(2)} ms${trips(simulator.perAnswer?.roundTrips)}, ${formatRate(simulator.result.measured.rate)}/s` : 'n/a'}; the upstream process per payment: ` +
      `direct ${upstreamCpu('direct')}, through the connector ${upstreamCpu('connector')}) — ${meets ? 'meets targets' : 'BELOW target'}`,
    `${kind}: one payment at a time (1 connection): direct p50 ${formatMs(alone.direct.cost.result.measured.p50)} ms, p99 ${formatMs(alone.direct.cost.result.measured.p99)} ms; ` +
      `through the connector p50 ${formatMs(alone.connector.cost.result.measured.p50)} ms, p99 ${formatMs(alone.connector.cost.result.measured.p99)} ms; the front adds ` +
      `p50 ${formatMs(alone.connector.cost.result.measured.p50 - alone.direct.cost.result.measured.p50)} ms, p99 ${formatMs(alone.connector.cost.result.measured.p99 - alone.direct.cost.result.measured.p99)} ms ` +
      `(its CPU ${alone.connector.cost.cpuMsPerAnswer.toFixed(2)} ms per payment)`,
  ];
  console.log(`\n  ${kind} (median of ${rounds.length} round${rounds.length === 1 ? '' : 's'}):`);
  for (const line of lines) {
    console.log(`  ${line.slice(kind.length + 2)}`);
    context.ratio(`opp connector, ${line}`);
  }
}

/** O on every store the bench has: one upstream process per store, started afresh (its database in memory). */
export async function benchOppConnector(kinds: readonly StoreKind[], context: BenchSectionContext): Promise<void> {
  console.log(
    `\n[O] the opp connector: POST /v1/payments on the upstream (a test-mode gateway process) directly, then on a live front gateway ` +
      `in this process whose acquirer is a connector to it; ${CONNECTIONS} connections, ${ROUNDS} alternated rounds`,
  );
  for (const kind of kinds) {
    try {
      report(await benchStore(kind, context), context);
    } catch (error) {
      const message = error instanceof Error ? error.message : String(error);
      context.fail(`O  opp connector, ${kind}: ${message}`);
      context.row(`O  POST /v1/payments through the opp connector, ${kind}`, undefined, `FAILED: ${message}`);
    }
  }
}
