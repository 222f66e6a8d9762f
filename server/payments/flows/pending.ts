import {
  authenticationResult,
  TEST_CHALLENGE_CODE,
  type AuthenticationIds,
  type AuthenticationStatus,
} from '../../acquirers/threeDSecure.ts';
import type { Acquirer, AcquirerAnswer, SmartRetryOrigin } from '../../acquirers/types.ts';
import type { CreatePaymentCommand } from '../../domain/commands.ts';
import { GatewayError, invalidParameters, withReason, type ParameterError } from '../../domain/errors.ts';
import { newResourceId } from '../../domain/ids.ts';
import type { FinalResult, InitialPaymentType, PaymentRecord, PaymentRedirect, TestMode } from '../../domain/payment.ts';
import { statusOfResult, withResult } from '../../domain/paymentState.ts';
import { RESULTS, type Result } from '../../domain/resultCodes.ts';
import { scheduleJob } from '../../jobs/repository.ts';
import { findEntityName } from '../../merchants/repository.ts';
import { recordRegistration, registrationOfPayment, registrationUsed } from '../../registrations/storedCards.ts';
import type { Queryable } from '../../store/index.ts';
import type { HeldCard } from '../../vault/cardVault.ts';
import { asyncBrand } from '../../../widget/shared/asyncBrands.ts';
import { PROVIDER_CONFIRMATION_MS } from '../../acquirers/simulatedProviders.ts';
import { eraseSealed, findSealed, keepSealed } from '../../vault/repository.ts';
import { callAcquirer, type CallOutcome } from '../acquirerCalls.ts';
import { scheduleCaptureAtOnce, withOutcome } from '../authorize.ts';
import { nextInquiryAt } from '../awaiting.ts';
import type { PaymentServices } from '../services.ts';
import { smartRetryAfter, softDeclineDetails, type RetryableAttempt } from '../smartRetryFallback.ts';
import type { AcquirerAttempt, AttemptPlan } from '../store/attempts.ts';
import {
  decideRedirect,
  findRedirect,
  finishRedirect,
  insertRedirect,
  leaveRedirectPending,
  type NewRedirect,
  type RedirectOutcome,
  type RedirectRecord,
} from '../store/paymentRedirects.ts';
import { lockPayment } from '../store/payments.ts';
import { recordedCardOnFile } from './cardOnFile.ts';

/**
 * Payments that wait (doc 1 §3 rule 1): for the shopper on the simulated issuer's 3-D Secure challenge or on the
 * simulated provider page of an asynchronous brand, or for money the shopper pays later (asynchronous.ts: a cash
 * voucher, a prepayment, a provider page left pending). The payment is recorded pending with its redirect, and
 * becomes final exactly once:
 *
 *   pending ──answer: success──▶ (attempt committed) ──acquirer, outside any lock──▶ approved | declined
 *           ├─answer: wrong code──▶ 100.380.401        ├─answer: cancel──▶ 100.396.101
 *           ├─provider declines──▶ 800.100.100         ├─funds arrive / provider confirms──▶ (as a success)
 *           └─nothing until expiresAt (job, or the next visit)──▶ 100.396.103 (100.395.501: a transfer left pending)
 *
 * Each redirect's outcome is decided once, under its row lock: a second answer (a replay, a double click, an answer
 * after the timeout) finds it decided and changes nothing. A success is decided, and its acquirer attempt committed,
 * before the acquirer is asked; the answer is recorded under the payment's lock afterwards, or by the recovery job
 * if the process dies in between (recovery.ts).
 */

/** How long a shopper has for the page before the payment fails (a 3-D Secure ACS allows about as long). */
export const REDIRECT_LIFETIME_MS = 10 * 60_000;
export const REDIRECT_TIMEOUT_JOB = 'redirect.timeout';

/** The pages live under the gateway's own address: the only redirect URLs it hands out. */
export function redirectUrl(publicUrl: string, redirectId: string, paymentId: string): PaymentRedirect {
  return { url: `${publicUrl}/v1/redirects/${redirectId}`, parameters: [{ name: 'paymentId', value: paymentId }] };
}

/** Doc 2 §2.9: the browser data 3-D Secure 2 needs (marked "Mandatory for 3D Secure v2"). */
const BROWSER_FIELDS = [
  'customer.browser.acceptHeader',
  'customer.browser.language',
  'customer.browser.screenHeight',
  'customer.browser.screenWidth',
  'customer.browser.timezone',
  'customer.browser.userAgent',
  'customer.browser.javaEnabled',
];

/**
 * A payment that sends the shopper to a page needs somewhere to bring them back to (doc 3 §2.8); an issuer
 * authenticates the shopper's browser, so 3-D Secure also needs the browser fields (doc 2 §2.9). Everything
 * missing is reported at once. Returns the shopperResultUrl.
 */
export function requireRedirectData(command: CreatePaymentCommand, why: string, needsBrowser: boolean): string {
  const missing: ParameterError[] = needsBrowser
    ? BROWSER_FIELDS.filter((name) => !(name in command.browser)).map((name) => ({
        name,
        value: '',
        message: 'is required for 3-D Secure when no external threeDSecure data is sent',
      }))
    : [];
  const url = command.shopperResultUrl;
  if (url === undefined) missing.push({ name: 'shopperResultUrl', value: '', message: `is required ${why}` });
  if (url === undefined || missing.length > 0) throw invalidParameters(missing);
  return url;
}

export interface PendingStart {
  readonly kind: NewRedirect['kind'];
  /** Until when the payment waits (default: REDIRECT_LIFETIME_MS, a page's time). */
  readonly expiresAt?: Date;
  /** When the simulated provider settles it by itself (a cash voucher paid, a transfer arrived), if it does. */
  readonly settlesAt?: Date;
  readonly returnUrl: string;
  readonly authentication: AuthenticationIds | null;
  /** What the page calls the merchant; the entity's name unless given. */
  readonly merchantName: string | undefined;
  /** The card the authorization after a challenge needs: kept sealed while the shopper answers. */
  readonly heldCard: HeldCard | null;
  readonly createRegistration: boolean;
  readonly captureAtOnce: boolean;
}

/**
 * Records a pending payment with its redirect and the job that ends it if the shopper never answers, in one
 * transaction: a redirect never points at a payment that was not recorded.
 */
export async function recordPending(services: PaymentServices, payment: PaymentRecord, start: PendingStart): Promise<PaymentRecord> {
  const redirectId = newResourceId();
  // A prepayment has no page: the answer tells the shopper where to transfer to (its resultDetails).
  const withRedirect: PaymentRecord = start.kind === 'prepayment' ? payment : { ...payment, redirect: redirectUrl(services.publicUrl, redirectId, payment.id) };
  const expiresAt = start.expiresAt ?? new Date(payment.createdAt.getTime() + REDIRECT_LIFETIME_MS);
  return services.store.transaction(async (tx) => {
    const merchantName = start.merchantName ?? (await findEntityName(tx, payment.entityId)) ?? payment.entityId;
    const sealedCardId = start.heldCard ? await keepSealed(tx, services.vault.seal(start.heldCard), payment.createdAt) : null;
    const [recorded] = await services.ledger.recordIn(tx, { payments: [withRedirect] });
    await insertRedirect(tx, {
      id: redirectId,
      paymentId: payment.id,
      kind: start.kind,
      merchantName,
      returnUrl: start.returnUrl,
      authentication: start.authentication,
      sealedCardId,
      createRegistration: start.createRegistration,
      captureAtOnce: start.captureAtOnce,
      createdAt: payment.createdAt,
      expiresAt,
    });
    await scheduleJob(
      tx,
      { kind: REDIRECT_TIMEOUT_JOB, uniqueKey: `${REDIRECT_TIMEOUT_JOB}:${redirectId}`, runAt: expiresAt, payload: { redirectId } },
      payment.createdAt,
    );
    if (start.settlesAt) await scheduleSimulatedSettlement(tx, redirectId, start.settlesAt, payment.createdAt);
    return recorded as PaymentRecord;
  });
}

export function isExpired(redirect: RedirectRecord, now: Date): boolean {
  return now.getTime() >= redirect.expiresAt.getTime();
}

const FAILED_AUTHENTICATION: AuthenticationStatus = 'N';

/** A final result the gateway decides alone; a voucher's or prepayment's instructions stay with the payment. */
function refusedResult(result: Result, threeDSecure: Record<string, string> | null, resultDetails: Record<string, string> | null = null): FinalResult {
  return {
    resultCode: result.code,
    resultDescription: result.description,
    resultDetails,
    threeDSecure,
    acquirerReference: null,
    registrationId: null,
  };
}

/** The redirect's authentication result with `status`, for a 3-D Secure challenge (none for a provider page). */
function authenticationOf(redirect: RedirectRecord, payment: PaymentRecord, status: AuthenticationStatus): Record<string, string> | null {
  return redirect.authentication ? authenticationResult(payment.paymentBrand ?? '', status, redirect.authentication) : null;
}

/**
 * The result of a redirect that ends without success: a wrong 3-D Secure code, a provider's decline, the shopper's
 * cancel, or its deadline passed — for a transfer the shopper left pending at the bank, the platform's online-transfer
 * timeout.
 */
function unsuccessfulResult(redirect: RedirectRecord, brand: string | null, outcome: Exclude<RedirectOutcome, 'success'>): Result {
  switch (outcome) {
    case 'cancel':
      return RESULTS.cancelledByUser;
    case 'failure':
      return redirect.kind === 'threeDSecure' ? RESULTS.authenticationFailed : RESULTS.declinedUnknownReason;
    case 'timeout':
      return redirect.leftPendingAt !== null && asyncBrand(brand ?? '')?.family === 'onlineTransfer' ? RESULTS.onlineTransferTimedOut : RESULTS.pendingTimedOut;
  }
}

/**
 * Ends a locked, undecided redirect with an outcome the gateway decides alone (cancel, failure, timeout, or a held
 * card that cannot be opened any more): the payment's final result, then the redirect's. Returns it ended.
 */
export async function endWithoutAcquirer(
  services: PaymentServices,
  tx: Queryable,
  redirect: RedirectRecord,
  outcome: RedirectOutcome,
  result: FinalResult | undefined = undefined,
): Promise<RedirectRecord> {
  const payment = await lockPayment(tx, redirect.entityId, redirect.paymentId);
  if (!payment) throw new Error(`payment ${redirect.paymentId} of redirect ${redirect.id} is missing`);
  const now = services.now();
  const failed = authenticationOf(redirect, payment, FAILED_AUTHENTICATION);
  const final = result ?? refusedResult(unsuccessfulResult(redirect, payment.paymentBrand, outcome as Exclude<RedirectOutcome, 'success'>), failed, payment.resultDetails);
  await services.ledger.finish(tx, payment, final, now);
  await finishRedirect(tx, redirect.id, outcome, now);
  if (redirect.sealedCardId !== null) await eraseSealed(tx, redirect.sealedCardId, now);
  return { ...redirect, outcome, finishedAt: now, sealedCardId: null };
}

/**
 * Records the acquirer's answer to a success: the payment's final result, a registration when one was asked for
 * (it takes over the card the challenge held; otherwise nothing of the card outlives the wait), and the redirect's
 * end. Called by the answering request, or by the recovery job when that request's process died.
 */
export async function settleAfterRedirect(
  services: PaymentServices,
  tx: Queryable,
  attempt: Pick<AcquirerAttempt, 'id'> & { readonly plan: Extract<AttemptPlan, { kind: 'afterRedirect' }> },
  answer: AcquirerAnswer,
): Promise<RedirectRecord> {
  const { plan } = attempt;
  const redirect = await findRedirect(tx, plan.redirectId, { forUpdate: true });
  const payment = await lockPayment(tx, plan.payment.entityId, plan.payment.id);
  if (!redirect || !payment) throw new Error(`redirect ${plan.redirectId} or its payment is missing`);
  const now = services.now();
  if (payment.status !== 'pending') {
    // Finished already (by this attempt's recovery): only the attempt is left to close.
    await services.ledger.close(tx, attempt.id, 'recorded', now);
    return redirect;
  }
  const approved = statusOfResult(answer.code) === 'approved';
  const keepsCard = approved && plan.registerSealedCardId !== null && payment.card !== null;
  // A smart retry's answer (smartRetryFallback.ts) names the rejection it follows, and the acquirer that now holds the payment.
  // A voucher's or prepayment's instructions (the pending payment's details) stay with the paid payment.
  const answerDetails = { ...payment.resultDetails, ...answer.details };
  const resultDetails = plan.softDeclineOf === undefined ? answerDetails : softDeclineDetails(answerDetails, plan.softDeclineOf);
  const answered = { ...payment, status: statusOfResult(answer.code), resultDetails };
  const registration = keepsCard ? registrationOfPayment(answered, plan.registerSealedCardId as string, now) : undefined;
  if (registration) await recordRegistration(tx, services.outbox, registration);
  else await registrationUsed(services, tx, answered, now);
  const finished = await services.ledger.finish(
    tx,
    payment,
    {
      resultCode: answer.code,
      resultDescription: answer.description,
      resultDetails,
      threeDSecure: plan.threeDSecure,
      acquirerReference: answer.reference,
      registrationId: registration?.id ?? null,
      acquirer: plan.payment.acquirer,
    },
    now,
    attempt.id,
  );
  await finishRedirect(tx, redirect.id, 'success', now);
  if (redirect.sealedCardId !== null && !keepsCard) await eraseSealed(tx, redirect.sealedCardId, now);
  if (approved && plan.captureAtOnce && finished) await scheduleCaptureAtOnce(tx, finished, now, 0);
  return { ...redirect, outcome: 'success', finishedAt: now, sealedCardId: null };
}

/** The held card, or undefined when it cannot be opened (another key, or altered): the payment then fails cleanly. */
async function openHeldCard(services: PaymentServices, tx: Queryable, sealedCardId: string | null): Promise<HeldCard | undefined> {
  const sealed = sealedCardId === null ? undefined : await findSealed(tx, sealedCardId);
  if (!sealed) return undefined;
  try {
    return services.vault.open<HeldCard>(sealed);
  } catch (error) {
    services.logger.error('held card could not be opened', { error });
    return undefined;
  }
}

/** A success to ask the acquirer about, decided and committed with its attempt. */
export interface SuccessToAsk {
  readonly attemptId: string;
  readonly plan: Extract<AttemptPlan, { kind: 'afterRedirect' }>;
  readonly card: HeldCard | undefined;
}

/**
 * Decides a locked, undecided redirect's success: the attempt to ask the acquirer with, committed with the decision
 * (so a concurrent answer finds it decided), or the redirect ended at once when the held card cannot be opened.
 */
export async function decideSuccess(services: PaymentServices, tx: Queryable, redirect: RedirectRecord): Promise<SuccessToAsk | RedirectRecord> {
  const payment = await lockPayment(tx, redirect.entityId, redirect.paymentId);
  if (!payment) throw new Error(`payment ${redirect.paymentId} of redirect ${redirect.id} is missing`);
  const card = redirect.kind === 'threeDSecure' ? await openHeldCard(services, tx, redirect.sealedCardId) : undefined;
  const threeDSecure = authenticationOf(redirect, payment, 'Y');
  if (redirect.kind === 'threeDSecure' && (!card || !threeDSecure)) {
    return endWithoutAcquirer(services, tx, redirect, 'success', refusedResult(RESULTS.threeDSecureTechnicalError, threeDSecure));
  }
  const plan: SuccessToAsk['plan'] = {
    kind: 'afterRedirect',
    payment,
    redirectId: redirect.id,
    threeDSecure,
    registerSealedCardId: redirect.createRegistration ? redirect.sealedCardId : null,
    captureAtOnce: redirect.captureAtOnce,
    cardOnFile: recordedCardOnFile(payment),
  };
  const attemptId = newResourceId();
  await services.ledger.openIn(tx, { id: attemptId, acquirer: payment.acquirer, plan, createdAt: services.now() });
  await decideRedirect(tx, redirect.id, 'success');
  return { attemptId, plan, card };
}

/**
 * Asks the payment's acquirer about a decided success, outside any lock, then records the answer. A card payment's
 * authorization the acquirer rejects softly (or that never reaches it) may be made once more at the entity's
 * fallback acquirer (smartRetryFallback.ts), with the same authentication.
 */
export async function askAcquirer(services: PaymentServices, success: SuccessToAsk): Promise<RedirectRecord> {
  const { plan, card } = success;
  const acquirer = services.acquirers.get(plan.payment.acquirer);
  if (!acquirer) throw new Error(`acquirer ${plan.payment.acquirer} of payment ${plan.payment.id} is not configured`);
  const common = {
    entityId: plan.payment.entityId,
    paymentId: plan.payment.id,
    paymentType: plan.payment.paymentType as InitialPaymentType,
    amountMinor: plan.payment.amountMinor,
    currency: plan.payment.currency,
    testMode: (plan.payment.testMode ?? undefined) as TestMode | undefined,
  };
  const ask = (target: Acquirer, attemptId: string, retryOf: SmartRetryOrigin | undefined) =>
    card
      ? target.authorize({
          ...common,
          attemptId,
          card: { ...card, cvv: undefined },
          threeDSecure: plan.threeDSecure ?? undefined,
          cardOnFile: plan.cardOnFile,
          storesCard: plan.registerSealedCardId !== null,
          referencedReference: null,
          ...(retryOf ? { retryOf } : {}),
        })
      : target.confirmRedirectPayment({ ...common, attemptId, brand: plan.payment.paymentBrand ?? '' });
  let attempt: RetryableAttempt<SuccessToAsk['plan']> = { id: success.attemptId, plan };
  let outcome: CallOutcome;
  try {
    outcome = await callAcquirer(services, attempt, () => ask(acquirer, success.attemptId, undefined));
    // Only a card's authorization is retried: a provider's confirmation has no other acquirer; an unknown outcome never is.
    const retry = card && !('unknown' in outcome) ? await smartRetryAfter(services, attempt, acquirer, outcome, withOutcome(plan.payment, outcome)) : undefined;
    if (retry?.kind === 'finishedMeanwhile') {
      const redirect = await findRedirect(services.store, plan.redirectId);
      if (!redirect) throw new Error(`redirect ${plan.redirectId} is missing`);
      return redirect;
    }
    if (retry) {
      const retried = retry.attempt;
      attempt = retried;
      outcome = await callAcquirer(services, retried, () => ask(retry.fallback, retried.id, retry.retryOf));
    }
  } catch (error) {
    if (!(error instanceof GatewayError)) throw error;
    // The acquirer refused the authorization as it stood (a fallback without the entity's credentials): the pending
    // payment ends with that refusal, and nothing was made.
    const refusal = error.result;
    return services.store.transaction(async (tx) => {
      const redirect = await findRedirect(tx, plan.redirectId, { forUpdate: true });
      if (!redirect) throw new Error(`redirect ${plan.redirectId} is missing`);
      return endWithoutAcquirer(services, tx, redirect, 'success', refusedResult(refusal, plan.threeDSecure));
    });
  }
  const settled = attempt;
  const known = outcome;
  return services.store.transaction(async (tx) => {
    if ('answer' in known && statusOfResult(known.answer.code) !== 'pending') return settleAfterRedirect(services, tx, settled, known.answer);
    if ('unreachable' in known) return endUnanswered(services, tx, settled, services.now());
    // The acquirer's final word is awaited (recovery.ts): the payment stays pending, its redirect decided.
    await services.ledger.awaitAgain(tx, settled.id, nextInquiryAt(services.now(), 'answer' in known ? 'pending' : 'unknown', 0), false);
    const redirect = await findRedirect(tx, plan.redirectId);
    if (!redirect) throw new Error(`redirect ${plan.redirectId} is missing`);
    return redirect;
  });
}

/**
 * A success whose authorization never reached the acquirer: the attempt closes, the pending payment ends failed,
 * nothing was charged. Returns the redirect ended.
 */
export async function endUnanswered(
  services: PaymentServices,
  tx: Queryable,
  attempt: { readonly id: string; readonly plan: Extract<AttemptPlan, { kind: 'afterRedirect' }> },
  now: Date,
): Promise<RedirectRecord> {
  const { plan } = attempt;
  await services.ledger.close(tx, attempt.id, 'unknown', now);
  const payment = await lockPayment(tx, plan.payment.entityId, plan.payment.id);
  const redirect = await findRedirect(tx, plan.redirectId, { forUpdate: true });
  if (!payment || !redirect) throw new Error(`redirect ${plan.redirectId} or its payment is missing`);
  const failed = withResult(payment, withReason(RESULTS.acquirerUnreachable, 'the authorization never reached the acquirer'));
  await services.ledger.finish(
    tx,
    payment,
    { resultCode: failed.resultCode, resultDescription: failed.resultDescription, resultDetails: null, threeDSecure: plan.threeDSecure, acquirerReference: null, registrationId: null },
    now,
  );
  await finishRedirect(tx, redirect.id, 'success', now);
  if (redirect.sealedCardId !== null) await eraseSealed(tx, redirect.sealedCardId, now);
  return { ...redirect, outcome: 'success', finishedAt: now, sealedCardId: null };
}

export type RedirectView =
  | { readonly kind: 'unknown' }
  | { readonly kind: 'otherPayment' }
  /** Decided: by an earlier answer, by the timeout job, or by this visit coming too late. */
  | { readonly kind: 'finished'; readonly redirect: RedirectRecord }
  /** Waiting for the shopper: the page shows the payment's amount (a cash voucher's page: the voucher). */
  | { readonly kind: 'open'; readonly redirect: RedirectRecord; readonly payment: PaymentRecord }
  /** Waiting for the provider or the money, not for the shopper: the page says so (a provider page left pending). */
  | { readonly kind: 'waiting'; readonly redirect: RedirectRecord };

/** Whether the redirect waits for the provider's word or the shopper's money rather than an answer on a page. */
export function waitsForProvider(redirect: RedirectRecord): boolean {
  return redirect.kind === 'cashVoucher' || redirect.kind === 'prepayment' || redirect.leftPendingAt !== null;
}

/**
 * The page the shopper's browser opened (GET, or the POST of redirect.parameters). A redirect past its time is
 * ended here too, so the shopper sees the timeout even if the job has not run yet.
 */
export async function viewRedirect(services: PaymentServices, id: string, postedPaymentId: string | undefined): Promise<RedirectView> {
  return services.store.transaction(async (tx): Promise<RedirectView> => {
    const redirect = await findRedirect(tx, id, { forUpdate: true });
    if (!redirect) return { kind: 'unknown' };
    if (postedPaymentId !== undefined && postedPaymentId !== redirect.paymentId) return { kind: 'otherPayment' };
    if (redirect.outcome !== null) return { kind: 'finished', redirect };
    if (isExpired(redirect, services.now())) return { kind: 'finished', redirect: await endWithoutAcquirer(services, tx, redirect, 'timeout') };
    if (redirect.kind === 'prepayment' || redirect.leftPendingAt !== null) return { kind: 'waiting', redirect };
    const payment = await lockPayment(tx, redirect.entityId, redirect.paymentId);
    return payment ? { kind: 'open', redirect, payment } : { kind: 'unknown' };
  });
}

/**
 * The shopper's answer on a page: submit (the 3-D Secure code; a provider's approval, with a prepaid voucher's PIN),
 * cancel, or on a simulated provider's page decline (the provider refuses) or pending (the shopper leaves, the
 * provider confirms later).
 */
export interface RedirectAnswer {
  readonly action: 'submit' | 'cancel' | 'decline' | 'pending';
  readonly otp: string | undefined;
  /** A prepaid voucher's PIN (16 digits; spaces allowed). */
  readonly pin: string | undefined;
  readonly paymentId: string | undefined;
}

/** The PIN of a prepaid voucher (paysafecard's 16 digits): what the simulated provider page asks for. */
const VOUCHER_PIN = /^[0-9]{16}$/;

export type AnswerResult =
  | { readonly kind: 'unknown' }
  | { readonly kind: 'otherPayment' }
  /** This answer ended the redirect (as timed out, when it came too late: `redirect.outcome` says which). */
  | { readonly kind: 'answered'; readonly redirect: RedirectRecord }
  /** Nothing changed: it had been decided already (answered, or timed out — `redirect.outcome` says which). */
  | { readonly kind: 'alreadyFinished'; readonly redirect: RedirectRecord }
  /** Nothing changed: the payment waits for the provider or the money (the shopper left it pending, a voucher). */
  | { readonly kind: 'waiting'; readonly redirect: RedirectRecord }
  /** This answer left the provider's page with the payment pending. */
  | { readonly kind: 'leftPending'; readonly redirect: RedirectRecord }
  /** Nothing changed: the answer lacks what the page asked for (a voucher's PIN); the page asks again. */
  | { readonly kind: 'incomplete'; readonly redirect: RedirectRecord; readonly payment: PaymentRecord };

/** What an answer decides (a provider page's "pending" is no decision: answerRedirect handles it first). */
function outcomeOf(redirect: RedirectRecord, answer: RedirectAnswer): RedirectOutcome {
  if (answer.action === 'cancel') return 'cancel';
  // The challenge page offers nothing but the code: any other action is a failed authentication.
  if (redirect.kind === 'threeDSecure') return answer.action === 'submit' && answer.otp?.trim() === TEST_CHALLENGE_CODE ? 'success' : 'failure';
  return answer.action === 'decline' ? 'failure' : 'success';
}

/** Whether a provider page's approval lacks the prepaid voucher's PIN it asks for. */
function lacksVoucherPin(payment: PaymentRecord, answer: RedirectAnswer): boolean {
  if (answer.action !== 'submit' || asyncBrand(payment.paymentBrand ?? '')?.family !== 'voucher') return false;
  return !VOUCHER_PIN.test((answer.pin ?? '').replace(/\s/g, ''));
}

/** The shopper's answer on the page: decided once, under the redirect's lock; a success then asks the acquirer. */
export async function answerRedirect(services: PaymentServices, id: string, answer: RedirectAnswer): Promise<AnswerResult> {
  const decided = await services.store.transaction(async (tx): Promise<AnswerResult | SuccessToAsk> => {
    const redirect = await findRedirect(tx, id, { forUpdate: true });
    if (!redirect) return { kind: 'unknown' };
    if (answer.paymentId !== redirect.paymentId) return { kind: 'otherPayment' };
    if (redirect.outcome !== null) return { kind: 'alreadyFinished', redirect };
    // Too late: the payment ends as timed out, whatever the answer said.
    if (isExpired(redirect, services.now())) return { kind: 'answered', redirect: await endWithoutAcquirer(services, tx, redirect, 'timeout') };
    if (waitsForProvider(redirect)) return { kind: 'waiting', redirect };
    if (redirect.kind === 'provider') {
      if (answer.action === 'pending') return { kind: 'leftPending', redirect: await leaveProviderPending(services, tx, redirect) };
      const payment = await lockPayment(tx, redirect.entityId, redirect.paymentId);
      if (payment && lacksVoucherPin(payment, answer)) return { kind: 'incomplete', redirect, payment };
    }
    const outcome = outcomeOf(redirect, answer);
    if (outcome !== 'success') return { kind: 'answered', redirect: await endWithoutAcquirer(services, tx, redirect, outcome) };
    const success = await decideSuccess(services, tx, redirect);
    return 'attemptId' in success ? success : { kind: 'answered', redirect: success };
  });
  if (!('attemptId' in decided)) return decided;
  return { kind: 'answered', redirect: await askAcquirer(services, decided) };
}

/**
 * The timeout job: ends the redirect if nothing decided it by its deadline. Idempotent: a decided redirect is left
 * alone, and one whose deadline moved (the shopper left the page pending) waits for the job of its new deadline.
 */
export async function timeOutRedirect(services: PaymentServices, id: string): Promise<void> {
  await services.store.transaction(async (tx) => {
    const redirect = await findRedirect(tx, id, { forUpdate: true });
    if (!redirect || redirect.outcome !== null || !isExpired(redirect, services.now())) return;
    await endWithoutAcquirer(services, tx, redirect, 'timeout');
  });
}

export const REDIRECT_SETTLEMENT_JOB = 'redirect.settle';

/** The simulated provider's own word, at `runAt`: the shopper's money arrived, or the bank confirmed the transfer. */
export async function scheduleSimulatedSettlement(tx: Queryable, redirectId: string, runAt: Date, now: Date): Promise<void> {
  await scheduleJob(
    tx,
    { kind: REDIRECT_SETTLEMENT_JOB, uniqueKey: `${REDIRECT_SETTLEMENT_JOB}:${redirectId}:simulated`, runAt, payload: { redirectId, outcome: 'approved' } },
    now,
  );
}

/**
 * The shopper leaves the provider's page with the payment pending (a transfer the bank has not confirmed): the
 * provider now has PROVIDER_CONFIRMATION_MS to confirm it; the simulated one does after SIMULATED_SETTLEMENT_MINUTES.
 */
async function leaveProviderPending(services: PaymentServices, tx: Queryable, redirect: RedirectRecord): Promise<RedirectRecord> {
  const now = services.now();
  const expiresAt = new Date(now.getTime() + PROVIDER_CONFIRMATION_MS);
  await leaveRedirectPending(tx, redirect.id, now, expiresAt);
  await scheduleJob(
    tx,
    { kind: REDIRECT_TIMEOUT_JOB, uniqueKey: `${REDIRECT_TIMEOUT_JOB}:${redirect.id}:left-pending`, runAt: expiresAt, payload: { redirectId: redirect.id } },
    now,
  );
  if (services.simulatedSettlementMs > 0) await scheduleSimulatedSettlement(tx, redirect.id, new Date(now.getTime() + services.simulatedSettlementMs), now);
  return { ...redirect, leftPendingAt: now, expiresAt };
}
