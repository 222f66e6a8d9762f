import { startGateway } from '../server/gateway.ts';
import { createEntity, grantToken, newAccessToken } from '../server/merchants/repository.ts';
import type { Store } from '../server/store/index.ts';
import { cardPayment } from '../server/testing/harness.ts';
import { measureHttp } from './http-load.ts';
import type { LoadResult } from './load-protocol.ts';
import { freshLocation, postgresSource, type StoreKind } from './locations.ts';
import type { BenchSectionContext } from './section.ts';
import { formatMs, formatRate } from './stats.ts';
import { measureStoreInserts } from './store-load.ts';

/**
 * W: payments waiting on the acquirer (issue 23), per store. A real acquirer answers after a few hundred milliseconds;
 * while it does, a payment must cost the gateway nothing but memory, so throughput is bounded by the payments in
 * flight, not by the gateway. The simulated acquirers answer after 200 ms (SIMULATED_ACQUIRER_LATENCY_MS) and
 * autocannon keeps 500 payments in flight (POST /v1/payments, DB with a card): payments/s against the ideal, 500 ÷
 * 0.2 s = 2,500/s, or the store's raw insert+commit rate if lower (section B's loops, measured on the same store
 * first); the latency the gateway adds to the acquirer's 200 ms (p50/p99 − 200 ms); the gateway process's memory (RSS
 * and heap, the highest sampled in the measured window). Then the same at 50 connections without latency, against
 * the raw rate. Targets: ≥ 90% of the ideal, p99 added latency ≤ 50 ms.
 */

const LATENCY_MS = 200;
const WAITING_CONNECTIONS = 500;
const PLAIN_CONNECTIONS = 50;
const TARGET_SHARE = 0.9;
const TARGET_ADDED_P99_MS = 50;
const MEMORY_SAMPLE_MS = 250;
/** The raw insert rate's warm-up and window, at most (section B's knobs otherwise). */
const RAW_WARMUP_SECONDS = 1;
const RAW_SECONDS = 4;
const MB = 2 ** 20;

interface Memory {
  readonly rss: number;
  readonly heapUsed: number;
}

/** The highest RSS and heap of this process (the gateway's) from the start of the measured window to its end. */
async function withPeakMemory(run: (onMeasuring: () => void) => Promise<LoadResult>): Promise<{ result: LoadResult; peak: Memory }> {
  let peak: Memory = { rss: 0, heapUsed: 0 };
  let timer: NodeJS.Timeout | undefined;
  const sample = () => {
    const { rss, heapUsed } = process.memoryUsage();
    peak = { rss: Math.max(peak.rss, rss), heapUsed: Math.max(peak.heapUsed, heapUsed) };
  };
  try {
    const result = await run(() => {
      sample();
      timer = setInterval(sample, MEMORY_SAMPLE_MS);
    });
    sample();
    return { result, peak };
  } finally {
    clearInterval(timer);
  }
}

const mb = (bytes: number) => `${(bytes / MB).toFixed(0)} MB`;

async function benchStore(kind: StoreKind, context: BenchSectionContext): Promise<void> {
  await context.withScope(async (scope) => {
    const location = await freshLocation(kind, postgresSource());
    scope.defer(`remove ${kind} store at ${location.where}`, () => location.dispose());

    /** One gateway, its acquirers answering after `latencyMs`, loaded by `connections`; `ceilingOf` what it is compared with. */
    const measure = async (latencyMs: number, connections: number, ceilingOf: (entityId: string, store: Store) => Promise<number>) => {
      const gateway = await startGateway({ ...context.gatewayConfig(location), simulatedAcquirerLatencyMs: latencyMs }, { logSink: () => undefined });
      try {
        const token = newAccessToken();
        const headers = { Authorization: `Bearer ${token}`, 'Content-Type': 'application/x-www-form-urlencoded; charset=UTF-8' };
        const entity = await gateway.store.transaction(async (tx) => {
          const created = await createEntity(tx, `Bench merchant, acquirer answering after ${latencyMs} ms`);
          await grantToken(tx, token, 'bench', [created.id]);
          return created;
        });
        const ceiling = await ceilingOf(entity.id, gateway.store);
        const before = process.memoryUsage();
        const { result, peak } = await withPeakMemory((onMeasuring) =>
          measureHttp(
            {
              url: `${gateway.url}/v1/payments`,
              method: 'POST',
              headers,
              body: new URLSearchParams(cardPayment(entity.id)).toString(),
              ...context.load,
              connections,
            },
            onMeasuring,
          ),
        );
        return { result, peak, before, ceiling };
      } finally {
        await gateway.close();
      }
    };

    // The store's own limit, as section B measures it (its concurrency, on this very store, the HTTP server idle), in
    // a shorter window: the section stays within about a minute.
    let raw = 0;
    const rawRate = async (entityId: string, store: Store) => {
      const { connections: concurrency, warmupSeconds, durationSeconds } = context.load;
      const window = { warmupSeconds: Math.min(warmupSeconds, RAW_WARMUP_SECONDS), durationSeconds: Math.min(durationSeconds, RAW_SECONDS) };
      raw = (await measureStoreInserts(store, { concurrency, ...window, entityId })).measured.rate;
      return raw;
    };
    const waiting = await measure(LATENCY_MS, WAITING_CONNECTIONS, async (entityId, store) => Math.min(WAITING_CONNECTIONS / (LATENCY_MS / 1000), await rawRate(entityId, store)));
    const plain = await measure(0, PLAIN_CONNECTIONS, async () => raw);

    for (const [label, run, connections, latency] of [
      [`W  POST /v1/payments, acquirer after ${LATENCY_MS} ms, ${WAITING_CONNECTIONS} connections, ${kind}`, waiting, WAITING_CONNECTIONS, LATENCY_MS],
      [`W  POST /v1/payments, no acquirer latency, ${PLAIN_CONNECTIONS} connections, ${kind}`, plain, PLAIN_CONNECTIONS, 0],
    ] as const) {
      const check = context.checkHttp(label, run.result);
      const { rate, p50, p99 } = run.result.measured;
      const share = rate / run.ceiling;
      const ideal =
        latency > 0
          ? `ideal ${formatRate(run.ceiling)}/s (${connections} ÷ ${latency / 1000} s = ${formatRate(connections / (latency / 1000))}, raw insert ${formatRate(raw)})`
          : `raw insert ${formatRate(raw)}/s`;
      const memory = `RSS ${mb(run.before.rss)} before the load, at most ${mb(run.peak.rss)} in the window; heap ${mb(run.before.heapUsed)}, at most ${mb(run.peak.heapUsed)}`;
      console.log(
        `  ${label.slice(3)}: ${formatRate(rate)} payments/s = ${(share * 100).toFixed(0)}% of ${ideal}; p50 ${formatMs(p50)} ms, p99 ${formatMs(p99)} ms` +
          (latency > 0 ? ` (added: p50 ${formatMs(p50 - latency)} ms, p99 ${formatMs(p99 - latency)} ms)` : '') +
          `; ${memory} — ${check}`,
      );
      context.row(label, run.result.measured, check);
      const verdict =
        latency > 0
          ? ` (targets ≥ ${TARGET_SHARE * 100}%, p99 added ≤ ${TARGET_ADDED_P99_MS} ms) — ${share >= TARGET_SHARE && p99 - latency <= TARGET_ADDED_P99_MS ? 'meets targets' : 'BELOW target'}`
          : '';
      context.ratio(
        `${kind}: ${connections} payments in flight, acquirer answering after ${latency} ms: ${formatRate(rate)} payments/s = ${(share * 100).toFixed(0)}% of ${ideal}; ` +
          `p50/p99 ${latency > 0 ? 'added ' : ''}${formatMs(p50 - latency)} / ${formatMs(p99 - latency)} ms; gateway ${memory}${verdict}`,
      );
    }
  });
}

/** W on every store the bench has; the acquirer's latency is the gateway's setting, made for this section's gateways only. */
export async function benchAcquirerWait(kinds: readonly StoreKind[], context: BenchSectionContext): Promise<void> {
  console.log(
    `\n[W] payments waiting on the acquirer: ${WAITING_CONNECTIONS} connections with the simulated acquirer answering after ${LATENCY_MS} ms, ` +
      `then ${PLAIN_CONNECTIONS} without latency`,
  );
  for (const kind of kinds) {
    try {
      await benchStore(kind, context);
    } catch (error) {
      const message = error instanceof Error ? error.message : String(error);
      context.fail(`W  acquirer wait, ${kind}: ${message}`);
      context.row(`W  POST /v1/payments, acquirer wait, ${kind}`, undefined, `FAILED: ${message}`);
    }
  }
}
