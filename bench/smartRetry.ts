import { randomBytes } from 'node:crypto';
import type { GatewayConfig } from '../server/config.ts';
import { startGateway, type RunningGateway } from '../server/gateway.ts';
import { createEntity, grantToken, newAccessToken } from '../server/merchants/repository.ts';
import type { Store } from '../server/store/index.ts';
import { cardPayment } from '../server/testing/harness.ts';
import { measureHttp } from './http-load.ts';
import type { BenchSectionContext } from './section.ts';
import type { LoadRequest, Outcome } from './load-protocol.ts';
import { freshLocation, postgresSource, type StoreKind } from './locations.ts';
import { formatMs, formatRate, type Summary } from './stats.ts';

/**
 * R: what smart retry (COMPAT §15) costs under load. One gateway with two acquirers (`simulator`, the default, and
 * `fallback`), smart retry switched on for the bench merchants through the admin API, POST /v1/payments DB with a
 * card: first payments all approved by the default acquirer, then a mix in which every second payment is
 * soft-declined by the default acquirer (`card.holder=800.100.100`, a code of the default list) and made again at the
 * fallback. A retried payment is two acquirer calls and three transactions more than a plain one (the rejection and
 * the switch to the fallback's attempt, the fallback's record), so the mix is expected to be slower; the figure says
 * by how much.
 *
 * Afterwards, from the stores' own rows: every retried payment is one rejection at the default acquirer (queryable,
 * named by the answer) and one approved payment at the fallback, each acquirer asked once, no attempt left open, no
 * payment doubled; and every answer to a soft-declined request carried `SoftDeclineFallback` (checked by the load
 * generator on each answer), every answer to a plain one did not.
 */

/** A code of the default soft-reject list: the simulator's first acquirer answers it, the fallback approves. */
const SOFT_DECLINE = '800.100.100';
const APPROVED = '"code":"000.100.110"';
const MARKED = '"SoftDeclineFallback":"true"';

interface Merchant {
  readonly entityId: string;
  readonly headers: Record<string, string>;
}

/** Smart retry on for the entity, set as an operator sets it: PUT /admin/v1/entities/{id}/smart-retry. */
async function switchOnSmartRetry(gateway: RunningGateway, adminToken: string, entityId: string): Promise<void> {
  const response = await fetch(`${gateway.url}/admin/v1/entities/${entityId}/smart-retry`, {
    method: 'PUT',
    headers: { Authorization: `Bearer ${adminToken}`, 'Content-Type': 'application/json' },
    body: JSON.stringify({ fallbackAcquirer: 'fallback' }),
  });
  const body = (await response.json().catch(() => undefined)) as { smartRetry?: { inEffect?: boolean } } | undefined;
  if (response.status !== 200 || body?.smartRetry?.inEffect !== true) {
    throw new Error(`smart retry could not be switched on for ${entityId}: HTTP ${response.status} ${JSON.stringify(body)}`);
  }
}

async function newMerchant(gateway: RunningGateway, adminToken: string, name: string): Promise<Merchant> {
  const token = newAccessToken();
  const entity = await gateway.store.transaction(async (tx) => {
    const created = await createEntity(tx, name);
    await grantToken(tx, token, 'bench', [created.id]);
    return created;
  });
  await switchOnSmartRetry(gateway, adminToken, entity.id);
  return { entityId: entity.id, headers: { Authorization: `Bearer ${token}`, 'Content-Type': 'application/x-www-form-urlencoded; charset=UTF-8' } };
}

const plainRequest = (entityId: string): LoadRequest => ({
  body: new URLSearchParams(cardPayment(entityId)).toString(),
  answerIncludes: APPROVED,
  answerExcludes: 'SoftDecline',
});
const softDeclinedRequest = (entityId: string): LoadRequest => ({
  body: new URLSearchParams(cardPayment(entityId, { 'card.holder': SOFT_DECLINE })).toString(),
  answerIncludes: MARKED,
});

/** One request of each kind first, so a broken set-up is reported as such, not as a figure. */
async function probe(url: string, merchant: Merchant, request: LoadRequest, what: string): Promise<void> {
  const response = await fetch(url, { method: 'POST', headers: merchant.headers, body: request.body });
  const text = await response.text();
  const right =
    response.status === 200 &&
    text.includes(APPROVED) &&
    (request.answerIncludes === undefined || text.includes(request.answerIncludes)) &&
    (request.answerExcludes === undefined || !text.includes(request.answerExcludes));
  if (!right) throw new Error(`the probe ${what} was answered HTTP ${response.status}: ${text.slice(0, 400)}`);
}

/** Answers whose text was not what their request asks for (the load generator checks every one). */
function answerProblems(window: string, outcome: Outcome): string[] {
  if ((outcome.answerMismatches ?? 0) === 0) return [];
  return [`${window}: ${outcome.answerMismatches} answers not as expected, e.g. ${outcome.firstMismatch ?? '?'}`];
}

interface PaymentCounts {
  readonly plain: number;
  readonly plainRight: number;
  readonly retried: number;
  readonly retriedRight: number;
  readonly attemptsWithoutPayment: number;
  readonly rejections: number;
  readonly rejectionsNamed: number;
  readonly rejectionsNamedTwice: number;
  readonly payments: number;
  readonly openAttempts: number;
}

/**
 * The merchant's payments as the stores hold them: per payment id the attempts and what each acquirer recorded, the
 * rejections and which approved payment names each.
 */
async function countPayments(store: Store, entityId: string): Promise<PaymentCounts> {
  const perPayment = await store.query<Record<string, number>>(
    `WITH per_payment AS (
       SELECT a.payment_id,
              count(*) FILTER (WHERE a.acquirer = 'simulator') AS at_default,
              count(*) FILTER (WHERE a.acquirer = 'fallback') AS at_fallback,
              count(o.attempt_id) FILTER (WHERE a.acquirer = 'simulator') AS asked_default,
              count(o.attempt_id) FILTER (WHERE a.acquirer = 'fallback') AS asked_fallback,
              count(*) FILTER (WHERE a.outcome IS DISTINCT FROM 'recorded') AS unrecorded
         FROM acquirer_attempts a LEFT JOIN simulator_operations o ON o.acquirer = a.acquirer AND o.attempt_id = a.id
        WHERE a.entity_id = $1
        GROUP BY a.payment_id)
     SELECT count(*) FILTER (WHERE p.acquirer = 'simulator')::int AS plain,
            count(*) FILTER (WHERE p.acquirer = 'simulator' AND p.status = 'approved' AND p.result_details->>'SoftDeclineFallback' IS NULL
                             AND at_default = 1 AND at_fallback = 0 AND asked_default = 1 AND unrecorded = 0)::int AS "plainRight",
            count(*) FILTER (WHERE p.acquirer = 'fallback')::int AS retried,
            count(*) FILTER (WHERE p.acquirer = 'fallback' AND p.status = 'approved' AND p.result_details->>'SoftDeclineFallback' = 'true'
                             AND at_default = 1 AND at_fallback = 1 AND asked_default = 1 AND asked_fallback = 1 AND unrecorded = 0)::int AS "retriedRight",
            count(*) FILTER (WHERE p.id IS NULL)::int AS "attemptsWithoutPayment"
       FROM per_payment pp LEFT JOIN payments p ON p.id = pp.payment_id`,
    [entityId],
  );
  const rejections = await store.query<Record<string, number>>(
    `WITH named AS (
       SELECT f.result_details->>'SoftDeclineTransactionId' AS rejected_id
         FROM payments f WHERE f.entity_id = $1 AND f.acquirer = 'fallback')
     SELECT (SELECT count(*) FROM payments r WHERE r.entity_id = $1 AND r.acquirer = 'simulator' AND r.result_code = $2 AND r.status = 'declined')::int AS rejections,
            (SELECT count(DISTINCT r.id) FROM payments r JOIN named n ON r.id = n.rejected_id
              WHERE r.entity_id = $1 AND r.acquirer = 'simulator' AND r.result_code = $2)::int AS "rejectionsNamed",
            (SELECT count(*) FROM (SELECT rejected_id FROM named GROUP BY rejected_id HAVING count(*) > 1) twice)::int AS "rejectionsNamedTwice",
            (SELECT count(*) FROM payments WHERE entity_id = $1)::int AS payments,
            (SELECT count(*) FROM acquirer_attempts WHERE entity_id = $1 AND finished_at IS NULL)::int AS "openAttempts"`,
    [entityId, SOFT_DECLINE],
  );
  return { ...(perPayment.rows[0] as object), ...(rejections.rows[0] as object) } as PaymentCounts;
}

/** How long the checks wait for the requests still in flight when the load stopped (the gateway finishes them). */
const SETTLE_LIMIT_MS = 30_000;

/** Waits until none of the merchant's attempts is open: the payments answered after the load stopped are recorded. */
async function settled(store: Store, entityId: string): Promise<boolean> {
  const started = performance.now();
  for (;;) {
    const open = await store.query<{ n: number }>('SELECT count(*)::int AS n FROM acquirer_attempts WHERE entity_id = $1 AND finished_at IS NULL', [entityId]);
    if ((open.rows[0]?.n ?? 0) === 0) return true;
    if (performance.now() - started > SETTLE_LIMIT_MS) return false;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

/** What is wrong with the merchant's payments, if anything. */
function paymentProblems(counts: PaymentCounts, mix: boolean): string[] {
  const problems: string[] = [];
  if (counts.plainRight !== counts.plain) problems.push(`${counts.plain - counts.plainRight} of ${counts.plain} plain payments not one approved attempt at the default acquirer`);
  if (counts.retriedRight !== counts.retried) {
    problems.push(`${counts.retried - counts.retriedRight} of ${counts.retried} retried payments not exactly one rejected + one approved fallback attempt, marked`);
  }
  if (counts.attemptsWithoutPayment > 0) problems.push(`${counts.attemptsWithoutPayment} payment ids with attempts but no payment`);
  if (counts.openAttempts > 0) problems.push(`${counts.openAttempts} attempts left open`);
  if (counts.rejections !== counts.retried || counts.rejectionsNamed !== counts.retried || counts.rejectionsNamedTwice > 0) {
    problems.push(`${counts.rejections} rejections, ${counts.rejectionsNamed} named by a retried payment (${counts.rejectionsNamedTwice} twice), for ${counts.retried} retried payments`);
  }
  if (counts.payments !== counts.plain + counts.retried + counts.rejections) problems.push(`${counts.payments} payment rows, not plain + retried + rejections`);
  if (mix ? counts.retried === 0 : counts.retried > 0) problems.push(mix ? 'no payment was retried' : `${counts.retried} plain payments were retried`);
  return problems;
}

function print(label: string, summary: Summary, extra: string): void {
  console.log(
    `  ${label}: ${formatRate(summary.rate)} req/s, p50 ${formatMs(summary.p50)} ms, p99 ${formatMs(summary.p99)} ms ` +
      `(${summary.count} in ${summary.seconds.toFixed(2)} s) — ${extra}`,
  );
}

export async function benchSmartRetry(kind: StoreKind, context: BenchSectionContext): Promise<void> {
  const plainLabel = `R  POST /v1/payments, smart retry on, all approved at once, ${kind}`;
  const mixLabel = `R  POST /v1/payments, half soft-declined and retried at the fallback, ${kind}`;
  console.log(`\n[${kind} smart retry] one gateway, ACQUIRERS=simulator,fallback, smart retry on for the bench merchants (admin API)`);
  let plain: Summary | undefined;
  let mix: Summary | undefined;
  try {
    await context.withScope(async (scope) => {
      const location = await freshLocation(kind, postgresSource());
      scope.defer(`remove ${kind} store at ${location.where}`, () => location.dispose());
      const adminToken = randomBytes(24).toString('hex');
      const config: GatewayConfig = { ...context.gatewayConfig(location), acquirers: ['simulator', 'fallback'], defaultAcquirer: 'simulator', adminToken };
      const gateway = await startGateway(config, { logSink: () => undefined });
      scope.defer(`close gateway over ${kind}`, () => gateway.close());
      const url = `${gateway.url}/v1/payments`;
      const plainMerchant = await newMerchant(gateway, adminToken, 'Bench merchant, smart retry on, plain payments');
      const mixMerchant = await newMerchant(gateway, adminToken, 'Bench merchant, smart retry on, half soft-declined');
      await probe(url, plainMerchant, plainRequest(plainMerchant.entityId), 'payment');
      await probe(url, mixMerchant, softDeclinedRequest(mixMerchant.entityId), 'soft-declined payment');

      const measure = async (label: string, merchant: Merchant, requests: readonly LoadRequest[], mixed: boolean): Promise<Summary> => {
        const result = await measureHttp({ url, method: 'POST', headers: merchant.headers, requests, ...context.load });
        let check = context.checkHttp(label, result);
        const problems = [...answerProblems('warm-up', result.warmup), ...answerProblems('measured', result.measured)];
        if (!(await settled(gateway.store, merchant.entityId))) problems.push(`attempts still open ${SETTLE_LIMIT_MS / 1000} s after the load stopped`);
        const counts = await countPayments(gateway.store, merchant.entityId);
        problems.push(...paymentProblems(counts, mixed));
        for (const problem of problems) context.fail(`${label}: ${problem}`);
        const answered = result.measured.answersByRequest ?? [];
        const answers = mixed ? `answers: ${answered[0] ?? 0} plain, ${answered[1] ?? 0} marked SoftDeclineFallback` : `${answered[0] ?? 0} answers, none marked`;
        const stored = mixed
          ? `stored: ${counts.retried} retried (each one rejection at simulator + one approval at fallback, each acquirer asked once), ${counts.plain} plain`
          : `stored: ${counts.plain} approved at simulator, one attempt each`;
        if (problems.length > 0) check = `FAILED: ${problems.join('; ')}`;
        print(label.slice(3), result.measured, `${check}; ${answers}; ${stored}; ${counts.openAttempts} attempts open`);
        context.row(label, result.measured, problems.length > 0 ? check : `${check}, ${mixed ? `${counts.retried} retried once each` : 'none retried'}`);
        return result.measured;
      };
      plain = await measure(plainLabel, plainMerchant, [plainRequest(plainMerchant.entityId)], false);
      mix = await measure(mixLabel, mixMerchant, [plainRequest(mixMerchant.entityId), softDeclinedRequest(mixMerchant.entityId)], true);
      const ratio = mix.rate / plain.rate;
      context.ratio(
        `${kind}: payments half of which are soft-declined and retried at the fallback ${formatRate(mix.rate)} req/s = ${Math.round(ratio * 100)}% of ` +
          `payments approved at once ${formatRate(plain.rate)} req/s (p99 ${formatMs(mix.p99)} ms vs ${formatMs(plain.p99)} ms)`,
      );
    });
  } catch (error) {
    const message = error instanceof Error ? error.message : String(error);
    context.fail(`${kind} smart retry: ${message}`);
    if (!plain) context.row(plainLabel, undefined, `FAILED: ${message}`);
    if (!mix) context.row(mixLabel, undefined, `FAILED: ${message}`);
  }
}
