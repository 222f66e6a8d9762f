import { startGateway, type RunningGateway } from '../server/gateway.ts';
import { createEntity, grantToken, newAccessToken } from '../server/merchants/repository.ts';
import { countStatements, type CountedStore, type StatementCounts } from '../server/store/statementCount.ts';
import { cardPayment, testCard } from '../server/testing/harness.ts';
import { measureHttpCost, type HttpCost } from './cost.ts';
import type { LoadSpec } from './load-protocol.ts';
import { freshLocation, postgresSource, type StoreKind } from './locations.ts';
import type { BenchSectionContext } from './section.ts';
import { formatMs, formatRate } from './stats.ts';

/**
 * P: what one payment costs the gateway (issue 23), per store, for the three ways a card payment is made: POST
 * /v1/payments (DB with a typed card), POST /v1/registrations/{id}/payments (DB with a stored card) and the widget's
 * submit of a checkout, POST /v1/checkouts/{id}/payment (no Authorization; each of the checkouts made beforehand is
 * paid once). Per payment of the measured window: the CPU time of this process (the gateway and its embedded store;
 * the load generator is a process of its own: cost.ts), and the statements, transactions and round trips the store
 * was asked (store/statementCount.ts: a statement is a query or exec call; a transaction's BEGIN and COMMIT are not
 * statements, each is a round trip; the drivers do not pipeline, so a statement is a round trip). The job workers
 * poll as in production (once a second): their few statements a second count too. Under load, group commit writes
 * the attempts, payments and acquirer records of concurrent payments in shared statements, so those figures are
 * shares; the same counts for payments made one at a time (ALONE of each, after the load) are what one payment asks.
 */

const FORM = 'application/x-www-form-urlencoded; charset=UTF-8';
/** Checkouts made beforehand, per payment/s of the typed-card load, per second of the submit load (with a margin). */
const CHECKOUT_MARGIN = 1.5;
/** Payments made one after the other, after each load, to count what one payment alone asks of the store. */
const ALONE = 50;
/** Checkouts made at once while preparing them. */
const CHECKOUT_CREATION_CONCURRENCY = 10;

type Way = 'POST /v1/payments' | 'POST /v1/registrations/{id}/payments' | 'POST /v1/checkouts/{id}/payment';

interface Measured {
  readonly kind: StoreKind;
  readonly way: Way;
  readonly cost: HttpCost;
  /** Statements, transactions and round trips per payment made one at a time. */
  readonly alone: StatementCounts;
}

async function post(url: string, headers: Record<string, string>, fields: Record<string, string>): Promise<{ status: number; body: { id?: string; result?: { code?: string } } }> {
  const response = await fetch(url, { method: 'POST', headers, body: new URLSearchParams(fields).toString() });
  return { status: response.status, body: (await response.json().catch(() => ({}))) as { id?: string } };
}

/** `count` checkouts of the entity (DB, 92.00 EUR), made over HTTP as a merchant's server makes them. */
async function createCheckouts(gateway: RunningGateway, headers: Record<string, string>, entityId: string, count: number): Promise<string[]> {
  const ids: string[] = [];
  const loop = async () => {
    while (ids.length < count) {
      const created = await post(`${gateway.url}/v1/checkouts`, headers, { entityId, amount: '92.00', currency: 'EUR', paymentType: 'DB' });
      if (created.status !== 200 || created.body.id === undefined) throw new Error(`a checkout could not be made: HTTP ${created.status} ${JSON.stringify(created.body)}`);
      ids.push(created.body.id);
    }
  };
  await Promise.all(Array.from({ length: CHECKOUT_CREATION_CONCURRENCY }, loop));
  return ids;
}

async function benchStore(kind: StoreKind, context: BenchSectionContext): Promise<Measured[]> {
  const measured: Measured[] = [];
  await context.withScope(async (scope) => {
    const location = await freshLocation(kind, postgresSource());
    scope.defer(`remove ${kind} store at ${location.where}`, () => location.dispose());
    let counted: CountedStore | undefined;
    const gateway = await startGateway(context.gatewayConfig(location), {
      logSink: () => undefined,
      wrapStore: (store) => (counted = countStatements(store)).store,
    });
    scope.defer(`close gateway over ${kind} (payment cost)`, () => gateway.close());
    const counts = (counted as CountedStore).counts;
    const token = newAccessToken();
    const entity = await gateway.store.transaction(async (tx) => {
      const created = await createEntity(tx, 'Bench payment cost merchant');
      await grantToken(tx, token, 'bench', [created.id]);
      return created;
    });
    const headers = { Authorization: `Bearer ${token}`, 'Content-Type': FORM };
    const perPaymentAlone = async (pay: () => Promise<{ status: number }>): Promise<StatementCounts> => {
      const before = counts();
      for (let i = 0; i < ALONE; i++) {
        const answer = await pay();
        if (answer.status !== 200) throw new Error(`a payment made alone was answered HTTP ${answer.status}`);
      }
      const after = counts();
      return {
        statements: (after.statements - before.statements) / ALONE,
        transactions: (after.transactions - before.transactions) / ALONE,
        roundTrips: (after.roundTrips - before.roundTrips) / ALONE,
      };
    };
    const measure = async (way: Way, spec: LoadSpec, pay: () => Promise<{ status: number }>): Promise<HttpCost> => {
      const label = `P  ${way}, ${kind}`;
      const cost = await measureHttpCost(spec, counts);
      const check = context.checkHttp(label, cost.result);
      const per = cost.perAnswer;
      console.log(
        `  ${way}: ${formatRate(cost.result.measured.rate)} payments/s, p50 ${formatMs(cost.result.measured.p50)} ms; per payment ` +
          `CPU ${cost.cpuMsPerAnswer.toFixed(2)} ms, ${per?.statements.toFixed(1)} statements, ${per?.transactions.toFixed(2)} transactions, ` +
          `${per?.roundTrips.toFixed(1)} round trips — ${check}`,
      );
      context.row(label, cost.result.measured, check);
      const alone = await perPaymentAlone(pay);
      console.log(`    one at a time: ${alone.statements.toFixed(1)} statements, ${alone.transactions.toFixed(1)} transactions, ${alone.roundTrips.toFixed(1)} round trips`);
      measured.push({ kind, way, cost, alone });
      return cost;
    };

    // A probe first: a gateway that does not approve the bench payment is broken, not slow.
    const probe = await post(`${gateway.url}/v1/payments`, headers, cardPayment(entity.id));
    if (probe.status !== 200) throw new Error(`the probe payment was answered HTTP ${probe.status} ${JSON.stringify(probe.body)}`);
    const typed = await measure('POST /v1/payments', {
      url: `${gateway.url}/v1/payments`,
      method: 'POST',
      headers,
      body: new URLSearchParams(cardPayment(entity.id)).toString(),
      ...context.load,
    }, () => post(`${gateway.url}/v1/payments`, headers, cardPayment(entity.id)));

    const registration = await post(`${gateway.url}/v1/registrations`, headers, { entityId: entity.id, ...testCard() });
    if (registration.status !== 200 || registration.body.id === undefined) throw new Error(`the bench card was not stored (HTTP ${registration.status})`);
    const storedPayment = { entityId: entity.id, amount: '92.00', currency: 'EUR', paymentType: 'DB' };
    await measure('POST /v1/registrations/{id}/payments', {
      url: `${gateway.url}/v1/registrations/${registration.body.id}/payments`,
      method: 'POST',
      headers,
      body: new URLSearchParams(storedPayment).toString(),
      ...context.load,
    }, () => post(`${gateway.url}/v1/registrations/${registration.body.id}/payments`, headers, storedPayment));

    // As many checkouts as the submit load can pay: the typed-card rate over warm-up and window, and a margin.
    const seconds = context.load.warmupSeconds + context.load.durationSeconds;
    const needed = Math.ceil(typed.result.measured.rate * seconds * CHECKOUT_MARGIN) + 2 * context.load.connections;
    const making = performance.now();
    const ids = await createCheckouts(gateway, headers, entity.id, needed + ALONE);
    const aloneIds = ids.splice(needed);
    console.log(`  (${ids.length} checkouts made in ${((performance.now() - making) / 1000).toFixed(1)} s for the submits)`);
    const submits = await measure('POST /v1/checkouts/{id}/payment', {
      url: `${gateway.url}/v1/checkouts/${ids[0]}/payment`,
      paths: ids.map((id) => `/v1/checkouts/${id}/payment`),
      method: 'POST',
      headers: { 'Content-Type': FORM },
      body: new URLSearchParams(testCard()).toString(),
      ...context.load,
    }, () => post(`${gateway.url}/v1/checkouts/${aloneIds.pop()}/payment`, { 'Content-Type': FORM }, testCard()));
    const sent = submits.result.warmup.responses + submits.result.measured.responses;
    if (sent > ids.length) context.fail(`P  ${kind}: the submit load ran out of checkouts (${sent} answers, ${ids.length} checkouts)`);
  });
  return measured;
}

function printTable(measured: readonly Measured[]): void {
  const header = ['store', 'payment', 'payments/s', 'CPU ms', 'statements', 'transactions', 'round trips', 'alone: statements', 'transactions', 'round trips'];
  const body = measured.map(({ kind, way, cost, alone }) => [
    kind,
    way,
    formatRate(cost.result.measured.rate),
    cost.cpuMsPerAnswer.toFixed(2),
    cost.perAnswer?.statements.toFixed(1) ?? '—',
    cost.perAnswer?.transactions.toFixed(2) ?? '—',
    cost.perAnswer?.roundTrips.toFixed(1) ?? '—',
    alone.statements.toFixed(1),
    alone.transactions.toFixed(1),
    alone.roundTrips.toFixed(1),
  ]);
  const widths = header.map((title, i) => Math.max(title.length, ...body.map((cells) => (cells[i] ?? '').length)));
  const line = (cells: readonly string[]) => cells.map((cell, i) => (i >= 2 ? cell.padStart(widths[i]!) : cell.padEnd(widths[i]!))).join('  ').trimEnd();
  console.log(`\n  per payment, under load (CPU: the gateway process; statements: the store's) and made alone (${ALONE} one after the other):`);
  console.log(`  ${line(header)}`);
  for (const cells of body) console.log(`  ${line(cells)}`);
}

/** P for every store the bench has (PGlite, and PostgreSQL when configured); its figures also go to the run's summary. */
export async function benchPaymentCost(kinds: readonly StoreKind[], context: BenchSectionContext): Promise<void> {
  console.log(`\n[P] what one payment costs the gateway: CPU time, statements and round trips per payment, ${context.load.connections} connections`);
  const measured: Measured[] = [];
  for (const kind of kinds) {
    try {
      measured.push(...(await benchStore(kind, context)));
    } catch (error) {
      const message = error instanceof Error ? error.message : String(error);
      context.fail(`P  payment cost, ${kind}: ${message}`);
      context.row(`P  payment cost, ${kind}`, undefined, `FAILED: ${message}`);
    }
  }
  if (measured.length === 0) return;
  printTable(measured);
  for (const { kind, way, cost, alone } of measured) {
    const per = cost.perAnswer;
    context.ratio(
      `${kind}: ${way}: CPU ${cost.cpuMsPerAnswer.toFixed(2)} ms per payment (target ≤ 1 ms for a typed card); under load ` +
        `${per?.statements.toFixed(1)} statements, ${per?.transactions.toFixed(2)} transactions, ${per?.roundTrips.toFixed(1)} round trips per payment, ` +
        `alone ${alone.statements.toFixed(1)}, ${alone.transactions.toFixed(1)}, ${alone.roundTrips.toFixed(1)}`,
    );
  }
}
