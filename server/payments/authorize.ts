import type { Acquirer, AcquirerAnswer, AuthorizationRequest, CardOnFileRequest, SmartRetryOrigin } from '../acquirers/types.ts';
import type { CreatePaymentCommand } from '../domain/commands.ts';
import { GatewayError, withReason } from '../domain/errors.ts';
import { newNdc, newResourceId } from '../domain/ids.ts';
import type { FinalResult, PaymentRecord } from '../domain/payment.ts';
import { statusOfResult, withResult } from '../domain/paymentState.ts';
import { RESULTS } from '../domain/resultCodes.ts';
import { scheduleJob } from '../jobs/repository.ts';
import { recordRegistration, registrationOfPayment, registrationUsed } from '../registrations/storedCards.ts';
import type { Queryable } from '../store/index.ts';
import { eraseSealed } from '../vault/repository.ts';
import { callAcquirer, type CallOutcome } from './acquirerCalls.ts';
import { nextInquiryAt } from './awaiting.ts';
import type { LedgerWrite } from './ledger.ts';
import type { PaymentServices } from './services.ts';
import { smartRetryAfter, softDeclineDetails, type FirstOutcome, type RetryableAttempt } from './smartRetryFallback.ts';
import { providerFields, shopperReturnUrlOf } from './shopperReturn.ts';
import type { AttemptPlan } from './store/attempts.ts';
import { findPayment } from './store/payments.ts';

/**
 * The step every payment flow shares (flows/): a new payment as it starts, the gateway's refusal of a brand the
 * entity does not offer, the authorization asked of an acquirer with its attempt committed first (the ledger opens
 * it) and its answer recorded (settled: the payment, the card it stores, the capture it schedules), and how an
 * acquirer's answer becomes a payment's result. The flows decide what to ask; this is how it is asked and recorded.
 */

/**
 * What tells a new payment apart before anything decides it: the payment record but for what newPayment starts empty
 * (no result, no reference, no redirect or registration yet) and makes (ndc, creation time). `acquirer` is who decides
 * it as far as is known now: `gateway` until an acquirer is asked. `id` is chosen before the payment exists (a
 * checkout's attempt, an idempotency key, a schedule's fire time), or undefined for a new one.
 */
export type NewPayment = Omit<
  PaymentRecord,
  | 'id'
  | 'resultCode'
  | 'resultDescription'
  | 'status'
  | 'acquirerReference'
  | 'resultDetails'
  | 'threeDSecure'
  | 'redirect'
  | 'registrationId'
  | 'ndc'
  | 'createdAt'
> & { readonly id: string | undefined };

/** The payment as it will be recorded, before anything decides it (declined until a result is given). */
export function newPayment(fields: NewPayment, createdAt: Date): PaymentRecord {
  return {
    ...fields,
    id: fields.id ?? newResourceId(),
    resultCode: '',
    resultDescription: '',
    status: 'declined',
    acquirerReference: null,
    resultDetails: null,
    threeDSecure: null,
    redirect: null,
    registrationId: null,
    ndc: newNdc(fields.entityId),
    createdAt,
  };
}

/**
 * COMPAT §7: a brand the entity does not offer is refused before anything is recorded, naming paymentBrand (a card
 * paid without paymentBrand is checked with the brand its number shows).
 */
export async function refuseUnoffered(services: PaymentServices, entityId: string, brand: string): Promise<void> {
  if (await services.brandOffers.offers(entityId, brand)) return;
  const message = 'is not a payment brand this entity offers';
  throw new GatewayError(withReason(RESULTS.notConfiguredForMethod, `${brand} ${message}`), 400, [{ name: 'paymentBrand', value: brand, message }]);
}

/**
 * A payment with the acquirer's final answer. Its resultDetails always carry `ExtendedDescription` (COMPAT §15: the
 * acquirer's own words when it gives some, else the answer's description), next to what the acquirer sent; the
 * 3-D Secure authentication an acquirer ran itself is shown as the payment's.
 */
export function withAnswer(payment: PaymentRecord, answer: AcquirerAnswer): PaymentRecord {
  return {
    ...withResult(payment, answer),
    resultDetails: { ExtendedDescription: answer.description, ...answer.details },
    acquirerReference: answer.reference,
    ...(answer.threeDSecure ? { threeDSecure: { ...answer.threeDSecure } } : {}),
  };
}

/** How an acquirer's call ended, as its payment records it: its answer, or that it could not be reached (`payment.acquirer`). */
export function withOutcome(payment: PaymentRecord, outcome: FirstOutcome): PaymentRecord {
  return 'answer' in outcome
    ? withAnswer(payment, outcome.answer)
    : withResult(payment, withReason(RESULTS.acquirerUnreachable, `the acquirer ${payment.acquirer} could not be reached`));
}

/** What a payment whose acquirer's answer was lost says of itself until the acquirer is asked. */
export const OUTCOME_UNKNOWN_DETAIL =
  'The acquirer’s answer did not arrive: the gateway asks the acquirer what it did, and notifies the final result';

/** The payment recorded while its attempt awaits: the acquirer's pending answer (where the shopper goes), or (undefined) none it could read. */
function awaitingPayment(payment: PaymentRecord, answer: AcquirerAnswer | undefined): PaymentRecord {
  if (!answer) return { ...withResult(payment, RESULTS.pending), resultDetails: { ExtendedDescription: OUTCOME_UNKNOWN_DETAIL } };
  return { ...withAnswer(payment, answer), redirect: answer.redirect ?? null };
}

/**
 * What a payment awaiting its acquirer's final word writes (the acquirer answered pending, or — no `answer` — its answer
 * was lost): the payment pending, its attempt left open and asked about on the schedule of awaiting.ts.
 */
export function awaitingWrite(payment: PaymentRecord, attemptId: string, answer: AcquirerAnswer | undefined, now: Date): LedgerWrite {
  return { payments: [awaitingPayment(payment, answer)], awaits: { attemptId, nextInquiryAt: nextInquiryAt(now, answer ? 'pending' : 'unknown', 0) } };
}

/** A payment's recorded result as a pending payment's final one (with the registration the final success created). */
export function finalResultOf(payment: PaymentRecord, registrationId: string | null = null): FinalResult {
  return {
    resultCode: payment.resultCode,
    resultDescription: payment.resultDescription,
    resultDetails: payment.resultDetails,
    threeDSecure: payment.threeDSecure,
    acquirerReference: payment.acquirerReference,
    registrationId,
  };
}

export const CAPTURE_AT_ONCE_JOB = 'payments.captureAtOnce';
/** The job's margin for the request that captures by itself: only a crash leaves the capture to it. */
export const CAPTURE_SAFETY_NET_MS = 5 * 60_000;

/**
 * PA.CP (flows/captureAtOnce.ts): the job that captures an approved preauthorization, scheduled in the transaction
 * that records the approval, in case the request that captures at once does not.
 */
export async function scheduleCaptureAtOnce(tx: Queryable, preauthorization: PaymentRecord, now: Date, delayMs: number): Promise<void> {
  await scheduleJob(
    tx,
    {
      kind: CAPTURE_AT_ONCE_JOB,
      uniqueKey: `${CAPTURE_AT_ONCE_JOB}:${preauthorization.id}`,
      runAt: new Date(now.getTime() + delayMs),
      payload: { entityId: preauthorization.entityId, paymentId: preauthorization.id },
    },
    now,
  );
}

/** What an authorization sends of the instrument: the card, or the account of another instrument. */
export type SentInstrument = Partial<
  Pick<AuthorizationRequest, 'card' | 'bankAccount' | 'tokenAccount' | 'virtualAccount' | 'testResult' | 'asynchronous' | 'walletToken'>
>;

export interface AuthorizeOptions {
  /** The standing instruction the payment is part of (flows/cardOnFile.ts: a merchant-initiated one's resolved). */
  readonly cardOnFile: CardOnFileRequest | undefined;
  /** The 3-D Secure authentication (the gateway's own, or the merchant's external data passed through as sent). */
  readonly threeDSecure?: Readonly<Record<string, string>>;
  /** What to seal and store as a registration when the authorization is approved (createRegistration=true). */
  readonly cardToStore?: unknown;
  /** The acquirer's reference of the PA an incremental authorization or reauthorization follows. */
  readonly referencedReference?: string | null;
  /** Whether a rejection may be retried at the entity's fallback acquirer (a new card payment's may). */
  readonly smartRetry?: boolean;
}

/**
 * Asks the acquirer to authorize, with the attempt committed first (and the card sealed with it when it is to be
 * stored), then records how the call ended (acquirerCalls.ts): the acquirer's answer, or the fallback acquirer's after
 * a smart retry; a decline when it could not be reached; a pending payment awaiting the acquirer when it answered
 * pending or its answer was lost.
 */
export async function authorizeAndRecord(
  services: PaymentServices,
  command: CreatePaymentCommand,
  acquirer: Acquirer,
  payment: PaymentRecord,
  sent: SentInstrument,
  options: AuthorizeOptions,
): Promise<PaymentRecord> {
  const { cardOnFile, threeDSecure, cardToStore, referencedReference = null, smartRetry = false } = options;
  const attemptId = newResourceId();
  const sealedCardId = cardToStore ? newResourceId() : null;
  const shopperReturnUrl = shopperReturnUrlOf(command, payment.id);
  const plan: Extract<AttemptPlan, { kind: 'initial' }> = {
    kind: 'initial',
    payment: { ...payment, acquirer: acquirer.name },
    registerSealedCardId: sealedCardId,
    captureAtOnce: command.captureAtOnce,
    cardOnFile,
    ...(shopperReturnUrl !== undefined ? { shopperReturnUrl } : {}),
  };
  await services.ledger.open(
    { id: attemptId, acquirer: acquirer.name, plan, createdAt: payment.createdAt },
    cardToStore && sealedCardId ? { id: sealedCardId, value: services.vault.seal(cardToStore) } : undefined,
    { freshPaymentId: command.freshPaymentId || command.paymentId === undefined },
  );
  const requestTo = (target: Acquirer, id: string, retryOf?: SmartRetryOrigin): AuthorizationRequest => ({
    attemptId: id,
    entityId: payment.entityId,
    paymentId: payment.id,
    paymentType: command.paymentType,
    amountMinor: payment.amountMinor,
    currency: payment.currency,
    testMode: command.testMode,
    card: undefined,
    ...sent,
    threeDSecure,
    cardOnFile,
    storesCard: cardToStore !== undefined,
    referencedReference,
    // A connector's provider takes the merchant's data and runs the shopper's pages itself.
    ...(target.simulated ? {} : providerFields(command, { publicUrl: services.publicUrl, acquirer: target.name, attemptId: id }, shopperReturnUrl !== undefined)),
    ...(retryOf ? { retryOf } : {}),
  });
  let attempt: RetryableAttempt<typeof plan> = { id: attemptId, plan };
  let outcome = await callAcquirer(services, attempt, () => acquirer.authorize(requestTo(acquirer, attemptId)));
  // Smart retry (smartRetryFallback.ts): a soft reject, or a request that never reached the acquirer, may go once
  // more to the entity's fallback acquirer, under the same payment id. An outcome that is not known never is.
  const retry = smartRetry && !('unknown' in outcome) ? await smartRetryAfter(services, attempt, acquirer, outcome, withOutcome(plan.payment, outcome)) : undefined;
  if (retry?.kind === 'finishedMeanwhile') {
    const recorded = await findPayment(services.store, payment.entityId, payment.id);
    if (!recorded) throw new Error(`payment ${payment.id} was finished without a record`);
    return recorded;
  }
  if (retry) {
    const retried = retry.attempt;
    attempt = retried;
    outcome = await callAcquirer(services, retried, () => retry.fallback.authorize(requestTo(retry.fallback, retried.id, retry.retryOf)));
  }
  const [recorded] = await services.ledger.record(authorizationOutcome(services, attempt, outcome));
  return recorded as PaymentRecord;
}

/**
 * What an initial payment's outcome writes: the payment, and the card it stored (a registration when approved, erased
 * from the vault when not) — or, while the acquirer's final word is awaited, the payment pending with the attempt left
 * open. Used by the request that asked and by the recovery of its attempt alike.
 */
export function authorizationOutcome(services: PaymentServices, attempt: InitialAttempt, outcome: CallOutcome): LedgerWrite {
  if ('unknown' in outcome) return awaitingWrite(attempt.plan.payment, attempt.id, undefined, services.now());
  if ('unreachable' in outcome) return settleAuthorization(services, attempt, withOutcome(attempt.plan.payment, outcome));
  if (statusOfResult(outcome.answer.code) === 'pending') return awaitingWrite(attempt.plan.payment, attempt.id, outcome.answer, services.now());
  return settleAuthorization(services, attempt, withAnswer(attempt.plan.payment, outcome.answer));
}

type InitialAttempt = { readonly id: string; readonly plan: Extract<AttemptPlan, { kind: 'initial' }> };

/** The payment with a smart retry's marks, when its attempt was the retry. */
function markedRetry(plan: Extract<AttemptPlan, { kind: 'initial' | 'afterRedirect' }>, answered: PaymentRecord): PaymentRecord {
  return plan.softDeclineOf === undefined ? answered : { ...answered, resultDetails: softDeclineDetails(answered.resultDetails, plan.softDeclineOf) };
}

/**
 * What an initial payment's final answer writes (`answered`: the plan's payment with it): the payment, the card it
 * stored (a registration when approved, erased from the vault when not), the capture it makes at once.
 */
export function settleAuthorization(services: PaymentServices, attempt: InitialAttempt, answered: PaymentRecord): LedgerWrite {
  const { plan } = attempt;
  const payment = markedRetry(plan, answered);
  const registration = payment.status === 'approved' && plan.registerSealedCardId !== null ? registrationOfPayment(payment, plan.registerSealedCardId, payment.createdAt) : undefined;
  return {
    payments: [registration ? { ...payment, registrationId: registration.id } : payment],
    attemptId: attempt.id,
    alongside: (tx) => alongsideAuthorization(services, tx, plan, payment, registration, CAPTURE_SAFETY_NET_MS),
  };
}

/**
 * An awaiting initial payment's final answer (the acquirer's word after a pending answer, or the one a lost answer
 * turned out to be): the pending payment, locked by the caller, becomes final, with what a final answer brings.
 */
export async function finishAuthorization(services: PaymentServices, tx: Queryable, attempt: InitialAttempt, pending: PaymentRecord, answered: PaymentRecord): Promise<void> {
  const { plan } = attempt;
  const payment = markedRetry(plan, answered);
  const now = services.now();
  const registration = payment.status === 'approved' && plan.registerSealedCardId !== null ? registrationOfPayment(payment, plan.registerSealedCardId, now) : undefined;
  const finished = await services.ledger.finish(tx, pending, finalResultOf(payment, registration?.id ?? null), now, attempt.id);
  // No request waits to capture it: the job does at once.
  if (finished) await alongsideAuthorization(services, tx, plan, finished, registration, 0);
}

/** What a final answer brings besides the payment: the registration (or the card's erasure), the capture at once. */
async function alongsideAuthorization(
  services: PaymentServices,
  tx: Queryable,
  plan: Extract<AttemptPlan, { kind: 'initial' }>,
  payment: PaymentRecord,
  registration: ReturnType<typeof registrationOfPayment> | undefined,
  captureDelayMs: number,
): Promise<void> {
  if (registration) await recordRegistration(tx, services.outbox, registration);
  else if (plan.registerSealedCardId !== null) await eraseSealed(tx, plan.registerSealedCardId, services.now());
  await registrationUsed(services, tx, payment, services.now());
  // Should the capture at once never happen (the process dies first), the job makes it.
  if (payment.status === 'approved' && plan.captureAtOnce) await scheduleCaptureAtOnce(tx, payment, services.now(), captureDelayMs);
}
