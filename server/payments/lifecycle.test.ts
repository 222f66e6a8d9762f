import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { lifecycleOf, type Lifecycle, type LifecycleState } from '../domain/backOffice.ts';
import { formatAmount } from '../domain/money.ts';
import { loadConfig, type RequestLimits } from '../config.ts';
import { cardPayment, STORE_KINDS, startTestGateway, warnIfPostgresSkipped, type TestGateway } from '../testing/harness.ts';
import type { ClaimedJob } from '../jobs/repository.ts';
import { LIFECYCLE_BACKFILL_JOB, lifecycleJobHandlers } from './lifecycle.ts';
import { familyTotals, findPaymentsById, lifecycleStates } from './store/payments.ts';

/**
 * A payment's lifecycle (domain/backOffice.ts lifecycleOf) against what the API accepts next, over every sequence of
 * captures, refunds, reversals, chargebacks and their reversals the core allows, to a depth: at each step the rule's
 * offer is tried — what it says is left is accepted, a cent more is refused, a reversal it offers is accepted and one it
 * does not is refused — and the state it gives (and the one the ledger wrote for the list) is the state a plain
 * account of the operations expects.
 */

warnIfPostgresSkipped('the payment lifecycle test');

/** One operation: its type, the payment it references (the first payment, or the latest child of a type), its amount. */
interface Step {
  readonly type: 'CP' | 'RF' | 'RV' | 'CB' | 'CR';
  readonly on: 'root' | 'CP' | 'CB' | 'CR';
  /** In minor units; undefined for a reversal (the whole amount) and a chargeback reversal (the whole chargeback). */
  readonly amountMinor?: number;
}

/** The family as the test knows it: the ids of the root and of the latest child of each type. */
type Family = Partial<Record<Step['on'] | Step['type'], string>>;

/** A plain account of what the operations did to one payment, to check the rule's states by. */
interface Account {
  readonly paymentType: string;
  readonly amountMinor: number;
  captured: number;
  refunded: number;
  reversed: boolean;
  chargebacked: number;
}

/** The family made so far, and the plain account of each of its payments (by id). */
interface Made {
  readonly family: Family;
  readonly accounts: Map<string, Account>;
  /** Which payment each chargeback charged back, and how much. */
  readonly chargebacks: Map<string, { readonly of: string; readonly amountMinor: number }>;
}

const DEPTH: Record<string, number> = { PGlite: 3, PostgreSQL: 2 };

describe.each(STORE_KINDS)('the payment lifecycle on %s', (kind) => {
  let t: TestGateway;

  beforeAll(async () => {
    const limits = Object.fromEntries(Object.keys(loadConfig({}).limits).map((name) => [name, 0])) as unknown as RequestLimits;
    t = await startTestGateway(kind, { limits });
  });
  afterAll(async () => {
    await t?.close();
  });

  const amount = (minor: number) => formatAmount(minor);

  async function lifecycle(id: string): Promise<{ lifecycle: Lifecycle; stored: LifecycleState }> {
    const [payment] = await findPaymentsById(t.gateway.store, [id]);
    if (!payment) throw new Error(`no payment ${id}`);
    const stored = (await lifecycleStates(t.gateway.store, [id])).get(id);
    return { lifecycle: lifecycleOf(payment, await familyTotals(t.gateway.store, id)), stored: stored as LifecycleState };
  }

  /** Makes the operation; whether the API approved it (the transaction it wrote is approved), and its id. */
  async function apply(family: Family, step: Step): Promise<{ approved: boolean; code: string; id: string }> {
    const referenced = family[step.on];
    if (!referenced) throw new Error(`no ${step.on} to reference`);
    const params: Record<string, string> = { entityId: t.entityId, paymentType: step.type };
    if (step.amountMinor !== undefined) Object.assign(params, { amount: amount(step.amountMinor), currency: 'EUR' });
    if (step.type === 'CR') {
      const [chargeback] = await findPaymentsById(t.gateway.store, [referenced]);
      Object.assign(params, { amount: amount(chargeback?.amountMinor ?? 0), currency: 'EUR' });
    }
    const answer = await t.post(`/v1/payments/${referenced}`, params);
    const id = answer.body.id as string;
    const [made] = typeof id === 'string' ? await findPaymentsById(t.gateway.store, [id]) : [];
    return { approved: made?.status === 'approved', code: (answer.body.result as { code: string }).code, id };
  }

  /** The family made anew from its first payment by the steps (each is expected to be approved), with its account. */
  async function replay(rootType: 'PA' | 'DB', steps: readonly Step[]): Promise<Made> {
    const root = await t.post('/v1/payments', cardPayment(t.entityId, { paymentType: rootType, amount: '30.00' }));
    expect(root.status).toBe(200);
    const rootId = root.body.id as string;
    const fresh = (paymentType: string, amountMinor: number): Account => ({ paymentType, amountMinor, captured: 0, refunded: 0, reversed: false, chargebacked: 0 });
    const made: Made = { family: { root: rootId }, accounts: new Map([[rootId, fresh(rootType, 3_000)]]), chargebacks: new Map() };
    for (const step of steps) {
      const referenced = made.family[step.on] as string;
      const done = await apply(made.family, step);
      expect(done.approved, `${JSON.stringify(step)} was approved before: ${done.code}`).toBe(true);
      const account = made.accounts.get(referenced) as Account;
      const stepAmount = step.amountMinor ?? 0;
      if (step.type === 'CP') account.captured += stepAmount;
      if (step.type === 'RF') account.refunded += stepAmount;
      if (step.type === 'RV') account.reversed = true;
      if (step.type === 'CB') {
        account.chargebacked += stepAmount;
        made.chargebacks.set(done.id, { of: referenced, amountMinor: stepAmount });
      }
      if (step.type === 'CR') {
        const chargeback = made.chargebacks.get(referenced);
        if (chargeback) (made.accounts.get(chargeback.of) as Account).chargebacked -= chargeback.amountMinor;
      }
      made.accounts.set(done.id, fresh(step.type, step.type === 'CR' ? (made.chargebacks.get(referenced)?.amountMinor ?? 0) : stepAmount));
      made.family[step.type] = done.id;
    }
    return made;
  }

  /** The state a plain account of the operations on a payment expects. */
  function expectedState(account: Account): LifecycleState {
    if (account.chargebacked > 0) return 'chargedBack';
    if (account.reversed) return 'reversed';
    if (account.paymentType === 'PA') return account.captured === 0 ? 'approved' : account.captured >= account.amountMinor ? 'captured' : 'partiallyCaptured';
    if (account.paymentType === 'DB' || account.paymentType === 'CP') {
      return account.refunded === 0 ? 'approved' : account.refunded >= account.amountMinor ? 'refunded' : 'partiallyRefunded';
    }
    return 'approved';
  }

  /** The operations worth trying next on a family, from the rule's offer on each payment in it. */
  async function candidates(family: Family): Promise<{ step: Step; expected: boolean }[]> {
    const tried: { step: Step; expected: boolean }[] = [];
    for (const on of ['root', 'CP'] as const) {
      const id = family[on];
      if (!id) continue;
      const [payment] = await findPaymentsById(t.gateway.store, [id]);
      const { lifecycle: offer } = await lifecycle(id);
      if (payment?.paymentType === 'PA') {
        const left = offer.capturableMinor;
        if (left > 1) tried.push({ step: { type: 'CP', on, amountMinor: Math.floor(left / 3) }, expected: true });
        if (left > 0) tried.push({ step: { type: 'CP', on, amountMinor: left }, expected: true });
        tried.push({ step: { type: 'CP', on, amountMinor: left + 1 }, expected: false });
      } else {
        const left = offer.refundableMinor;
        if (left > 1) tried.push({ step: { type: 'RF', on, amountMinor: Math.floor(left / 3) }, expected: true });
        if (left > 0) tried.push({ step: { type: 'RF', on, amountMinor: left }, expected: true });
        tried.push({ step: { type: 'RF', on, amountMinor: left + 1 }, expected: false });
        // Chargebacks are not the back office's to offer (they come from the acquirer): made to reach their states.
        // One chargeback per transaction (COMPAT §15).
        if (left > 0 && !family.CB) tried.push({ step: { type: 'CB', on, amountMinor: left }, expected: true });
      }
      tried.push({ step: { type: 'RV', on }, expected: offer.reversible });
    }
    if (family.CB && !family.CR) tried.push({ step: { type: 'CR', on: 'CB' }, expected: true });
    return tried;
  }

  /** Every payment of the family is in the state its account expects, as the rule says and as the ledger wrote it. */
  async function checkStates(made: Made, steps: readonly Step[]): Promise<void> {
    for (const [id, account] of made.accounts) {
      const { lifecycle: now, stored } = await lifecycle(id);
      const expected = expectedState(account);
      expect(now.state, `${account.paymentType} after ${JSON.stringify(steps)}`).toBe(expected);
      expect(stored, `the state written for the list of ${account.paymentType} after ${JSON.stringify(steps)}`).toBe(expected);
    }
  }

  it.each(['PA', 'DB'] as const)('offers on a %s exactly what the API accepts next, through every sequence of operations', async (rootType) => {
    const depth = DEPTH[kind] ?? 2;
    let frontier: Step[][] = [[]];
    let nodes = 0;
    let probes = 0;
    for (let level = 0; level <= depth; level++) {
      const next: Step[][] = [];
      for (const steps of frontier) {
        nodes++;
        const made = await replay(rootType, steps);
        await checkStates(made, steps);
        if (level === depth) continue;
        for (const { step, expected } of await candidates(made.family)) {
          probes++;
          // What the rule refuses is tried on this family (a refusal changes nothing); what it offers on a copy.
          if (!expected) {
            const refused = await apply(made.family, step);
            expect(refused.approved, `${JSON.stringify(step)} after ${JSON.stringify(steps)} was not offered, but the API accepted it`).toBe(false);
            continue;
          }
          next.push([...steps, step]);
        }
      }
      frontier = next;
    }
    // The offers that become the next level are checked by replay: each is expected approved there.
    expect(nodes).toBeGreaterThan(rootType === 'PA' ? 10 : 8);
    expect(probes).toBeGreaterThan(nodes);
  });

  it('works out, once, the state of payments recorded before the ledger wrote it (the job migration 0027 schedules)', async () => {
    const made = await replay('DB', [{ type: 'RF', on: 'root', amountMinor: 1_000 }]);
    const captured = await replay('PA', [{ type: 'CP', on: 'root', amountMinor: 3_000 }]);
    const ids = [made.family.root, captured.family.root] as string[];
    await t.gateway.store.query('UPDATE payments SET lifecycle = NULL WHERE id = ANY($1::char(32)[])', [ids]);
    expect([...(await lifecycleStates(t.gateway.store, ids)).values()]).toEqual(['approved', 'approved']);
    const [backfill] = lifecycleJobHandlers();
    const job = { id: 'x'.repeat(32), kind: LIFECYCLE_BACKFILL_JOB, payload: {}, attempts: 1, claimToken: 'y'.repeat(32) } as unknown as ClaimedJob;
    await backfill?.run(job, { store: t.gateway.store, logger: t.gateway.logger, now: () => new Date(), signal: new AbortController().signal });
    const states = await lifecycleStates(t.gateway.store, ids);
    expect([states.get(ids[0] as string), states.get(ids[1] as string)]).toEqual(['partiallyRefunded', 'captured']);
  });
});
