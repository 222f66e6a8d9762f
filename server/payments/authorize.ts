import { AcquirerUnreachableError, type Acquirer, type AcquirerAnswer, type AuthorizationRequest, type CardOnFileRequest } from '../acquirers/types.ts';
import type { CreatePaymentCommand } from '../domain/commands.ts';
import { GatewayError, withReason } from '../domain/errors.ts';
import { newNdc, newResourceId } from '../domain/ids.ts';
import type { PaymentRecord } from '../domain/payment.ts';
import { withResult } from '../domain/paymentState.ts';
import { RESULTS } from '../domain/resultCodes.ts';
import { scheduleJob } from '../jobs/repository.ts';
import { recordRegistration, registrationOfPayment, registrationUsed } from '../registrations/storedCards.ts';
import type { Queryable } from '../store/index.ts';
import { eraseSealed } from '../vault/repository.ts';
import type { LedgerWrite } from './ledger.ts';
import type { PaymentServices } from './services.ts';
import { smartRetryAfter, softDeclineDetails, type FirstOutcome, type RetryableAttempt } from './smartRetryFallback.ts';
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
 * A payment with the acquirer's answer. Its resultDetails always carry `ExtendedDescription` (COMPAT §15: the
 * acquirer's own words when it gives some, else the answer's description), next to what the acquirer sent.
 */
export function withAnswer(payment: PaymentRecord, answer: AcquirerAnswer): PaymentRecord {
  return { ...withResult(payment, answer), resultDetails: { ExtendedDescription: answer.description, ...answer.details }, acquirerReference: answer.reference };
}

/** How the first acquirer's call ended, as the payment records it: its answer, or that it could not be reached. */
export function withOutcome(payment: PaymentRecord, outcome: FirstOutcome, acquirer: Acquirer): PaymentRecord {
  return 'answer' in outcome
    ? withAnswer(payment, outcome.answer)
    : withResult(payment, withReason(RESULTS.acquirerUnreachable, `the acquirer ${acquirer.name} could not be reached`));
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
export type SentInstrument = Partial<Pick<AuthorizationRequest, 'card' | 'bankAccount' | 'tokenAccount' | 'virtualAccount' | 'testResult'>>;

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
 * stored), then records the answer: the acquirer's, or the fallback acquirer's after a smart retry.
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
  const plan: Extract<AttemptPlan, { kind: 'initial' }> = {
    kind: 'initial',
    payment: { ...payment, acquirer: acquirer.name },
    registerSealedCardId: sealedCardId,
    captureAtOnce: command.captureAtOnce,
    cardOnFile,
  };
  await services.ledger.open(
    { id: attemptId, acquirer: acquirer.name, plan, createdAt: payment.createdAt },
    cardToStore && sealedCardId ? { id: sealedCardId, value: services.vault.seal(cardToStore) } : undefined,
    { freshPaymentId: command.freshPaymentId || command.paymentId === undefined },
  );
  const request: AuthorizationRequest = {
    attemptId,
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
  };
  let first: FirstOutcome;
  try {
    first = { answer: await acquirer.authorize(request) };
  } catch (error) {
    if (!(smartRetry && error instanceof AcquirerUnreachableError)) throw error;
    first = { unreachable: error };
  }
  let attempt: RetryableAttempt<typeof plan> = { id: attemptId, plan };
  let answer: AcquirerAnswer;
  // Smart retry (smartRetryFallback.ts): a soft reject, or a request that never reached the acquirer, may go once
  // more to the entity's fallback acquirer, under the same payment id.
  const retry = smartRetry ? await smartRetryAfter(services, attempt, acquirer, first, withOutcome(plan.payment, first, acquirer)) : undefined;
  if (retry?.kind === 'finishedMeanwhile') {
    const recorded = await findPayment(services.store, payment.entityId, payment.id);
    if (!recorded) throw new Error(`payment ${payment.id} was finished without a record`);
    return recorded;
  }
  if (retry) {
    attempt = retry.attempt;
    answer = await retry.fallback.authorize({ ...request, attemptId: attempt.id, retryOf: retry.retryOf });
  } else if ('answer' in first) {
    answer = first.answer;
  } else {
    throw first.unreachable;
  }
  const [recorded] = await services.ledger.record(settleAuthorization(services, attempt, answer));
  return recorded as PaymentRecord;
}

/**
 * What an initial payment's answer writes: the payment, and the card it stored (a registration when approved, erased
 * from the vault when not). Used by the request that asked and by the recovery of its attempt alike.
 */
export function settleAuthorization(
  services: PaymentServices,
  attempt: { readonly id: string; readonly plan: Extract<AttemptPlan, { kind: 'initial' }> },
  answer: AcquirerAnswer,
): LedgerWrite {
  const { plan } = attempt;
  const answered = withAnswer(plan.payment, answer);
  const payment = plan.softDeclineOf === undefined ? answered : { ...answered, resultDetails: softDeclineDetails(answered.resultDetails, plan.softDeclineOf) };
  const approved = payment.status === 'approved';
  const sealedCardId = plan.registerSealedCardId;
  const registration = approved && sealedCardId !== null ? registrationOfPayment(payment, sealedCardId, payment.createdAt) : undefined;
  return {
    payments: [registration ? { ...payment, registrationId: registration.id } : payment],
    attemptId: attempt.id,
    alongside: async (tx) => {
      if (registration) await recordRegistration(tx, services.outbox, registration);
      else if (sealedCardId !== null) await eraseSealed(tx, sealedCardId, services.now());
      await registrationUsed(services, tx, payment, services.now());
      // Should the capture at once never happen (the process dies first), the job makes it.
      if (approved && plan.captureAtOnce) await scheduleCaptureAtOnce(tx, payment, services.now(), CAPTURE_SAFETY_NET_MS);
    },
  };
}
