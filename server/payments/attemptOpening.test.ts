import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Acquirer } from '../acquirers/types.ts';
import { newResourceId } from '../domain/ids.ts';
import type { PaymentRecord } from '../domain/payment.ts';
import { cardPayment, STORE_KINDS, startTestGateway, warnIfPostgresSkipped, type TestGateway } from '../testing/harness.ts';
import type { Queryable, Store } from '../store/index.ts';
import { PaymentBeingMadeError } from './store/attempts.ts';
import { createPayment } from './createPayment.ts';
import { createPaymentCommand } from './request.ts';

warnIfPostgresSkipped('payments/attemptOpening.test.ts');

/**
 * One open acquirer attempt per payment (attempts.ts, migration 0017). Two runs making the same payment — a schedule
 * execution taken over while its first run still held the acquirer's call, a resumed Idempotency-Key — each check
 * that no attempt is open before they make it; here both skip straight to making it (createPayment with the same
 * payment id), as two runs do that both passed the check. Only one of them may ask the acquirer: the other is
 * refused before any call (PaymentBeingMadeError), whether the two open at once (one group commit), while the first
 * holds the acquirer's call, or after the first recorded the payment.
 */

describe.each(STORE_KINDS)('one open attempt per payment, on %s', (kind) => {
  let t: TestGateway;
  /** The payment ids the acquirer was asked to authorize, in order. */
  const asked: string[] = [];
  /** While set, authorizations wait for it (the acquirer holds the call). */
  let held: Promise<void> | undefined;

  const observed = (acquirer: Acquirer): Acquirer => ({
    ...acquirer,
    async authorize(request) {
      asked.push(request.paymentId);
      await held;
      return acquirer.authorize(request);
    },
  });

  /** While set, the SQL of every statement the store is sent. */
  let statements: string[] | undefined;
  const traced = (store: Store): Store => {
    const trace = (target: Queryable): Queryable => ({
      query: (sql, params, options) => {
        statements?.push(sql);
        return target.query(sql, params, options);
      },
      exec: (sql) => target.exec(sql),
    });
    return {
      kind: store.kind,
      instanceId: store.instanceId,
      ...trace(store),
      isInstanceAlive: (id) => store.isInstanceAlive(id),
      transaction: (work) => store.transaction((tx) => work(trace(tx))),
      reclaimSpace: (tables) => store.reclaimSpace(tables),
      vacuum: () => store.vacuum(),
      close: () => store.close(),
    };
  };

  beforeAll(async () => {
    t = await startTestGateway(kind, {}, { wrapAcquirer: observed, wrapStore: traced });
  });
  afterAll(async () => {
    await t?.close();
  });

  /** A run making the card payment `paymentId`, as an execution or a resumed key makes it (the id chosen before). */
  const makePayment = (paymentId: string): Promise<PaymentRecord> =>
    createPayment(
      t.gateway.payments,
      createPaymentCommand(new Map(Object.entries(cardPayment(t.entityId))), { entityId: t.entityId, environment: 'test', source: 'API', paymentId }),
    );
  const callsFor = (paymentId: string) => asked.filter((id) => id === paymentId).length;
  const stored = async (paymentId: string) => {
    const rows = async (sql: string) => (await t.gateway.store.query<{ n: number }>(sql, [paymentId])).rows[0]?.n;
    return {
      payments: await rows('SELECT count(*)::int AS n FROM payments WHERE id = $1'),
      attempts: await rows('SELECT count(*)::int AS n FROM acquirer_attempts WHERE payment_id = $1'),
      open: await rows('SELECT count(*)::int AS n FROM acquirer_attempts WHERE payment_id = $1 AND finished_at IS NULL'),
      acquirerRecords: await rows('SELECT count(*)::int AS n FROM simulator_operations o JOIN acquirer_attempts a ON a.id = o.attempt_id WHERE a.payment_id = $1'),
    };
  };

  it('two runs opening an attempt for one payment at once: one acquirer call, one payment, the other run refused', async () => {
    const paymentId = newResourceId();
    const runs = await Promise.allSettled([makePayment(paymentId), makePayment(paymentId)]);
    const made = runs.filter((run) => run.status === 'fulfilled');
    const refused = runs.filter((run) => run.status === 'rejected');
    expect(made).toHaveLength(1);
    expect(made[0]?.value).toMatchObject({ id: paymentId, status: 'approved' });
    expect(refused).toHaveLength(1);
    expect(refused[0]?.reason).toBeInstanceOf(PaymentBeingMadeError);
    expect(callsFor(paymentId)).toBe(1);
    expect(await stored(paymentId)).toEqual({ payments: 1, attempts: 1, open: 0, acquirerRecords: 1 });
  });

  it('a second run while the first holds the acquirer’s call is refused before it asks; the first records the payment', async () => {
    const paymentId = newResourceId();
    let release = () => undefined as void;
    held = new Promise<void>((resolve) => {
      release = resolve;
    });
    try {
      const first = makePayment(paymentId);
      await expect.poll(() => callsFor(paymentId)).toBe(1);
      await expect(makePayment(paymentId)).rejects.toThrow(PaymentBeingMadeError);
      expect(callsFor(paymentId)).toBe(1);
      release();
      expect(await first).toMatchObject({ id: paymentId, status: 'approved' });
    } finally {
      held = undefined;
      release();
    }
    expect(callsFor(paymentId)).toBe(1);
    expect(await stored(paymentId)).toEqual({ payments: 1, attempts: 1, open: 0, acquirerRecords: 1 });
  });

  it('does not look for a payment whose id no one else knows (no Idempotency-Key), and does for one a key names', async () => {
    const lookups = async (headers: Record<string, string>) => {
      statements = [];
      try {
        const paid = await t.post('/v1/payments', cardPayment(t.entityId), { headers });
        expect(paid.status).toBe(200);
        return statements.filter((sql) => sql.startsWith('SELECT id FROM payments WHERE id = ANY')).length;
      } finally {
        statements = undefined;
      }
    };
    expect(await lookups({})).toBe(0);
    expect(await lookups({ 'Idempotency-Key': `opening-${newResourceId()}` })).toBe(1);
  });

  it('a run overtaken by one that made the payment meanwhile opens nothing and asks nobody', async () => {
    const paymentId = newResourceId();
    expect(await makePayment(paymentId)).toMatchObject({ id: paymentId, status: 'approved' });
    await expect(makePayment(paymentId)).rejects.toThrow(/made it meanwhile/);
    expect(callsFor(paymentId)).toBe(1);
    expect(await stored(paymentId)).toEqual({ payments: 1, attempts: 1, open: 0, acquirerRecords: 1 });
  });
});
