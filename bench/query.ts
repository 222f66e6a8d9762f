import { createHash } from 'node:crypto';
import type { GatewayConfig } from '../server/config.ts';
import { formatTimestamp } from '../server/domain/timestamps.ts';
import { startGateway, type RunningGateway } from '../server/gateway.ts';
import { createEntity, grantToken, newAccessToken } from '../server/merchants/repository.ts';
import { cardPayment } from '../server/testing/harness.ts';
import { seedPayments } from '../server/testing/seedPayments.ts';
import { MAX_LIMIT } from '../server/throttling/limits.ts';
import type { BenchSectionContext } from './section.ts';
import { freshLocation, postgresSource, type StoreKind } from './locations.ts';
import { formatMs, summarize, type Summary } from './stats.ts';
import { positiveIntFromEnv } from './env.ts';

/**
 * Q: the query API (COMPAT §14) on a store of BENCH_QUERY_PAYMENTS (1,000,000) payments of one merchant over 100 days,
 * seeded with set-based SQL (copies of one payment the API made: server/testing/seedPayments.ts), then VACUUMed as
 * the store would be (PostgreSQL's autovacuum analyzes too; the embedded store's maintenance only vacuums, and
 * checkpoints). Measured
 * one request after another over HTTP on loopback, each answer checked: GET /v1/query/{id} and by merchantTransactionId
 * (random payments of the million; target p99 ≤ 10 ms), a date range of 500 rows (a two-hour window, limit=500), and
 * the most a range may hold: 31 days (~310,000 payments, all counted for `pages`), its first page and a deep one.
 * Every request counts against the query limits as in production (set so high that nothing is refused).
 */

const PAYMENTS = positiveIntFromEnv('BENCH_QUERY_PAYMENTS', 1_000_000);
const LOOKUPS = positiveIntFromEnv('BENCH_QUERY_LOOKUPS', 2_000);
const WARM_UP = 200;
const SPAN_MS = 100 * 86_400_000;
const LOOKUP_TARGET_MS = 10;
const REFERENCE_PREFIX = 'bench-order-';

interface Seeded {
  readonly gateway: RunningGateway;
  readonly entityId: string;
  readonly headers: Record<string, string>;
  readonly idSeed: string;
  readonly firstAt: Date;
  readonly stepMs: number;
}

const seededId = (idSeed: string, n: number) => createHash('md5').update(`${idSeed}:${n}`).digest('hex');
const randomCopy = () => 1 + Math.floor(Math.random() * PAYMENTS);
const dateParam = (at: Date) => formatTimestamp(at).slice(0, 19);

/** GETs `paths` one after another (the first WARM_UP unmeasured); throws on the first wrong answer. */
async function measure(seeded: Seeded, paths: readonly string[], check: (status: number, text: string, path: string) => string | undefined): Promise<Summary> {
  const latencies: number[] = [];
  let started = 0;
  for (const [index, path] of paths.entries()) {
    if (index === Math.min(WARM_UP, Math.floor(paths.length / 4))) started = performance.now();
    const before = performance.now();
    const response = await fetch(`${seeded.gateway.url}${path}`, { headers: seeded.headers });
    const text = await response.text();
    const elapsed = performance.now() - before;
    const problem = check(response.status, text, path);
    if (problem) throw new Error(`${path.slice(0, 120)}: ${problem} (HTTP ${response.status}: ${text.slice(0, 200)})`);
    if (started > 0) latencies.push(elapsed);
  }
  return summarize(latencies, latencies.length, (performance.now() - started) / 1000);
}

async function seed(kind: StoreKind, config: GatewayConfig): Promise<Seeded> {
  const gateway = await startGateway(config, { logSink: () => undefined });
  const token = newAccessToken();
  const entity = await gateway.store.transaction(async (tx) => {
    const created = await createEntity(tx, 'Bench merchant with a million payments');
    await grantToken(tx, token, 'bench', [created.id]);
    return created;
  });
  const headers = { Authorization: `Bearer ${token}` };
  const made = await fetch(`${gateway.url}/v1/payments`, {
    method: 'POST',
    headers: { ...headers, 'Content-Type': 'application/x-www-form-urlencoded; charset=UTF-8' },
    body: new URLSearchParams(cardPayment(entity.id, { merchantTransactionId: 'bench-template' })).toString(),
  });
  const template = ((await made.json()) as { id?: string }).id;
  if (made.status !== 200 || !template) throw new Error(`the template payment was refused: HTTP ${made.status}`);
  const idSeed = `bench-${Date.now()}`;
  const stepMs = Math.max(1, Math.floor(SPAN_MS / PAYMENTS));
  const firstAt = new Date(Date.now() - SPAN_MS);
  const seeding = performance.now();
  // Mostly debits, some preauthorizations and back-office types, as the filters would meet them.
  await seedPayments(gateway.store, { templateId: template, count: PAYMENTS, idSeed, firstAt, stepMs, merchantTransactionIdPrefix: REFERENCE_PREFIX, paymentTypes: ['DB', 'DB', 'DB', 'PA', 'CP', 'RF'] });
  const seeded = (performance.now() - seeding) / 1000;
  const vacuuming = performance.now();
  if (kind === 'PostgreSQL') await gateway.store.exec('VACUUM ANALYZE payments');
  else {
    await gateway.store.vacuum();
    // What the embedded store's periodic checkpoint does, done now: otherwise the first one after the load writes the
    // seeded pages out in the middle of the measurements (the single connection waits for it).
    await gateway.store.exec('CHECKPOINT');
  }
  const size = await gateway.store.query<{ bytes: string }>("SELECT pg_total_relation_size('payments')::text AS bytes");
  console.log(
    `  ${PAYMENTS} payments seeded in ${seeded.toFixed(1)} s (${Math.round(PAYMENTS / seeded)} rows/s), vacuumed in ` +
      `${((performance.now() - vacuuming) / 1000).toFixed(1)} s; payments table with indexes ${(Number(size.rows[0]?.bytes ?? 0) / 2 ** 20).toFixed(0)} MiB`,
  );
  return { gateway, entityId: entity.id, headers, idSeed, firstAt, stepMs };
}

export async function benchQuery(kind: StoreKind, context: BenchSectionContext): Promise<void> {
  console.log(`\n[Q ${kind}] the query API on ${PAYMENTS} payments of one merchant`);
  const labels = {
    byId: `Q  GET /v1/query/{id}, ${PAYMENTS} payments, ${kind}`,
    byReference: `Q  GET /v1/query?merchantTransactionId=, ${kind}`,
    range: `Q  GET /v1/query 2-hour range, 500 rows (limit=500), ${kind}`,
    month: `Q  GET /v1/query 31-day range, 500 rows, page 1, ${kind}`,
    deep: `Q  GET /v1/query 31-day range, 500 rows, page 300, ${kind}`,
  };
  try {
    await context.withScope(async (scope) => {
      const location = await freshLocation(kind, postgresSource());
      scope.defer(`remove ${kind} store at ${location.where}`, () => location.dispose());
      const base = context.gatewayConfig(location);
      const config: GatewayConfig = { ...base, limits: { ...base.limits, queryReadsPerMinute: MAX_LIMIT, listQueriesPerSecond: MAX_LIMIT } };
      const seeded = await seed(kind, config);
      scope.defer(`close the gateway over ${kind}`, () => seeded.gateway.close());
      const entity = `entityId=${seeded.entityId}`;

      const ids = Array.from({ length: LOOKUPS }, () => seededId(seeded.idSeed, randomCopy()));
      const byId = await measure(seeded, ids.map((id) => `/v1/query/${id}?${entity}`), (status, text, path) =>
        status === 200 && text.includes(`"id":"${path.slice(10, 42)}"`) ? undefined : 'not the payment asked for',
      );
      const references = Array.from({ length: LOOKUPS }, () => `${REFERENCE_PREFIX}${randomCopy()}`);
      const byReference = await measure(seeded, references.map((reference) => `/v1/query?${entity}&merchantTransactionId=${reference}`), (status, text, path) =>
        status === 200 && text.includes(`"merchantTransactionId":"${new URLSearchParams(path.split('?')[1]).get('merchantTransactionId')}"`) ? undefined : 'not the payment asked for',
      );
      const rangeOf = (startMs: number, lengthMs: number) => {
        const from = new Date(seeded.firstAt.getTime() + startMs);
        return `date.from=${encodeURIComponent(dateParam(from))}&date.to=${encodeURIComponent(dateParam(new Date(from.getTime() + lengthMs - 1000)))}`;
      };
      /** A page of 500, or of the ~`rows` the range holds when fewer (a window's edges fall between two payments). */
      const pageOf = (rows: number) => (status: number, text: string) => {
        if (status !== 200) return 'refused';
        const listed = (JSON.parse(text) as { payments?: unknown[] }).payments?.length ?? 0;
        return listed === Math.min(500, rows) || (rows < 500 && Math.abs(listed - rows) <= 1) ? undefined : `${listed} rows instead of ${Math.min(500, rows)}`;
      };
      const twoHours = 2 * 3_600_000;
      const ranges = Array.from({ length: 300 }, () => `/v1/query?${entity}&limit=500&${rangeOf(Math.random() * (SPAN_MS - twoHours), twoHours)}`);
      const range = await measure(seeded, ranges, pageOf(Math.min(500, Math.floor(twoHours / seeded.stepMs))));
      const month = 31 * 86_400_000;
      const months = (pageNo: number) => Array.from({ length: 40 }, () => `/v1/query?${entity}&limit=500&pageNo=${pageNo}&${rangeOf(Math.random() * (SPAN_MS - month), month)}`);
      const monthly = await measure(seeded, months(1), pageOf(500));
      const deep = month / seeded.stepMs >= 300 * 500 ? await measure(seeded, months(300), pageOf(500)) : undefined;

      const lookups: [string, Summary][] = [
        [labels.byId, byId],
        [labels.byReference, byReference],
      ];
      for (const [label, summary] of lookups) context.row(label, summary, `p99 ≤ ${LOOKUP_TARGET_MS} ms: ${summary.p99 <= LOOKUP_TARGET_MS ? 'meets target' : 'BELOW target'}`);
      context.row(labels.range, range, 'all 200, 500 rows each');
      context.row(labels.month, monthly, `all 200, ~${Math.round(month / seeded.stepMs)} payments counted`);
      if (deep) context.row(labels.deep, deep, 'all 200, offset 149,500');
      context.ratio(
        `${kind}: query lookups on ${PAYMENTS} payments, p50/p99: by id ${formatMs(byId.p50)}/${formatMs(byId.p99)} ms, by merchantTransactionId ` +
          `${formatMs(byReference.p50)}/${formatMs(byReference.p99)} ms (target p99 ≤ ${LOOKUP_TARGET_MS} ms) — ` +
          `${Math.max(byId.p99, byReference.p99) <= LOOKUP_TARGET_MS ? 'meets target' : 'BELOW target'}; 500 rows of a 2-hour range ${formatMs(range.p50)}/${formatMs(range.p99)} ms, ` +
          `of a 31-day range ${formatMs(monthly.p50)}/${formatMs(monthly.p99)} ms (page 1)${deep ? `, ${formatMs(deep.p50)}/${formatMs(deep.p99)} ms (page 300)` : ''}`,
      );
    });
  } catch (error) {
    const message = error instanceof Error ? error.message : String(error);
    context.fail(`Q query on ${kind}: ${message}`);
    context.row(labels.byId, undefined, `FAILED: ${message}`);
  }
}
