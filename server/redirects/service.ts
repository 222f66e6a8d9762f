import {
  authenticationResult,
  TEST_CHALLENGE_CODE,
  type AuthenticationIds,
  type AuthenticationStatus,
} from '../acquirers/threeDSecure.ts';
import type { Acquirer, TestMode } from '../acquirers/types.ts';
import { notifyCheckoutOfFinalPayment } from '../checkouts/callbacks.ts';
import type { InitialPaymentType } from '../domain/backOffice.ts';
import { isSuccessfulCode, RESULTS, type Result } from '../domain/resultCodes.ts';
import { scheduleJob } from '../jobs/repository.ts';
import type { Logger } from '../logger.ts';
import type { CardVault, HeldCard } from '../vault/cardVault.ts';
import { eraseSealed, findSealed } from '../vault/repository.ts';
import {
  findPayment,
  finishPendingPayment,
  lockPayment,
  type FinalResult,
  type PaymentRecord,
  type PaymentRedirect,
  type CardSummary,
} from '../payments/repository.ts';
import { insertRegistration } from '../registrations/repository.ts';
import { newRegistration } from '../registrations/service.ts';
import type { Queryable, Store } from '../store/index.ts';
import {
  findRedirect,
  finishRedirect,
  insertRedirect,
  type NewRedirect,
  type RedirectOutcome,
  type RedirectRecord,
} from './repository.ts';

/**
 * The pages a shopper visits before a pending payment becomes final: the simulated issuer's 3-D Secure
 * challenge, and the simulated provider page of an asynchronous payment method.
 *
 *   pending ──answer: success──▶ authorized by the acquirer (3-D Secure) / confirmed by the provider
 *           ├─answer: wrong code──▶ 100.380.401        ├─answer: cancel──▶ 100.396.101
 *           └─no answer for REDIRECT_LIFETIME_MS (job, or the next visit)──▶ 100.396.103
 *
 * Each redirect ends exactly once: its row is locked, then the payment's, and a second answer (a replay, a
 * double click, an answer after the timeout) finds the outcome set and changes nothing.
 */

/** How long a shopper has for the page before the payment fails (a 3-D Secure ACS allows about as long). */
export const REDIRECT_LIFETIME_MS = 10 * 60_000;
export const REDIRECT_TIMEOUT_JOB = 'redirect.timeout';

export interface RedirectContext {
  readonly store: Store;
  readonly acquirer: Acquirer;
  readonly vault: CardVault;
  readonly now: () => Date;
  readonly logger: Logger;
}

/** The pages live under the gateway's own address: the only redirect URLs it hands out. */
export function redirectUrl(publicUrl: string, redirectId: string, paymentId: string): PaymentRedirect {
  return { url: `${publicUrl}/v1/redirects/${redirectId}`, parameters: [{ name: 'paymentId', value: paymentId }] };
}

/** Records the redirect of a pending payment and the job that ends it if the shopper never answers. Same transaction as the payment. */
export async function recordRedirect(tx: Queryable, redirect: Omit<NewRedirect, 'expiresAt'>): Promise<void> {
  const expiresAt = new Date(redirect.createdAt.getTime() + REDIRECT_LIFETIME_MS);
  await insertRedirect(tx, { ...redirect, expiresAt });
  await scheduleJob(
    tx,
    { kind: REDIRECT_TIMEOUT_JOB, uniqueKey: `${REDIRECT_TIMEOUT_JOB}:${redirect.id}`, runAt: expiresAt, payload: { redirectId: redirect.id } },
    redirect.createdAt,
  );
}

function isExpired(redirect: RedirectRecord, now: Date): boolean {
  return now.getTime() >= redirect.expiresAt.getTime();
}

const FAILED_AUTHENTICATION: AuthenticationStatus = 'N';

/** The final result for an outcome: the acquirer decides a success, the gateway everything else. */
async function finalResult(
  tx: Queryable,
  context: RedirectContext,
  redirect: RedirectRecord,
  payment: PaymentRecord,
  outcome: RedirectOutcome,
): Promise<FinalResult> {
  const refused = (result: Result, threeDSecure: Record<string, string> | null): FinalResult => ({
    resultCode: result.code,
    resultDescription: result.description,
    approved: false,
    resultDetails: null,
    threeDSecure,
    registrationId: null,
  });
  const brand = payment.paymentBrand ?? '';
  const ids: AuthenticationIds | null = redirect.authentication;
  const authentication = (status: AuthenticationStatus) => (ids ? authenticationResult(brand, status, ids) : null);
  const common = {
    paymentId: payment.id,
    paymentType: payment.paymentType as InitialPaymentType,
    amountMinor: payment.amountMinor,
    currency: payment.currency,
    testMode: (payment.testMode ?? undefined) as TestMode | undefined,
  };

  switch (outcome) {
    case 'cancel':
      return refused(RESULTS.cancelledByUser, authentication(FAILED_AUTHENTICATION));
    case 'timeout':
      return refused(RESULTS.pendingTimedOut, authentication(FAILED_AUTHENTICATION));
    case 'failure':
      return refused(RESULTS.authenticationFailed, authentication(FAILED_AUTHENTICATION));
    case 'success': {
      if (redirect.kind === 'provider') {
        const answer = await context.acquirer.confirmRedirectPayment({ ...common, brand });
        return {
          resultCode: answer.code,
          resultDescription: answer.description,
          approved: isSuccessfulCode(answer.code),
          resultDetails: { ...answer.details },
          threeDSecure: null,
          registrationId: null,
        };
      }
      const threeDSecure = authentication('Y');
      const card = await openHeldCard(tx, context, redirect.sealedCardId);
      if (!card || !threeDSecure) return refused(RESULTS.threeDSecureTechnicalError, threeDSecure);
      const answer = await context.acquirer.authorize({ ...common, card: { ...card, cvv: undefined }, threeDSecure });
      return {
        resultCode: answer.code,
        resultDescription: answer.description,
        approved: isSuccessfulCode(answer.code),
        resultDetails: { ...answer.details },
        threeDSecure,
        registrationId: null,
      };
    }
  }
}

/** The held card, or undefined when it cannot be opened (another key, or altered): the payment then fails cleanly. */
async function openHeldCard(tx: Queryable, context: RedirectContext, sealedCardId: string | null): Promise<HeldCard | undefined> {
  const sealed = sealedCardId === null ? undefined : await findSealed(tx, sealedCardId);
  if (!sealed) return undefined;
  try {
    return context.vault.open<HeldCard>(sealed);
  } catch (error) {
    context.logger.error('held card could not be opened', { error });
    return undefined;
  }
}

/** Ends a locked, unfinished redirect with `outcome`: the payment's final result, then the redirect's. Returns it ended. */
async function finish(tx: Queryable, context: RedirectContext, redirect: RedirectRecord, outcome: RedirectOutcome): Promise<RedirectRecord> {
  const payment = await lockPayment(tx, redirect.entityId, redirect.paymentId);
  if (!payment) throw new Error(`payment ${redirect.paymentId} of redirect ${redirect.id} is missing`);
  let result = await finalResult(tx, context, redirect, payment, outcome);
  const finishedAt = context.now();
  // createRegistration=true on a challenged card: stored now that the payment is approved (doc 3 §2.5), the
  // registration taking over the card the challenge held. Otherwise nothing of the card outlives the wait.
  const registers = result.approved && redirect.sealedCardId !== null && payment.card !== null && payment.requestEcho.createRegistration === 'true';
  if (registers) {
    const registration = newRegistration(payment.entityId, payment.card as CardSummary, payment.paymentBrand ?? '', redirect.sealedCardId as string, finishedAt);
    await insertRegistration(tx, registration);
    result = { ...result, registrationId: registration.id };
  }
  await finishPendingPayment(tx, payment.id, result);
  await finishRedirect(tx, redirect.id, outcome, finishedAt);
  if (redirect.sealedCardId !== null && !registers) await eraseSealed(tx, redirect.sealedCardId, finishedAt);
  return { ...redirect, outcome, finishedAt, sealedCardId: null };
}

async function afterFinish(context: RedirectContext, redirect: RedirectRecord): Promise<void> {
  // After the commit, so a notification never announces a result that was not recorded.
  await notifyCheckoutOfFinalPayment(context.store, redirect.paymentId, context.now()).catch((error: unknown) =>
    context.logger.error('checkout notification not scheduled', { paymentId: redirect.paymentId, error }),
  );
}

export type RedirectView =
  | { readonly kind: 'unknown' }
  | { readonly kind: 'otherPayment' }
  /** Ended: by an earlier answer, by the timeout job, or by this visit coming too late. */
  | { readonly kind: 'finished'; readonly redirect: RedirectRecord }
  /** Waiting for the shopper: the page shows the payment's amount. */
  | { readonly kind: 'open'; readonly redirect: RedirectRecord; readonly payment: PaymentRecord };

/**
 * The page the shopper's browser opened (GET, or the POST of redirect.parameters). A redirect past its time is
 * ended here too, so the shopper sees the timeout even if the job has not run yet.
 */
export async function viewRedirect(context: RedirectContext, id: string, postedPaymentId: string | undefined): Promise<RedirectView> {
  const seen = await context.store.transaction(async (tx) => {
    const redirect = await findRedirect(tx, id, { forUpdate: true });
    if (!redirect) return { kind: 'unknown' } as const;
    if (postedPaymentId !== undefined && postedPaymentId !== redirect.paymentId) return { kind: 'otherPayment' } as const;
    if (redirect.outcome !== null) return { kind: 'finished', redirect, endedNow: false } as const;
    if (isExpired(redirect, context.now())) return { kind: 'finished', redirect: await finish(tx, context, redirect, 'timeout'), endedNow: true } as const;
    return { kind: 'open', redirect } as const;
  });
  switch (seen.kind) {
    case 'unknown':
    case 'otherPayment':
      return seen;
    case 'finished':
      if (seen.endedNow) await afterFinish(context, seen.redirect);
      return { kind: 'finished', redirect: seen.redirect };
    case 'open': {
      const payment = await findPayment(context.store, seen.redirect.entityId, seen.redirect.paymentId);
      return payment ? { kind: 'open', redirect: seen.redirect, payment } : { kind: 'unknown' };
    }
  }
}

export interface RedirectAnswer {
  readonly action: 'submit' | 'cancel';
  readonly otp: string | undefined;
  readonly paymentId: string | undefined;
}

export type AnswerResult =
  | { readonly kind: 'unknown' }
  | { readonly kind: 'otherPayment' }
  /** This answer ended the redirect (as timed out, when it came too late: `redirect.outcome` says which). */
  | { readonly kind: 'answered'; readonly redirect: RedirectRecord }
  /** Nothing changed: it had ended already (answered, or timed out — `redirect.outcome` says which). */
  | { readonly kind: 'alreadyFinished'; readonly redirect: RedirectRecord };

function outcomeOf(redirect: RedirectRecord, answer: RedirectAnswer): RedirectOutcome {
  if (answer.action === 'cancel') return 'cancel';
  if (redirect.kind === 'provider') return 'success';
  return answer.otp?.trim() === TEST_CHALLENGE_CODE ? 'success' : 'failure';
}

/** The shopper's answer on the page: decided once, under the redirect's lock. */
export async function answerRedirect(context: RedirectContext, id: string, answer: RedirectAnswer): Promise<AnswerResult> {
  const decided = await context.store.transaction(async (tx): Promise<AnswerResult> => {
    const redirect = await findRedirect(tx, id, { forUpdate: true });
    if (!redirect) return { kind: 'unknown' };
    if (answer.paymentId !== redirect.paymentId) return { kind: 'otherPayment' };
    if (redirect.outcome !== null) return { kind: 'alreadyFinished', redirect };
    // Too late: the payment ends as timed out, whatever the answer said.
    const outcome = isExpired(redirect, context.now()) ? 'timeout' : outcomeOf(redirect, answer);
    return { kind: 'answered', redirect: await finish(tx, context, redirect, outcome) };
  });
  if (decided.kind === 'answered') await afterFinish(context, decided.redirect);
  return decided;
}

/** The timeout job: ends the redirect if nobody answered. Idempotent: a finished redirect is left alone. */
export async function timeOutRedirect(context: RedirectContext, id: string): Promise<void> {
  const ended = await context.store.transaction(async (tx) => {
    const redirect = await findRedirect(tx, id, { forUpdate: true });
    if (!redirect || redirect.outcome !== null) return undefined;
    if (!isExpired(redirect, context.now())) throw new Error(`redirect ${id} is not due yet`);
    return finish(tx, context, redirect, 'timeout');
  });
  if (ended) await afterFinish(context, ended);
}
