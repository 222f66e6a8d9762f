import type { AcquirerRecords } from '../acquirers/types.ts';
import type { FinalResult, PaymentRecord } from '../domain/payment.ts';
import { canBecome, statusOfResult, withResult, type PaymentEventAction } from '../domain/paymentState.ts';
import type { Result } from '../domain/resultCodes.ts';
import type { DomainEvent, Outbox } from '../events/outbox.ts';
import { createGroupCommit } from '../store/groupCommit.ts';
import type { Queryable, Store } from '../store/index.ts';
import {
  createAttemptOpener,
  finishAttempts,
  insertAttempts,
  lockOpenAttempts,
  scheduleInquiries,
  type AttemptOutcome,
  type AttemptToOpen,
  type NewAttempt,
} from './store/attempts.ts';
import { findPaymentsById, insertPayments, refreshLifecycles, updatePendingPayment } from './store/payments.ts';
import { paymentSnapshot } from './view.ts';

/**
 * The ledger: the only writer of payment rows (DESIGN principle 9) and of acquirer attempts (store/attempts.ts). New
 * payments (initial ones, the gateway's refusals, back-office children) and a pending payment's one transition to its
 * final state are written here, each with its PAYMENT event in the same transaction (the outbox: whatever the event
 * causes is scheduled with it) and, for an approved child, its parent's lifecycle state (store/payments.ts), and with the acquirer attempt it answers finished there too. The attempt itself is
 * opened here before the acquirer is asked, and closed here when nothing is to be recorded for it. Whatever finishes
 * attempts also writes the acquirer's own record of their answers when it waits for this transaction
 * (AcquirerRecords: the simulator's, by default), so a payment costs the attempt's commit and this one.
 *
 * New payments are group-committed: payments that arrive while writes are in flight are committed together (one
 * multi-row INSERT for the payments, one for their events), so a burst costs one transaction instead of one each;
 * every caller still waits for its own rows to be durable (store/groupCommit.ts).
 */

export interface LedgerWrite {
  readonly payments: readonly PaymentRecord[];
  /** The acquirer attempt whose answer these payments are: finished in the same transaction. */
  readonly attemptId?: string;
  /**
   * Instead: the attempt whose acquirer's final word these payments (pending) await. It stays open, and the recovery
   * asks the acquirer about it at `nextInquiryAt` (payments/recovery.ts).
   */
  readonly awaits?: { readonly attemptId: string; readonly nextInquiryAt: Date };
  /** More to write in the same transaction, only when these payments are written now (a registration they create). */
  readonly alongside?: (tx: Queryable) => Promise<void>;
}

/** An acquirer attempt to open, by this gateway instance. */
export type AttemptToStart = Omit<NewAttempt, 'instanceId'>;

/** A smart retry's switch to the fallback (smartRetryFallback.ts): the first attempt's answer, the next attempt. */
export interface AttemptSwitch {
  /** The rejection's payment, finishing the first attempt (`attemptId`). */
  readonly rejection: LedgerWrite & { readonly attemptId: string };
  /** The fallback's attempt, opened once the first is finished (a payment has one open attempt at a time). */
  readonly next: AttemptToStart;
}

export interface Ledger {
  /**
   * Opens an acquirer attempt before its call, group-committed with concurrent ones, with the card to seal alongside
   * (named by its plan). Rejects with PaymentBeingMadeError when its payment has an open attempt or is written already
   * (not looked for with `freshPaymentId`: an id this run made and told no one).
   */
  open(attempt: AttemptToStart, sealedCard?: AttemptToOpen['sealedCard'], options?: { readonly freshPaymentId?: boolean }): Promise<void>;
  /**
   * Opens an attempt in a transaction the caller holds, whose lock makes it its payment's only one (a back-office
   * operation under its parent's lock, a redirect's success under the redirect's).
   */
  openIn(tx: Queryable, attempt: AttemptToStart): Promise<void>;
  /**
   * Makes a smart retry's switch under the first attempt's lock, group-committed with concurrent writes; false when the
   * first attempt was finished already (its recovery recorded it): nothing is written, what was recorded stands.
   */
  switchAttempt(change: AttemptSwitch): Promise<boolean>;
  /**
   * Closes an attempt with nothing to write for it: its payment was recorded meanwhile ('recorded'), or the acquirer
   * never received it ('unknown': no money moved).
   */
  close(tx: Queryable, attemptId: string, outcome: AttemptOutcome, now: Date): Promise<void>;
  /** Writes new payments, group-committed; resolves with the payments as stored. */
  record(write: LedgerWrite): Promise<PaymentRecord[]>;
  /** The same, in a transaction the caller holds (a pending payment with its redirect, a recovery). */
  recordIn(tx: Queryable, write: LedgerWrite): Promise<PaymentRecord[]>;
  /** A new payment the gateway's own checks refuse (no acquirer asked), recorded declined with `result`. */
  refuse(payment: PaymentRecord, result: Result): Promise<PaymentRecord>;
  /** The same, in a transaction the caller holds (a back-office operation refused under its parent's lock). */
  refuseIn(tx: Queryable, payment: PaymentRecord, result: Result): Promise<PaymentRecord>;
  /**
   * An open attempt whose payment is recorded pending awaits its acquirer still: asked again at `at` (`asked`: the
   * acquirer was asked just now, and could not say).
   */
  awaitAgain(tx: Queryable, attemptId: string, at: Date, asked: boolean): Promise<void>;
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

/** A payment no acquirer was asked about: the gateway's own result. */
function refused(payment: PaymentRecord, result: Result): PaymentRecord {
  return { ...withResult(payment, result), acquirer: 'gateway' };
}

/** `records`: the acquirers' records written with the answers (none for a ledger without acquirers, in tests). */
export function createLedger(
  store: Store,
  outbox: Outbox,
  records?: AcquirerRecords,
  /** Told the payments of each committed batch (the metrics). */
  onRecorded?: (payments: readonly PaymentRecord[]) => void,
): Ledger {
  /**
   * Finishes attempts, with the acquirers' records of their answers: also for an attempt finished already, whose answer
   * is recorded now all the same (a call so slow that another instance's recovery closed it unanswered meanwhile).
   */
  async function closeAttempts(tx: Queryable, attemptIds: readonly string[], outcome: AttemptOutcome, now: Date): Promise<void> {
    await finishAttempts(tx, attemptIds, outcome, now);
    await records?.writeIn(tx, attemptIds);
  }

  /**
   * Writes a batch of new payments. A write whose payments exist already was recorded meanwhile by the recovery of
   * its attempt: it gets the stored payments, and neither its events nor what comes alongside are written again.
   */
  async function writeBatch(tx: Queryable, writes: readonly LedgerWrite[]): Promise<PaymentRecord[][]> {
    const now = writes[0]?.payments[0]?.createdAt ?? new Date();
    // The attempts are finished by the payments' INSERT, for the writes whose payments it inserted.
    const inserted = await insertPayments(
      tx,
      writes.flatMap((write) => write.payments),
      writes.flatMap((write) => (write.attemptId === undefined ? [] : [{ attemptId: write.attemptId, paymentIds: write.payments.map((payment) => payment.id) }])),
      now,
    );
    const results: PaymentRecord[][] = [];
    const events: DomainEvent[] = [];
    const answered: string[] = [];
    const awaiting: { attemptId: string; at: Date; asked: boolean }[] = [];
    const written: PaymentRecord[] = [];
    for (const write of writes) {
      if (!write.payments.every((payment) => inserted.has(payment.id))) {
        results.push(await findPaymentsById(tx, write.payments.map((payment) => payment.id)));
        continue;
      }
      events.push(...write.payments.map((payment) => paymentEvent(payment, 'CREATED', payment.createdAt)));
      if (write.attemptId !== undefined) answered.push(write.attemptId);
      if (write.awaits) awaiting.push({ attemptId: write.awaits.attemptId, at: write.awaits.nextInquiryAt, asked: false });
      if (write.alongside) await write.alongside(tx);
      const made = [...write.payments];
      madeHere.add(made);
      written.push(...made);
      results.push(made);
    }
    await records?.writeIn(tx, answered);
    await refreshLifecycles(tx, written);
    await scheduleInquiries(tx, awaiting);
    await outbox.append(tx, events);
    return results;
  }

  /** The results of writeBatch that are payments it wrote (not ones found recorded already). */
  const madeHere = new WeakSet<readonly PaymentRecord[]>();
  const told = (payments: PaymentRecord[]): PaymentRecord[] => {
    if (madeHere.has(payments)) onRecorded?.(payments);
    return payments;
  };
  const group = createGroupCommit(store, writeBatch);
  const switches = createGroupCommit<AttemptSwitch, boolean>(store, async (tx, batch) => {
    const open = await lockOpenAttempts(tx, batch.map((change) => change.rejection.attemptId));
    const made = batch.filter((change) => open.has(change.rejection.attemptId));
    await writeBatch(tx, made.map((change) => change.rejection));
    // Once the first attempts are finished: a payment has one open attempt at a time (store/attempts.ts).
    await insertAttempts(tx, made.map((change) => started(change.next)));
    return batch.map((change) => open.has(change.rejection.attemptId));
  });
  const opener = createAttemptOpener(store);
  const started = (attempt: AttemptToStart): NewAttempt => ({ ...attempt, instanceId: store.instanceId });

  return {
    open: (attempt, sealedCard, options) =>
      opener.submit({ attempt: started(attempt), ...(sealedCard ? { sealedCard } : {}), freshPaymentId: options?.freshPaymentId === true }),
    openIn: (tx, attempt) => insertAttempts(tx, [started(attempt)]),
    switchAttempt: (change) => switches.submit(change),
    async close(tx, attemptId, outcome, now) {
      await closeAttempts(tx, [attemptId], outcome, now);
    },
    awaitAgain: (tx, attemptId, at, asked) => scheduleInquiries(tx, [{ attemptId, at, asked }]),
    // Told once committed; in a caller's transaction, once written (its commit is the caller's).
    record: async (write) => told(await group.submit(write)),
    refuse: async (payment, result) => told(await group.submit({ payments: [refused(payment, result)] }))[0] as PaymentRecord,
    refuseIn: async (tx, payment, result) => told((await writeBatch(tx, [{ payments: [refused(payment, result)] }]))[0] as PaymentRecord[])[0] as PaymentRecord,
    recordIn: async (tx, write) => told((await writeBatch(tx, [write]))[0] as PaymentRecord[]),
    async finish(tx, payment, result, now, attemptId) {
      const status = statusOfResult(result.resultCode);
      if (!canBecome(payment.status, status)) return undefined;
      const finished = await updatePendingPayment(tx, payment.id, status, result);
      if (!finished) return undefined;
      if (attemptId !== undefined) await closeAttempts(tx, [attemptId], 'recorded', now);
      await refreshLifecycles(tx, [finished]);
      await outbox.append(tx, [paymentEvent(finished, 'UPDATED', now)]);
      return finished;
    },
  };
}
