import type { CardOnFileRequest } from '../../acquirers/types.ts';
import { MadeByAnotherRunError } from '../../domain/errors.ts';
import type { PaymentRecord } from '../../domain/payment.ts';
import { createGroupCommit, type GroupCommit } from '../../store/groupCommit.ts';
import type { Queryable, Store } from '../../store/index.ts';
import type { SealedValue } from '../../vault/cardVault.ts';
import { keepSealed } from '../../vault/repository.ts';
import { paymentOfRow, paymentRow } from './payments.ts';

/**
 * Acquirer attempts (DESIGN principle 11): before the gateway calls an acquirer, it commits a row saying what it is
 * about to ask and what it will record with the answer (the plan). The call itself runs outside any row lock; the
 * answer is recorded in the transaction that finishes the attempt. The ledger (../ledger.ts) is the only writer of
 * these rows: it opens attempts and finishes them; the rest only reads them. An attempt left open by a crash
 * between the call and the record is finished by the recovery job (../recovery.ts), which asks the acquirer what
 * became of it: money never moves without a row, and nothing is recorded twice (the attempt's id is the acquirer's
 * idempotency reference, and the payment's id is the row's key).
 *
 * An open back-office attempt also holds its amount against its parent's totals (payments.ts familyTotals), so
 * two concurrent captures cannot both pass the check while the acquirer is being asked.
 *
 * A payment has at most one open attempt (a unique index, migration 0017): two runs making the same payment (a
 * schedule execution taken over while its first run still held the acquirer's call, a resumed Idempotency-Key)
 * cannot both ask the acquirer. The smart retry's second attempt is opened once its first is finished.
 */

/** What the answer to an attempt becomes. */
export type AttemptPlan =
  /** An initial payment's authorization: the payment to record, minus its result. */
  | {
      readonly kind: 'initial';
      readonly payment: PaymentRecord;
      /** createRegistration=true: the card, sealed in the vault before the call, becomes a registration if approved. */
      readonly registerSealedCardId: string | null;
      /** PA.CP: capture in full once approved. */
      readonly captureAtOnce: boolean;
      /** The standing instruction the acquirer is told (COMPAT §11), which smart retry's settings also look at. */
      readonly cardOnFile: CardOnFileRequest | undefined;
      /**
       * A smart retry at the fallback acquirer (../smartRetryFallback.ts): the id of the payment the default acquirer's
       * rejection became, which the answer names (COMPAT §15). Absent on a first attempt.
       */
      readonly softDeclineOf?: string;
      /**
       * Where the shopper's browser goes once back from the acquirer's own pages (its 3-D Secure challenge, its
       * provider's page): the checkout's result URL, or the shopperResultUrl with the payment. Only when the shopper
       * was sent there (a connector's payment, ../shopperReturn.ts).
       */
      readonly shopperReturnUrl?: string;
    }
  /** A capture, refund or reversal: the child to record. */
  | { readonly kind: 'backOffice'; readonly payment: PaymentRecord }
  /** The authorization after a 3-D Secure challenge, or a provider's confirmation: the pending payment it finishes. */
  | {
      readonly kind: 'afterRedirect';
      readonly payment: PaymentRecord;
      readonly redirectId: string;
      /** The authentication the challenge produced (shown as threeDSecure), if it was one. */
      readonly threeDSecure: Record<string, string> | null;
      readonly registerSealedCardId: string | null;
      readonly captureAtOnce: boolean;
      /** As for an initial payment: the standing instruction the pending payment was recorded with. */
      readonly cardOnFile: CardOnFileRequest | undefined;
      /** A smart retry of the authorization at the fallback acquirer: as for an initial payment. */
      readonly softDeclineOf?: string;
    };

/**
 * recorded: its payment is written; unknown: the acquirer never saw it, so no money moved; refused: the acquirer
 * refused the request as it stood, so nothing was made.
 */
export type AttemptOutcome = 'recorded' | 'unknown' | 'refused';

export interface AcquirerAttempt {
  readonly id: string;
  readonly entityId: string;
  readonly acquirer: string;
  readonly plan: AttemptPlan;
  /** The gateway instance that made the call (store.instanceId). */
  readonly instanceId: string;
  readonly createdAt: Date;
  readonly finishedAt: Date | null;
  readonly outcome: AttemptOutcome | null;
  /**
   * While the attempt awaits its acquirer's final word (its payment recorded pending: the acquirer answered pending, or
   * its answer was lost after the request was sent), when the recovery asks the acquirer next; null otherwise.
   */
  readonly nextInquiryAt: Date | null;
  /** How often the acquirer was asked about it so far. */
  readonly inquiries: number;
}

type StoredPlan = Omit<AttemptPlan, 'payment'> & { readonly payment: Record<string, unknown> };

function storedPlan(plan: AttemptPlan): StoredPlan {
  return { ...plan, payment: paymentRow(plan.payment) };
}

function planOf(stored: StoredPlan): AttemptPlan {
  return { ...stored, payment: paymentOfRow(stored.payment) } as AttemptPlan;
}

interface AttemptRow {
  id: string;
  entity_id: string;
  acquirer: string;
  plan: StoredPlan;
  instance_id: string;
  created_at: Date;
  finished_at: Date | null;
  outcome: AttemptOutcome | null;
  next_inquiry_at: Date | null;
  inquiries: number;
}

const COLUMNS = 'id, entity_id, acquirer, plan, instance_id, created_at, finished_at, outcome, next_inquiry_at, inquiries';

function toAttempt(row: AttemptRow): AcquirerAttempt {
  return {
    id: row.id,
    entityId: row.entity_id,
    acquirer: row.acquirer,
    plan: planOf(row.plan),
    instanceId: row.instance_id,
    createdAt: new Date(row.created_at),
    finishedAt: row.finished_at,
    outcome: row.outcome,
    nextInquiryAt: row.next_inquiry_at === null ? null : new Date(row.next_inquiry_at),
    inquiries: Number(row.inquiries),
  };
}

export interface NewAttempt {
  readonly id: string;
  readonly acquirer: string;
  readonly plan: AttemptPlan;
  readonly instanceId: string;
  readonly createdAt: Date;
}

const INSERT_FROM_JSON = `INSERT INTO acquirer_attempts
    (id, entity_id, acquirer, payment_id, parent_id, payment_type, amount_minor, final_in_sequence, plan, instance_id, created_at)
  SELECT id, entity_id, acquirer, payment_id, parent_id, payment_type, amount_minor, final_in_sequence, plan, instance_id, created_at
    FROM jsonb_to_recordset($1::jsonb) AS a (id char(32), entity_id char(32), acquirer text, payment_id char(32), parent_id char(32),
      payment_type char(2), amount_minor bigint, final_in_sequence boolean, plan jsonb, instance_id text, created_at timestamptz)`;

function attemptRows(attempts: readonly NewAttempt[]): string {
  const rows = attempts.map(({ id, acquirer, plan, instanceId, createdAt }) => ({
    id,
    entity_id: plan.payment.entityId,
    acquirer,
    payment_id: plan.payment.id,
    parent_id: plan.kind === 'backOffice' ? plan.payment.parentId : null,
    payment_type: plan.payment.paymentType,
    amount_minor: plan.payment.amountMinor,
    final_in_sequence: plan.payment.finalInSequence,
    plan: storedPlan(plan),
    instance_id: instanceId,
    created_at: createdAt.toISOString(),
  }));
  return JSON.stringify(rows);
}

/** Inserts attempts in the caller's transaction, which holds the lock that makes them the payments' only ones. */
export async function insertAttempts(db: Queryable, attempts: readonly NewAttempt[]): Promise<void> {
  if (attempts.length === 0) return;
  await db.query(INSERT_FROM_JSON, [attemptRows(attempts)], { preparedAs: 'insert-attempts' });
}

/** Marks attempts finished (in the transaction that records their outcome); true per id if this call finished it. */
export async function finishAttempts(db: Queryable, ids: readonly string[], outcome: AttemptOutcome, now: Date): Promise<Set<string>> {
  if (ids.length === 0) return new Set();
  const finished = await db.query<{ id: string }>(
    `UPDATE acquirer_attempts SET finished_at = $2::timestamptz, outcome = $3
      WHERE id = ANY($1::char(32)[]) AND finished_at IS NULL RETURNING id`,
    [ids, now.toISOString(), outcome],
    { preparedAs: 'finish-attempts' },
  );
  return new Set(finished.rows.map((row) => row.id));
}

/**
 * What the recovery job looks at: open attempts started before `before` that await no inquiry (their instance may have
 * died), oldest first, and those whose inquiry is due by `now`, soonest first.
 */
export async function findOpenAttempts(db: Queryable, before: Date, now: Date, limit: number): Promise<AcquirerAttempt[]> {
  const found = await db.query<AttemptRow>(
    `(SELECT ${COLUMNS} FROM acquirer_attempts WHERE finished_at IS NULL AND next_inquiry_at IS NULL AND created_at <= $1::timestamptz ORDER BY created_at LIMIT $3)
     UNION ALL
     (SELECT ${COLUMNS} FROM acquirer_attempts WHERE finished_at IS NULL AND next_inquiry_at <= $2::timestamptz ORDER BY next_inquiry_at LIMIT $3)`,
    [before.toISOString(), now.toISOString(), limit],
  );
  return found.rows.map(toAttempt);
}

/** The attempts awaiting their acquirer's final word, by acquirer: how many, and the oldest's age at `now` (the metrics). */
export async function awaitingAttempts(db: Queryable, now: Date): Promise<{ acquirer: string; count: number; oldestAgeSeconds: number }[]> {
  const found = await db.query<{ acquirer: string; count: string | number; oldest: Date | string }>(
    `SELECT acquirer, count(*) AS count, min(created_at) AS oldest FROM acquirer_attempts
      WHERE finished_at IS NULL AND next_inquiry_at IS NOT NULL GROUP BY acquirer`,
  );
  return found.rows.map((row) => ({ acquirer: row.acquirer, count: Number(row.count), oldestAgeSeconds: Math.max(0, (now.getTime() - new Date(row.oldest).getTime()) / 1000) }));
}

/** The attempt, whatever its state (a shopper's return names it). */
export async function findAttempt(db: Queryable, id: string): Promise<AcquirerAttempt | undefined> {
  const found = await db.query<AttemptRow>(`SELECT ${COLUMNS} FROM acquirer_attempts WHERE id = $1`, [id]);
  const row = found.rows[0];
  return row ? toAttempt(row) : undefined;
}

/**
 * Sets when the recovery asks about these open attempts next (their payments recorded pending meanwhile), counting
 * the inquiry `asked` made.
 */
export async function scheduleInquiries(db: Queryable, inquiries: readonly { readonly attemptId: string; readonly at: Date; readonly asked: boolean }[]): Promise<void> {
  if (inquiries.length === 0) return;
  await db.query(
    `UPDATE acquirer_attempts a SET next_inquiry_at = i.at, inquiries = a.inquiries + CASE WHEN i.asked THEN 1 ELSE 0 END
       FROM jsonb_to_recordset($1::jsonb) AS i (id char(32), at timestamptz, asked boolean)
      WHERE a.id = i.id AND a.finished_at IS NULL`,
    [JSON.stringify(inquiries.map((inquiry) => ({ id: inquiry.attemptId, at: inquiry.at.toISOString(), asked: inquiry.asked })))],
  );
}

/** The attempt, locked until the transaction ends (its recovery and its normal finish are decided one at a time). */
export async function lockAttempt(tx: Queryable, id: string): Promise<AcquirerAttempt | undefined> {
  const found = await tx.query<AttemptRow>(`SELECT ${COLUMNS} FROM acquirer_attempts WHERE id = $1 FOR UPDATE`, [id]);
  const row = found.rows[0];
  return row ? toAttempt(row) : undefined;
}

/**
 * Locks these attempts until the transaction ends (in id order, as concurrent batches do); the ids of those still open
 * (or never written), which the caller may finish: one finished already was recorded by its recovery.
 */
export async function lockOpenAttempts(tx: Queryable, ids: readonly string[]): Promise<Set<string>> {
  const locked = await tx.query<{ id: string; finished: boolean }>(
    'SELECT id, finished_at IS NOT NULL AS finished FROM acquirer_attempts WHERE id = ANY($1::char(32)[]) ORDER BY id FOR UPDATE',
    [ids],
    { preparedAs: 'lock-open-attempts' },
  );
  const finished = new Set(locked.rows.filter((row) => row.finished).map((row) => row.id));
  return new Set(ids.filter((id) => !finished.has(id)));
}

/** The open attempts whose answer becomes one of these payments (a checkout's attempt whose instance died). */
export async function openAttemptsOfPayments(db: Queryable, paymentIds: readonly string[]): Promise<AcquirerAttempt[]> {
  if (paymentIds.length === 0) return [];
  const found = await db.query<AttemptRow>(
    `SELECT ${COLUMNS} FROM acquirer_attempts WHERE payment_id = ANY($1::char(32)[]) AND finished_at IS NULL`,
    [paymentIds],
  );
  return found.rows.map(toAttempt);
}

/** An attempt to open, and a card to seal in the vault with it (under `sealedCardId`, which the plan names). */
export interface AttemptToOpen {
  readonly attempt: NewAttempt;
  readonly sealedCard?: { readonly id: string; readonly value: SealedValue };
  /**
   * The payment's id was made by this run just now and told to no one (no checkout, schedule or idempotency key
   * names it): no other run can have made that payment, so it is not looked for.
   */
  readonly freshPaymentId?: boolean;
}

/** An attempt not opened: its payment is being made, or was made, by another run. Its acquirer must not be asked. */
export class PaymentBeingMadeError extends MadeByAnotherRunError {
  constructor(
    readonly paymentId: string,
    why: string,
  ) {
    super(`no attempt opened for payment ${paymentId}: ${why}`);
    this.name = 'PaymentBeingMadeError';
  }
}

type Refusal = 'open' | 'made';

/**
 * Opens attempts, each unless its payment has an open attempt (0017's index: ON CONFLICT, so a batch never fails for
 * one of them) or is written already: a run that found neither before it opened its own may have been overtaken by
 * another run that opened, asked and recorded meanwhile. The payments are looked for in a statement of their own,
 * after the insert (which waited for any transaction finishing a conflicting attempt), so such a recording is seen;
 * a payment whose id no other run knows (freshPaymentId) is not looked for.
 */
async function openAttempts(tx: Queryable, items: readonly AttemptToOpen[]): Promise<(Refusal | undefined)[]> {
  const inserted = await tx.query<{ id: string; payment_id: string }>(
    `${INSERT_FROM_JSON} ON CONFLICT (payment_id) WHERE finished_at IS NULL DO NOTHING RETURNING id, payment_id`,
    [attemptRows(items.map((item) => item.attempt))],
    { preparedAs: 'open-attempts' },
  );
  const opened = new Set(inserted.rows.map((row) => row.id));
  const made = new Set<string>();
  const fresh = new Set(items.filter((item) => item.freshPaymentId).map((item) => item.attempt.id));
  const maybeMade = inserted.rows.filter((row) => !fresh.has(row.id)).map((row) => row.payment_id);
  if (maybeMade.length > 0) {
    const found = await tx.query<{ id: string }>('SELECT id FROM payments WHERE id = ANY($1::char(32)[])', [maybeMade], {
      preparedAs: 'open-attempts-made',
    });
    for (const row of found.rows) made.add(row.id);
  }
  const withdrawn = inserted.rows.filter((row) => made.has(row.payment_id)).map((row) => row.id);
  if (withdrawn.length > 0) await tx.query('DELETE FROM acquirer_attempts WHERE id = ANY($1::char(32)[])', [withdrawn]);
  const refusals: (Refusal | undefined)[] = [];
  for (const { attempt, sealedCard } of items) {
    const refusal: Refusal | undefined = !opened.has(attempt.id) ? 'open' : made.has(attempt.plan.payment.id) ? 'made' : undefined;
    if (refusal === undefined && sealedCard) await keepSealed(tx, sealedCard.value, attempt.createdAt, sealedCard.id);
    refusals.push(refusal);
  }
  return refusals;
}

/**
 * Opens attempts outside any transaction, group-committed with concurrent ones: one commit for a burst. Rejects with
 * PaymentBeingMadeError when the attempt's payment has an open attempt or is written already.
 */
export function createAttemptOpener(store: Store): GroupCommit<AttemptToOpen, void> {
  const group = createGroupCommit<AttemptToOpen, Refusal | undefined>(store, openAttempts, {
    // Attempts of fresh payments without a card to seal: their INSERT is all openAttempts sends.
    oneStatement: (items) => items.every((item) => item.freshPaymentId === true && item.sealedCard === undefined),
  });
  return {
    async submit(item) {
      const refusal = await group.submit(item);
      const paymentId = item.attempt.plan.payment.id;
      if (refusal === 'open') throw new PaymentBeingMadeError(paymentId, 'another run has an attempt open for it');
      if (refusal === 'made') throw new PaymentBeingMadeError(paymentId, 'another run has made it meanwhile');
    },
  };
}
