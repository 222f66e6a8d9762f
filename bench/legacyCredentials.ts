import { startGateway } from '../server/gateway.ts';
import { issueLegacyCredentials } from '../server/merchants/legacyCredentials.ts';
import { createEntity, grantToken, newAccessToken } from '../server/merchants/repository.ts';
import { cardPayment } from '../server/testing/harness.ts';
import { measureHttpCost } from './cost.ts';
import type { LoadSpec } from './load-protocol.ts';
import { freshLocation } from './locations.ts';
import type { BenchSectionContext } from './section.ts';
import { formatMs, formatRate, type Summary } from './stats.ts';

/**
 * L: what legacy credentials (COMPAT §1) cost POST /v1/payments. One gateway on PGlite, one merchant with an access
 * token and a legacy pair; the same debit sent with `Authorization: Bearer`, then as php-oppwa sends it
 * (authentication.userId / password / entityId in the body, no header), alternated over BENCH_LEGACY_ROUNDS rounds (5)
 * on the same store. The pair's scrypt check (about 0.2 s of a core) runs once; after that a legacy request costs an
 * HMAC and a cache hit, as a token costs a cache hit (TOKEN_CACHE_SECONDS as in production). Target: legacy at least
 * 95% of Bearer (the KDF is not on the hot path).
 *
 * Two figures, each the median of the rounds: payments per second, and the CPU time this process (the gateway and its
 * embedded store; the load generator is a process of its own) spent per payment of the measured window (cost.ts). On
 * a machine other work shares, the rate moves with that work from one window to the next; the CPU time per payment
 * hardly does, so it is the figure that says what a pair costs next to a token.
 */

const TARGET_RATIO = 0.95;
const ROUNDS = Math.max(1, Math.min(9, Number(process.env.BENCH_LEGACY_ROUNDS) || 5));

type Variant = 'Bearer token' | 'legacy pair in the body';

function median(values: readonly number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1 ? (sorted[middle] as number) : ((sorted[middle - 1] as number) + (sorted[middle] as number)) / 2;
}

export async function benchLegacyCredentials(context: BenchSectionContext): Promise<void> {
  console.log(`\n[L] legacy credentials' cost to POST /v1/payments, PGlite, ${ROUNDS} rounds of Bearer / legacy pair`);
  const rates: Record<Variant, number[]> = { 'Bearer token': [], 'legacy pair in the body': [] };
  const cpuPerPayment: Record<Variant, number[]> = { 'Bearer token': [], 'legacy pair in the body': [] };
  try {
    await context.withScope(async (scope) => {
      const location = await freshLocation('PGlite', undefined);
      scope.defer(`remove PGlite store at ${location.where}`, () => location.dispose());
      const gateway = await startGateway(context.gatewayConfig(location), { logSink: () => undefined });
      scope.defer('close gateway (legacy credentials)', () => gateway.close());
      const token = newAccessToken();
      const { entity, pair } = await gateway.store.transaction(async (tx) => {
        const created = await createEntity(tx, 'Bench legacy merchant');
        await grantToken(tx, token, 'bench', [created.id]);
        return { entity: created, pair: await issueLegacyCredentials(tx, [created.id], 'bench') };
      });
      const { entityId: _entityId, ...payment } = cardPayment(entity.id);
      const entityId = entity.id;
      const form = 'application/x-www-form-urlencoded; charset=UTF-8';
      const specs: Record<Variant, LoadSpec> = {
        'Bearer token': {
          url: `${gateway.url}/v1/payments`,
          method: 'POST',
          headers: { Authorization: `Bearer ${token}`, 'Content-Type': form },
          body: new URLSearchParams({ entityId, ...payment }).toString(),
          ...context.load,
        },
        'legacy pair in the body': {
          url: `${gateway.url}/v1/payments`,
          method: 'POST',
          headers: { 'Content-Type': form },
          body: new URLSearchParams({ 'authentication.userId': pair.userId, 'authentication.password': pair.password, 'authentication.entityId': entityId, ...payment }).toString(),
          ...context.load,
        },
      };
      for (let round = 1; round <= ROUNDS; round++) {
        // ABBA: neither variant always runs first (on a warming process, or a machine whose other load drifts).
        const order: Variant[] = round % 2 === 1 ? ['Bearer token', 'legacy pair in the body'] : ['legacy pair in the body', 'Bearer token'];
        for (const variant of order) {
          const label = `L  POST /v1/payments, ${variant}, PGlite (round ${round})`;
          const { result, cpuMsPerAnswer: cpuMs } = await measureHttpCost(specs[variant]);
          const check = context.checkHttp(label, result);
          const summary: Summary = result.measured;
          console.log(
            `  ${variant}, round ${round}: ${formatRate(summary.rate)} payments/s, p50 ${formatMs(summary.p50)} ms, p99 ${formatMs(summary.p99)} ms, ` +
              `CPU ${cpuMs.toFixed(2)} ms per payment (${summary.count} in ${summary.seconds.toFixed(2)} s) — ${check}`,
          );
          context.row(label, summary, check);
          rates[variant].push(summary.rate);
          cpuPerPayment[variant].push(cpuMs);
        }
      }
    });
  } catch (error) {
    const message = error instanceof Error ? error.message : String(error);
    context.fail(`L  legacy credentials: ${message}`);
    context.row('L  POST /v1/payments, legacy credentials, PGlite', undefined, `FAILED: ${message}`);
    return;
  }
  if (rates['Bearer token'].length === 0 || rates['legacy pair in the body'].length === 0) return;
  const bearer = median(rates['Bearer token']);
  const legacy = median(rates['legacy pair in the body']);
  const bearerCpu = median(cpuPerPayment['Bearer token']);
  const legacyCpu = median(cpuPerPayment['legacy pair in the body']);
  const figures = [
    { ratio: legacy / bearer, text: `payments/s, legacy pair / Bearer token`, of: `${formatRate(legacy)} / ${formatRate(bearer)} payments/s` },
    { ratio: bearerCpu / legacyCpu, text: 'CPU per payment, Bearer token / legacy pair', of: `${bearerCpu.toFixed(2)} / ${legacyCpu.toFixed(2)} ms` },
  ];
  for (const figure of figures) {
    const text =
      `L  PGlite: ${figure.text} = ${(figure.ratio * 100).toFixed(1)}% (medians of ${ROUNDS}: ${figure.of}; target ≥ ${TARGET_RATIO * 100}%)` +
      (figure.ratio >= TARGET_RATIO ? '' : '  BELOW TARGET');
    console.log(`  ${text}`);
    context.ratio(text);
  }
}
