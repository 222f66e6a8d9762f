import { randomBytes } from 'node:crypto';
import type { GatewayConfig } from '../server/config.ts';
import { startGateway } from '../server/gateway.ts';
import { createEntity, grantToken, newAccessToken } from '../server/merchants/repository.ts';
import { cardPayment } from '../server/testing/harness.ts';
import { MAX_LIMIT } from '../server/throttling/limits.ts';
import { measureHttp } from './http-load.ts';
import type { BenchSectionContext } from './section.ts';
import type { LoadSpec } from './load-protocol.ts';
import { freshLocation, postgresSource, type StoreKind } from './locations.ts';
import { formatMs, formatRate, type Summary } from './stats.ts';

/**
 * T: what throttling (COMPAT §17) costs the payments it counts. POST /v1/payments (DB, test card) on a gateway with
 * the entity's request limits off (requestsPerMinute and paymentCreationsPerMinute 0: nothing counted), then counted
 * as the store's gateway counts (in memory over PGlite, in PostgreSQL's throttle_counters), then counted in Redis (BENCH_REDIS_URL, default redis://127.0.0.1:6379), each on a fresh store
 * location, the limits so high that nothing is refused: every payment is two counts (the entity's requests and its
 * payments made). Target: counted at least 90% of the rate without.
 */

/** Counted payments as a share of payments without counting (issue 14: throttling costs less than 10%). */
const TARGET_RATIO = 0.9;
const REDIS_URL = process.env.BENCH_REDIS_URL || process.env.THROTTLE_REDIS_URL || 'redis://127.0.0.1:6379';

type Variant = 'off' | 'store' | 'Redis';

/** Where a gateway over `kind` counts without Redis: in memory over the embedded store, in PostgreSQL otherwise. */
const where = (kind: StoreKind, variant: Exclude<Variant, 'off'>): string => (variant === 'Redis' ? 'in Redis' : kind === 'PGlite' ? 'in memory' : 'in PostgreSQL');

async function measure(kind: StoreKind, variant: Variant, context: BenchSectionContext): Promise<Summary | undefined> {
  const label = `T  POST /v1/payments, throttling ${variant === 'off' ? 'off' : `counted ${where(kind, variant)}`}, ${kind}`;
  try {
    return await context.withScope(async (scope) => {
      const location = await freshLocation(kind, postgresSource());
      scope.defer(`remove ${kind} store at ${location.where}`, () => location.dispose());
      const base = context.gatewayConfig(location);
      const counted = variant === 'off' ? 0 : MAX_LIMIT;
      const config: GatewayConfig = {
        ...base,
        limits: { ...base.limits, requestsPerMinute: counted, paymentCreationsPerMinute: counted },
        throttle: variant === 'Redis' ? { redisUrl: REDIS_URL, redisKeyPrefix: `bench:${randomBytes(6).toString('hex')}:` } : { ...base.throttle, redisUrl: undefined },
      };
      const gateway = await startGateway(config, { logSink: () => undefined });
      scope.defer(`close gateway (${variant}) over ${kind}`, () => gateway.close());
      const token = newAccessToken();
      const entity = await gateway.store.transaction(async (tx) => {
        const created = await createEntity(tx, 'Bench merchant');
        await grantToken(tx, token, 'bench', [created.id]);
        return created;
      });
      const spec: LoadSpec = {
        url: `${gateway.url}/v1/payments`,
        method: 'POST',
        headers: { Authorization: `Bearer ${token}`, 'Content-Type': 'application/x-www-form-urlencoded; charset=UTF-8' },
        body: new URLSearchParams(cardPayment(entity.id)).toString(),
        ...context.load,
      };
      const result = await measureHttp(spec);
      const check = context.checkHttp(label, result);
      const summary = result.measured;
      console.log(
        `  throttling ${variant}: ${formatRate(summary.rate)} payments/s, p50 ${formatMs(summary.p50)} ms, p99 ${formatMs(summary.p99)} ms ` +
          `(${summary.count} in ${summary.seconds.toFixed(2)} s) — ${check}`,
      );
      context.row(label, summary, check);
      return summary;
    });
  } catch (error) {
    const message = error instanceof Error ? error.message : String(error);
    context.fail(`${label}: ${message}`);
    context.row(label, undefined, `FAILED: ${message}`);
    return undefined;
  }
}

/** Rounds of the three variants, alternated: one run each is within this machine's noise (±20% seen). */
const ROUNDS = Math.max(1, Math.min(9, Number(process.env.BENCH_THROTTLE_ROUNDS) || 3));

function median(values: readonly number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1 ? (sorted[middle] as number) : ((sorted[middle - 1] as number) + (sorted[middle] as number)) / 2;
}

export async function benchThrottling(kind: StoreKind, context: BenchSectionContext): Promise<void> {
  console.log(`\n[T] throttling's cost to POST /v1/payments, ${kind} (Redis: ${REDIS_URL}), ${ROUNDS} rounds of off / counted / Redis`);
  const rates: Record<Variant, number[]> = { off: [], store: [], Redis: [] };
  for (let round = 0; round < ROUNDS; round++) {
    for (const variant of ['off', 'store', 'Redis'] as const) {
      const summary = await measure(kind, variant, context);
      if (summary) rates[variant].push(summary.rate);
    }
  }
  if (rates.off.length === 0) return;
  const off = median(rates.off);
  for (const name of ['store', 'Redis'] as const) {
    if (rates[name].length === 0 || off === 0) continue;
    const ratio = median(rates[name]) / off;
    const text =
      `T  ${kind}: throttling counted ${where(kind, name)} / off = ${(ratio * 100).toFixed(1)}% ` +
      `(medians of ${ROUNDS}: ${formatRate(median(rates[name]))} / ${formatRate(off)} payments/s; target ≥ ${TARGET_RATIO * 100}%)${ratio >= TARGET_RATIO ? '' : '  BELOW TARGET'}`;
    console.log(`  ${text}`);
    context.ratio(text);
  }
}
