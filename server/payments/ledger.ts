import type { FinalResult, PaymentRecord } from '../domain/payment.ts';
import { canBecome, statusOfResult, withResult, type PaymentEventAction } from '../domain/paymentState.ts';
import type { Result } from '../domain/resultCodes.ts';
import type { DomainEvent, Outbox } from '../events/outbox.ts';
import { createGroupCommit } from '../store/groupCommit.ts';
import type { Queryable, Store } from '../store/index.ts';
import { finishAttempts } from './attempts.ts';
import { findPaymentsById, insertPayments, updatePendingPayment } from './repository.ts';
import { paymentSnapshot } from './view.ts';

/**
 * The ledger: the only writer of payment rows (DESIGN principle 9). New payments (initial ones, the gateway's
 * refusals, back-office children) and a pending payment's one transition to its final state are written here, each
 * with its PAYMENT event in the same transaction (the outbox: whatever the event causes is scheduled with it), and
 * with the acquirer attempt it answers finished there too.
 *
 * New payments are group-committed: payments that arrive while writes are in flight are committed together (one
 * multi-row INSERT for the payments, one for their events), so a burst costs one transaction instead of one each;
 * every caller still waits for its own rows to be durable (store/groupCommit.ts).
 */

export interface LedgerWrite {
  readonly payments: readonly PaymentRecord[];
  /** The acquirer attempt whose answer these payments are: finished in the same transaction. */
  readonly attemptId?: string;
  /** More to write in the same transaction, only when these payments are written now (a registration they create). */
  readonly alongside?: (tx: Queryable) => Promise<void>;
}

export interface Ledger {
  /** Writes new payments, group-committed; resolves with the payments as stored. */
  record(write: LedgerWrite): Promise<PaymentRecord[]>;
  /** The same, in a transaction the caller holds (a back-office refusal under its parent's lock, a recovery). */
  recordIn(tx: Queryable, write: LedgerWrite): Promise<PaymentRecord[]>;
  /** A new payment the gateway's own checks refuse (no acquirer asked), recorded declined with `result`. */
  refuse(payment: PaymentRecord, result: Result): Promise<PaymentRecord>;
  /**
   * A pending payment becomes final (the caller holds its row lock), with its PAYMENT UPDATED event. Undefined when it
   * was not pending any more: a second answer changes nothing.
   */
  finish(tx: Queryable, payment: PaymentRecord, result: FinalResult, now: Date, attemptId?: string): Promise<PaymentRecord | undefined>;
}

/** What a PAYMENT event carries: the payment as the API shows it. */
function paymentEvent(payment: PaymentRecord, action: PaymentEventAction, at: Date): DomainEvent {
  return { type: 'PAYMENT', action, entityId: payment.entityId, resourceId: payment.id, payload: paymentSnapshot(payment, at), createdAt: at, payment };
}

export function createLedger(store: Store, outbox: Outbox): Ledger {
  /**
   * Writes a batch of new payments. A write whose payments exist already was recorded meanwhile by the recovery of
   * its attempt: it gets the stored payments, and neither its events nor what comes alongside are written again.
   */
  async function writeBatch(tx: Queryable, writes: readonly LedgerWrite[]): Promise<PaymentRecord[][]> {
    const inserted = await insertPayments(
      tx,
      writes.flatMap((write) => write.payments),
    );
    const results: PaymentRecord[][] = [];
    const events: DomainEvent[] = [];
    const answered: string[] = [];
    for (const write of writes) {
      if (!write.payments.every((payment) => inserted.has(payment.id))) {
        results.push(await findPaymentsById(tx, write.payments.map((payment) => payment.id)));
        continue;
      }
      events.push(...write.payments.map((payment) => paymentEvent(payment, 'CREATED', payment.createdAt)));
      if (write.attemptId !== undefined) answered.push(write.attemptId);
      if (write.alongside) await write.alongside(tx);
      results.push([...write.payments]);
    }
    const now = writes[0]?.payments[0]?.createdAt ?? new Date();
    await finishAttempts(tx, answered, 'recorded', now);
    await outbox.append(tx, events);
    return results;
  }

  const group = createGroupCommit(store, writeBatch);

  return {
    record: (write) => group.submit(write),
    refuse: async (payment, result) => (await group.submit({ payments: [withResult(payment, result)] }))[0] as PaymentRecord,
    recordIn: async (tx, write) => (await writeBatch(tx, [write]))[0] as PaymentRecord[],
    async finish(tx, payment, result, now, attemptId) {
      const status = statusOfResult(result.resultCode);
      if (!canBecome(payment.status, status)) return undefined;
      const finished = await updatePendingPayment(tx, payment.id, status, result);
      if (!finished) return undefined;
      if (attemptId !== undefined) await finishAttempts(tx, [attemptId], 'recorded', now);
      await outbox.append(tx, [paymentEvent(finished, 'UPDATED', now)]);
      return finished;
    },
  };
}
