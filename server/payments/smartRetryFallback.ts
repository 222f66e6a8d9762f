import { smartRetryRoute } from '../acquirers/routing.ts';
import type { Acquirer, AcquirerAnswer, SmartRetryOrigin } from '../acquirers/types.ts';
import { newNdc, newResourceId } from '../domain/ids.ts';
import type { PaymentRecord } from '../domain/payment.ts';
import { RESULTS } from '../domain/resultCodes.ts';
import { mayBeRetried } from '../domain/smartRetryRules.ts';
import type { PaymentServices } from './services.ts';
import type { AttemptPlan } from './store/attempts.ts';

/**
 * Smart retry of an initial payment (COMPAT §15, spec 01 §4 "Smart retry flow"): a DB or PA that the default
 * acquirer rejects with one of the entity's soft-reject codes, or that never reached it, is made once more at the
 * entity's fallback acquirer. The merchant gets one answer, the fallback's, under the payment id the request was
 * given (an Idempotency-Key or a checkout may have chosen it); the rejected attempt becomes a payment of its own,
 * with a new id, queryable, named by the answer's `resultDetails.SoftDeclineTransactionId`.
 *
 *   attempt 1 (default, payment id P) ──soft reject / unreachable──▶ one transaction (group-committed): payment R
 *     (the rejection, new id) + its PAYMENT event, attempt 1 finished, attempt 2 (fallback, payment id P) opened
 *   attempt 2 ──answer──▶ payment P, marked SoftDeclineFallback (authorize.ts settleAuthorization,
 *     flows/pending.ts settleAfterRedirect)
 *
 * A crash cannot charge twice: until the switch commits, attempt 1 is open, and its recovery records the first
 * acquirer's answer as payment P (the rejection; no retry is made from a job); once it commits, attempt 1 is
 * closed and attempt 2 is open, and its recovery records the fallback's answer as payment P (or, when the fallback
 * never received it, closes it: the rejection is then all there is, and a repeat with the same Idempotency-Key pays
 * afresh under P). The switch itself is made under attempt 1's lock and only while it is open, so a recovery that
 * took attempt 1 over first wins. An answer lost after the request was sent (a timeout) is never retried.
 *
 * The same holds for a challenged card payment (3-D Secure): the pending redirect is answered as usual, before
 * either acquirer is asked, and the authorization after the challenge is the one retried (flows/pending.ts), with
 * the same authentication; payment P, pending until then, is finished with the fallback's answer.
 */

/** How the default acquirer's call ended: an answer, or the request never reached it. */
export type FirstOutcome = { readonly answer: AcquirerAnswer } | { readonly unreachable: Error };

/** An authorization smart retry may repeat: a new card payment's, or a challenged card payment's after the challenge. */
type RetryablePlan = Extract<AttemptPlan, { kind: 'initial' | 'afterRedirect' }>;

/** The attempt whose answer becomes the merchant's payment. */
export interface RetryableAttempt<P extends RetryablePlan = RetryablePlan> {
  readonly id: string;
  readonly plan: P;
}

export type SmartRetry<P extends RetryablePlan> =
  /** Ask `fallback` with this attempt (committed), telling it what it retries. */
  | { readonly kind: 'retry'; readonly fallback: Acquirer; readonly attempt: RetryableAttempt<P>; readonly retryOf: SmartRetryOrigin }
  /** The first attempt was finished meanwhile (its recovery took it over): what it recorded stands. */
  | { readonly kind: 'finishedMeanwhile' };

/** COMPAT §15: how the fallback's answer shows that it is one, and which rejection it follows. */
export function softDeclineDetails(details: Readonly<Record<string, string>> | null, rejectedPaymentId: string): Record<string, string> {
  return { ...details, SoftDeclineFallback: 'true', SoftDeclineTransactionId: rejectedPaymentId };
}

/** Card on file (COMPAT §11): a stored card, or a standing instruction (or the legacy recurringType). */
function isCardOnFile(plan: RetryablePlan): boolean {
  return plan.payment.registrationId !== null || plan.cardOnFile !== undefined;
}

/**
 * Decides whether the first attempt's outcome is retried and, if so, commits the switch to the fallback: `answered` is
 * the first attempt's payment with that outcome (authorize.ts withOutcome), which becomes the rejection's payment.
 * Undefined when it is not retried: the caller records the outcome as it would without smart retry. Settings are read
 * only for a rejection that could be retried (an approved payment reads nothing), through the entity's cached settings.
 */
export async function smartRetryAfter<P extends RetryablePlan>(
  services: PaymentServices,
  first: RetryableAttempt<P>,
  rejectedBy: Acquirer,
  outcome: FirstOutcome,
  answered: PaymentRecord,
): Promise<SmartRetry<P> | undefined> {
  const payment = first.plan.payment;
  const code = 'answer' in outcome ? outcome.answer.code : RESULTS.acquirerUnreachable.code;
  if (!mayBeRetried(payment.paymentType, code)) return undefined;
  const settings = await services.smartRetry.get(payment.entityId);
  const route = smartRetryRoute(services.acquirers, settings, rejectedBy, { code, cardOnFile: isCardOnFile(first.plan) });
  if (route.kind === 'unavailable') services.logger.warn('smart retry not made', { entityId: payment.entityId, paymentId: payment.id, reason: route.reason });
  if (route.kind !== 'retry') return undefined;
  const { fallback } = route;

  const now = services.now();
  const rejection: PaymentRecord = {
    ...answered,
    id: newResourceId(),
    ndc: newNdc(payment.entityId),
    // The checkout's payment is the merchant's answer: its notification (checkouts/callbacks.ts) is for that one only.
    checkoutId: null,
    redirect: null,
    // After a challenge, the authentication it produced; a new payment's is on it already.
    threeDSecure: first.plan.kind === 'afterRedirect' ? first.plan.threeDSecure : payment.threeDSecure,
    // A new payment's rejection came first and the fallback's payment after it; a challenged payment exists already.
    createdAt: first.plan.kind === 'initial' ? payment.createdAt : now,
  };
  const retried: PaymentRecord = { ...payment, acquirer: fallback.name, createdAt: first.plan.kind === 'initial' ? now : payment.createdAt };
  const attempt: RetryableAttempt<P> = { id: newResourceId(), plan: { ...first.plan, payment: retried, softDeclineOf: rejection.id } };
  // Group-committed with concurrent payments, under attempt 1's lock (ledger.ts switchAttempt).
  const made = await services.ledger.switchAttempt({
    rejection: { payments: [rejection], attemptId: first.id },
    next: { id: attempt.id, acquirer: fallback.name, plan: attempt.plan, createdAt: now },
  });
  const switched: SmartRetry<P> = made
    ? { kind: 'retry', fallback, attempt, retryOf: { acquirer: rejectedBy.name, code, reference: rejection.acquirerReference } }
    : { kind: 'finishedMeanwhile' };
  if (switched.kind === 'retry') {
    services.logger.info('smart retry: a payment the default acquirer rejected is made at the fallback acquirer', {
      entityId: payment.entityId,
      paymentId: payment.id,
      rejectedPaymentId: rejection.id,
      code,
      acquirer: rejectedBy.name,
      fallbackAcquirer: fallback.name,
    });
  }
  return switched;
}
