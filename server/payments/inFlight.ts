import type { Queryable } from '../store/index.ts';
import { recoverAttempt } from './recovery.ts';
import type { PaymentServices } from './services.ts';
import { openAttemptsOfPayments } from './store/attempts.ts';

/**
 * The door through which other features ask about payments being made (checkouts for their submits, schedules for
 * their executions, and the payment routes for a request resumed by its idempotency key): which payments are in
 * flight — an acquirer was asked and its answer is not recorded yet — and the recovery of those a gateway instance
 * left when it died (recovery.ts). Acquirer attempts themselves stay inside payments/.
 */

/** A payment whose acquirer was asked and whose answer is not recorded yet. */
export interface PaymentInFlight {
  readonly paymentId: string;
  /** Its open acquirer attempt, and the acquirer asked. */
  readonly attemptId: string;
  readonly acquirer: string;
  /** The gateway instance that asked: once it is gone, only a recovery records the answer. */
  readonly instanceId: string;
}

/** Which of these payments are in flight (in the caller's transaction, when given one). */
export async function paymentsInFlight(db: Queryable, paymentIds: readonly string[]): Promise<PaymentInFlight[]> {
  const open = await openAttemptsOfPayments(db, paymentIds);
  return open.map((attempt) => ({ paymentId: attempt.plan.payment.id, attemptId: attempt.id, acquirer: attempt.acquirer, instanceId: attempt.instanceId }));
}

/** Those whose gateway instance is gone: orphans, whose answers only a recovery records. */
export async function orphansAmong(services: PaymentServices, inFlight: readonly PaymentInFlight[]): Promise<PaymentInFlight[]> {
  const orphans: PaymentInFlight[] = [];
  for (const payment of inFlight) if (!(await services.store.isInstanceAlive(payment.instanceId))) orphans.push(payment);
  return orphans;
}

/**
 * Records now what the acquirer answered for these payments, exactly as the instance that asked would have (the
 * acquirer is asked first: call it outside any lock of the caller's). Only for orphans, unless the caller knows that
 * no other request is making these payments (an idempotency key it took over).
 */
export async function recoverInFlight(services: PaymentServices, inFlight: readonly PaymentInFlight[]): Promise<void> {
  for (const payment of inFlight) await recoverAttempt(services, { id: payment.attemptId, acquirer: payment.acquirer });
}

/** Recovers now the orphans among these payments (see above); those a live instance is making are left to it. */
export async function recoverOrphans(services: PaymentServices, paymentIds: readonly string[]): Promise<void> {
  await recoverInFlight(services, await orphansAmong(services, await paymentsInFlight(services.store, paymentIds)));
}
