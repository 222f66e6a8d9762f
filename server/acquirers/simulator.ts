import { randomUUID } from 'node:crypto';
import { setTimeout as delay } from 'node:timers/promises';
import { newSchemeReference } from '../domain/ids.ts';
import { describeResultCode, RESULT_CODE_FORMAT, RESULTS, successResultOf } from '../domain/resultCodes.ts';
import { createGroupCommit } from '../store/groupCommit.ts';
import type { Queryable, Store } from '../store/index.ts';
import type { Acquirer, AcquirerAnswer, AcquirerRecords, AuthorizationRequest } from './types.ts';

/**
 * The test-mode acquirer. Deterministic: the card number and `card.holder` (or `bankAccount.holder`) decide the
 * answer, so merchants can test declines by sending a result code as the holder name (COMPAT §7); a test wallet
 * token's `testResult` does the same for wallets (COMPAT §16). Several may run side by side under different
 * names (a fallback acquirer for smart retry), each with references of its own; a result code in `card.holder` is
 * the first acquirer's answer of a smart retry, not the fallback's (holderCode).
 *
 * Like a real acquirer it keeps its own record of every operation, under the gateway's attempt id: asked twice for
 * one attempt, it answers the first answer again, and `inquire` tells what became of an attempt whose answer the
 * gateway lost in a crash. The record lives in the gateway's store (simulator_operations), standing in for the
 * acquirer's own systems, and is written one of two ways:
 *
 * - by default, in the transaction that records the answer (the ledger's, through SimulatorRecords.writeIn), kept in
 *   memory until then: a payment costs the store two commits (its attempt, its record) instead of three. A crash
 *   before that transaction loses the record with the payment, and the recovery finds an attempt the acquirer never
 *   answered — in the simulated world, one whose request was lost on its way: nothing moved, nothing to record;
 * - with SIMULATOR_DURABLE_RECORDS=true, in a commit of its own before it answers (group-committed), as a real
 *   acquirer on another machine does: a crash after the answer leaves the record, and the recovery records the
 *   payment from it. The crash tests use this mode to prove that recovery.
 */

/** Cards the simulator declines whatever else the request says (COMPAT §7). */
const DECLINED_CARDS: ReadonlyMap<string, string> = new Map([['4444444444444444', RESULTS.invalidCard.code]]);

/**
 * The code `card.holder` asks for (COMPAT §7, §15), if it names one. A smart retry's first acquirer answers it and
 * the fallback approves (the holder is the same card's on both requests), unless the holder names the fallback's
 * own answer after a slash: `800.100.152/800.100.151` is a soft reject first and a hard decline at the fallback.
 */
function holderCode(holder: string | undefined, smartRetry: boolean): string | undefined {
  const codes = holder?.trim().split('/') ?? [];
  if (codes.length === 0 || codes.length > 2 || !codes.every((code) => RESULT_CODE_FORMAT.test(code))) return undefined;
  return smartRetry ? codes[1] : codes[0];
}

interface Operation {
  readonly attemptId: string;
  readonly operation: string;
  readonly code: string;
  readonly description?: string;
  /** Details besides the acquirer's response code and reference. */
  readonly details?: Readonly<Record<string, string>>;
}

/** COMPAT §11: an INITIAL payment, or one that stores the card it is made with (not a merchant-initiated one). */
function startsAgreement(request: AuthorizationRequest): boolean {
  if (request.cardOnFile?.source === 'MIT') return false;
  return request.cardOnFile?.mode === 'INITIAL' || request.storesCard === true;
}

interface OperationRow {
  readonly answer: AcquirerAnswer;
}

/** An operation's record, as simulator_operations keeps it. */
interface OperationRecord {
  readonly acquirer: string;
  readonly attemptId: string;
  readonly operation: string;
  readonly answer: AcquirerAnswer;
  readonly at: Date;
}

/** Writes records (an attempt recorded before keeps its first one); returns the attempt ids written now. */
async function insertRecords(tx: Queryable, records: readonly OperationRecord[]): Promise<Set<string>> {
  const inserted = await tx.query<{ attempt_id: string }>(
    `INSERT INTO simulator_operations (acquirer, attempt_id, operation, reference, answer, created_at)
     SELECT o.acquirer, o.attempt_id, o.operation, o.reference, o.answer, o.created_at
       FROM jsonb_to_recordset($1::jsonb) AS o (acquirer text, attempt_id char(32), operation text, reference text, answer jsonb, created_at timestamptz)
     ON CONFLICT (acquirer, attempt_id) DO NOTHING
     RETURNING attempt_id`,
    [
      JSON.stringify(
        records.map((op) => ({
          acquirer: op.acquirer,
          attempt_id: op.attemptId,
          operation: op.operation,
          reference: op.answer.reference,
          answer: op.answer,
          created_at: op.at.toISOString(),
        })),
      ),
    ],
    { preparedAs: 'simulator-records' },
  );
  return new Set(inserted.rows.map((row) => row.attempt_id));
}

/** Records written in transactions not known to be committed: confirmed in the store (and forgotten) this many at a time. */
const CONFIRM_EVERY = 512;

/**
 * The simulated acquirers' records not yet in the store, shared by the acquirers of one registry (the ledger writes
 * the records of the attempts a transaction finishes, whichever acquirer answered them). A record stays in memory
 * until it is seen in the store: the transaction that wrote it may still roll back (a group commit retried item by
 * item writes it again), and until then the acquirer answers from memory.
 */
export interface SimulatorRecords extends AcquirerRecords {
  /** The first answer to the attempt, kept for the transaction that records it; `answer` if none was given before. */
  keep(record: OperationRecord): AcquirerAnswer;
  /** The answer kept in memory for the attempt, if this process gave one not yet confirmed in the store. */
  kept(acquirer: string, attemptId: string): AcquirerAnswer | undefined;
}

export function createSimulatorRecords(store: Store): SimulatorRecords {
  const kept = new Map<string, OperationRecord>();
  /** Attempt ids whose records were written in some transaction, not yet seen committed. */
  const written = new Set<string>();
  let confirmAt = CONFIRM_EVERY;
  let confirming = false;

  async function confirm(): Promise<void> {
    const records = [...written].flatMap((attemptId) => kept.get(attemptId) ?? []);
    const found = await store.query<{ attempt_id: string }>(
      `SELECT attempt_id FROM simulator_operations
        WHERE (acquirer, attempt_id) IN (SELECT * FROM unnest($1::text[], $2::char(32)[]))`,
      [records.map((record) => record.acquirer), records.map((record) => record.attemptId)],
    );
    for (const { attempt_id: attemptId } of found.rows) {
      kept.delete(attemptId);
      written.delete(attemptId);
    }
    // What is not committed yet (or never will be: a transaction rolled back) is looked for again later.
    confirmAt = Math.max(CONFIRM_EVERY, written.size * 2);
  }

  return {
    keep(record) {
      const first = kept.get(record.attemptId);
      if (first) return first.answer;
      kept.set(record.attemptId, record);
      return record.answer;
    },
    kept(acquirer, attemptId) {
      const record = kept.get(attemptId);
      return record?.acquirer === acquirer ? record.answer : undefined;
    },
    async writeIn(tx, attemptIds) {
      const records = attemptIds.flatMap((attemptId) => kept.get(attemptId) ?? []);
      if (records.length === 0) return;
      await insertRecords(tx, records);
      for (const record of records) written.add(record.attemptId);
      if (written.size < confirmAt || confirming) return;
      confirming = true;
      // Outside the transaction, which it must not wait for: a failure leaves the records to the next round.
      void confirm()
        .catch(() => undefined)
        .finally(() => {
          confirming = false;
        });
    },
  };
}

export interface SimulatorOptions {
  /** SIMULATOR_DURABLE_RECORDS: each record committed before the answer, instead of with the payment. */
  readonly durableRecords: boolean;
  /** Where the records wait for the ledger's transaction (durableRecords false). */
  readonly records: SimulatorRecords;
}

/** Chargeback reasons (000.100.2xx) as the platform words them; SEPA returns use 201-209 (COMPAT §16). */
const CHARGEBACK_REASONS: Readonly<Record<string, string>> = {
  '000.100.200': 'Reason not Specified',
  '000.100.201': 'Account or Bank Details Incorrect',
  '000.100.202': 'Account Closed',
  '000.100.203': 'Insufficient Funds',
  '000.100.204': 'Mandate not Valid',
  '000.100.205': 'Mandate Cancelled',
  '000.100.206': 'Revocation or Dispute',
  '000.100.207': 'Cancellation in Circulation',
  '000.100.208': 'Bank Account Blocked',
  '000.100.209': 'Bank Account Dissolved',
  '000.100.210': 'Fraudulent Transaction',
};

export function createSimulatedAcquirer(name: string, store: Store, options: SimulatorOptions): Acquirer {
  // References name the acquirer, as a real one's transaction ids are its own.
  const referencePrefix = name.toUpperCase().replace(/[^A-Z0-9]/g, '').slice(0, 12) || 'SIMULATOR';
  const answerFor = (code: string, description = describeResultCode(code), details: Readonly<Record<string, string>> = {}): AcquirerAnswer => {
    const reference = `${referencePrefix}-${randomUUID().replace(/-/g, '').slice(0, 20)}`;
    return { code, description, reference, details: { AcquirerResponse: code.replace(/\./g, ''), ConnectorTxID1: reference, ...details } };
  };

  /** Commits each record before the answer, in a batch with concurrent ones; resolves with the first answer. */
  const commit = createGroupCommit<OperationRecord, AcquirerAnswer>(store, async (tx, records) => {
    const fresh = await insertRecords(tx, records);
    // An attempt asked before (a retry, a recovery) keeps its first answer.
    const repeated = records.filter((op) => !fresh.has(op.attemptId)).map((op) => op.attemptId);
    const earlier =
      repeated.length === 0
        ? []
        : (
            await tx.query<{ attempt_id: string; answer: AcquirerAnswer }>(
              'SELECT attempt_id, answer FROM simulator_operations WHERE acquirer = $1 AND attempt_id = ANY($2::char(32)[])',
              [name, repeated],
            )
          ).rows;
    const byAttempt = new Map(earlier.map((row) => [row.attempt_id, row.answer]));
    return records.map((op) => byAttempt.get(op.attemptId) ?? op.answer);
  });
  const { durableRecords, records } = options;
  const operate = async (op: Operation): Promise<AcquirerAnswer> => {
    const record = { acquirer: name, attemptId: op.attemptId, operation: op.operation, answer: answerFor(op.code, op.description, op.details), at: new Date() };
    return durableRecords ? commit.submit(record) : records.keep(record);
  };

  return {
    name,
    simulated: true,
    async authorize(request) {
      const asked = request.testResult ?? holderCode(request.card?.holder ?? request.bankAccount?.holder, request.retryOf !== undefined);
      const number = request.card?.number ?? request.tokenAccount?.number;
      const declined = number === undefined ? undefined : DECLINED_CARDS.get(number);
      const success = successResultOf(request.testMode);
      const code = asked ?? declined ?? success.code;
      const approved = code === success.code;
      return operate({
        attemptId: request.attemptId,
        operation: `authorize ${request.paymentType}`,
        code,
        ...(approved ? { description: success.description } : {}),
        // The scheme's reference for a card-on-file agreement, given to its first (INITIAL) payment when approved, and
        // to a payment that stores the card: the shopper is there, so it is the agreement's cardholder-initiated step.
        ...(approved && startsAgreement(request) ? { details: { CardholderInitiatedTransactionID: newSchemeReference() } } : {}),
      });
    },
    async confirmRedirectPayment(request) {
      const success = successResultOf(request.testMode);
      return operate({ attemptId: request.attemptId, operation: `confirm ${request.brand}`, code: success.code, description: success.description });
    },
    async backOffice(request) {
      // A chargeback in test stands for the one an issuer's dispute would bring: recorded with its reason.
      if (request.paymentType === 'CB') {
        const code = request.chargebackResultCode ?? '000.100.200';
        return operate({ attemptId: request.attemptId, operation: 'CB', code, description: CHARGEBACK_REASONS[code] ?? 'Chargeback' });
      }
      const success = successResultOf(request.testMode);
      return operate({ attemptId: request.attemptId, operation: request.paymentType, code: success.code, description: success.description });
    },
    async inquire({ attemptId }) {
      const kept = records.kept(name, attemptId);
      if (kept) return kept;
      const found = await store.query<OperationRow>('SELECT answer FROM simulator_operations WHERE acquirer = $1 AND attempt_id = $2', [name, attemptId]);
      return found.rows[0]?.answer;
    },
  };
}

/**
 * The acquirer answering each call `latencyMs` later (SIMULATED_ACQUIRER_LATENCY_MS, test only), as one on another
 * machine does: a timer, so the payments waiting on it cost the gateway nothing while they wait. 0: the acquirer itself.
 */
export function withSimulatedLatency(acquirer: Acquirer, latencyMs: number): Acquirer {
  if (latencyMs === 0) return acquirer;
  const later = <T>(call: () => Promise<T>): Promise<T> => delay(latencyMs).then(call);
  return {
    name: acquirer.name,
    simulated: acquirer.simulated,
    authorize: (request) => later(() => acquirer.authorize(request)),
    confirmRedirectPayment: (request) => later(() => acquirer.confirmRedirectPayment(request)),
    backOffice: (request) => later(() => acquirer.backOffice(request)),
    inquire: (attempt) => later(() => acquirer.inquire(attempt)),
  };
}
