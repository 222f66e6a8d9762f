import { randomUUID } from 'node:crypto';
import { setTimeout as delay } from 'node:timers/promises';
import { newSchemeReference } from '../domain/ids.ts';
import { describeResultCode, RESULT_CODE_FORMAT, RESULTS, successResultOf } from '../domain/resultCodes.ts';
import { createGroupCommit } from '../store/groupCommit.ts';
import type { Store } from '../store/index.ts';
import type { Acquirer, AcquirerAnswer, AuthorizationRequest } from './types.ts';

/**
 * The test-mode acquirer. Deterministic: the card number and `card.holder` (or `bankAccount.holder`) decide the
 * answer, so merchants can test declines by sending a result code as the holder name (COMPAT §7); a test wallet
 * token's `testResult` does the same for wallets (COMPAT §16). Several may run side by side under different
 * names (a fallback acquirer for smart retry), each with references of its own; a result code in `card.holder` is
 * the first acquirer's answer of a smart retry, not the fallback's (holderCode).
 *
 * Like a real acquirer it keeps its own record of every operation, under the gateway's attempt id, before it
 * answers: asked twice for one attempt, it answers the first answer again, and `inquire` tells what became of an
 * attempt whose answer the gateway lost in a crash. The record lives in the gateway's store (simulator_operations),
 * group-committed, standing in for the acquirer's own systems.
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

export function createSimulatedAcquirer(name: string, store: Store): Acquirer {
  // References name the acquirer, as a real one's transaction ids are its own.
  const referencePrefix = name.toUpperCase().replace(/[^A-Z0-9]/g, '').slice(0, 12) || 'SIMULATOR';
  const answerFor = (code: string, description = describeResultCode(code), details: Readonly<Record<string, string>> = {}): AcquirerAnswer => {
    const reference = `${referencePrefix}-${randomUUID().replace(/-/g, '').slice(0, 20)}`;
    return { code, description, reference, details: { AcquirerResponse: code.replace(/\./g, ''), ConnectorTxID1: reference, ...details } };
  };

  /** Records each operation once, in a batch with concurrent ones; returns what was answered the first time. */
  const record = createGroupCommit<{ operation: string; attemptId: string; answer: AcquirerAnswer; at: Date }, AcquirerAnswer>(
    store,
    async (tx, operations) => {
      const inserted = await tx.query<{ attempt_id: string }>(
        `INSERT INTO simulator_operations (acquirer, attempt_id, operation, reference, answer, created_at)
         SELECT $1, o.attempt_id, o.operation, o.reference, o.answer, o.created_at
           FROM jsonb_to_recordset($2::jsonb) AS o (attempt_id char(32), operation text, reference text, answer jsonb, created_at timestamptz)
         ON CONFLICT (acquirer, attempt_id) DO NOTHING
         RETURNING attempt_id`,
        [
          name,
          JSON.stringify(
            operations.map((op) => ({ attempt_id: op.attemptId, operation: op.operation, reference: op.answer.reference, answer: op.answer, created_at: op.at.toISOString() })),
          ),
        ],
        { preparedAs: 'simulator-record' },
      );
      // An attempt asked before (a retry, a recovery) keeps its first answer.
      const fresh = new Set(inserted.rows.map((row) => row.attempt_id));
      const repeated = operations.filter((op) => !fresh.has(op.attemptId)).map((op) => op.attemptId);
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
      return operations.map((op) => byAttempt.get(op.attemptId) ?? op.answer);
    },
  );
  const operate = (op: Operation): Promise<AcquirerAnswer> =>
    record.submit({ operation: op.operation, attemptId: op.attemptId, answer: answerFor(op.code, op.description, op.details), at: new Date() });

  return {
    name,
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
    async inquire(attemptId) {
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
    authorize: (request) => later(() => acquirer.authorize(request)),
    confirmRedirectPayment: (request) => later(() => acquirer.confirmRedirectPayment(request)),
    backOffice: (request) => later(() => acquirer.backOffice(request)),
    inquire: (attemptId) => later(() => acquirer.inquire(attemptId)),
  };
}
