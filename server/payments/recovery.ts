import { AcquirerOutcomeUnknownError, type AcquirerAnswer, type InquiredAttempt } from '../acquirers/types.ts';
import { withReason } from '../domain/errors.ts';
import type { PaymentRecord } from '../domain/payment.ts';
import { statusOfResult, withResult } from '../domain/paymentState.ts';
import { RESULTS } from '../domain/resultCodes.ts';
import type { JobHandler } from '../jobs/registry.ts';
import type { Queryable } from '../store/index.ts';
import { eraseSealed } from '../vault/repository.ts';
import { awaitingWrite, finalResultOf, finishAuthorization, settleAuthorization, withAnswer } from './authorize.ts';
import { nextInquiryAt } from './awaiting.ts';
import { endUnanswered, settleAfterRedirect } from './flows/pending.ts';
import type { PaymentServices } from './services.ts';
import { findAttempt, findOpenAttempts, lockAttempt, type AcquirerAttempt } from './store/attempts.ts';
import { findPayment, lockPayment } from './store/payments.ts';

/**
 * The recovery of acquirer attempts left open (store/attempts.ts): the gateway process that asked the acquirer died
 * before it recorded the answer, or the attempt awaits its acquirer's final word (awaiting.ts: the acquirer answered
 * pending, or its answer was lost after the request was sent). For each, the acquirer is asked what became of the
 * attempt — never asked to make it again — and what it says is recorded exactly as the request would have recorded
 * it; an attempt the acquirer never received is closed as such (no money moved, so there is nothing to record but
 * that, and a payment the merchant was told is pending ends declined). An orphan is taken over only when its instance
 * is gone, or after ABANDONED_AFTER_MS whatever its instance says (an acquirer call never takes that long); an
 * awaiting attempt when its inquiry is due.
 */

export const RECOVER_ATTEMPTS_JOB = 'payments.recoverAttempts';
/** How often the recovery looks, and how old an attempt must be before it does. */
export const RECOVERY_INTERVAL_MS = 60_000;
const MIN_AGE_MS = 30_000;
const ABANDONED_AFTER_MS = 10 * 60_000;
const BATCH = 100;

/**
 * Recovers one attempt: asks its acquirer what became of it (unless `told`: the acquirer's own word, a notification
 * it sent), then records that exactly as the request would have. True when this call finished the attempt.
 */
export async function recoverAttempt(services: PaymentServices, attempt: Pick<AcquirerAttempt, 'id' | 'acquirer'>, told?: AcquirerAnswer): Promise<boolean> {
  const acquirer = services.acquirers.get(attempt.acquirer);
  if (!acquirer) {
    services.logger.error('open acquirer attempt of an acquirer that is not configured', { attemptId: attempt.id, acquirer: attempt.acquirer });
    return false;
  }
  const found = await findAttempt(services.store, attempt.id);
  if (!found || found.finishedAt !== null) return false;
  let answer = told;
  if (!answer) {
    // Outside any lock: the acquirer is asked, then the answer is recorded under the attempt's lock.
    try {
      answer = await acquirer.inquire(inquiryOf(found, await findPayment(services.store, found.entityId, found.plan.payment.id)));
    } catch (error) {
      if (!(error instanceof AcquirerOutcomeUnknownError)) throw error;
      // The acquirer cannot say yet: asked again later, and nothing is sent again meanwhile.
      await services.store.transaction((tx) => services.ledger.awaitAgain(tx, found.id, nextInquiryAt(services.now(), 'unknown', found.inquiries + 1), true));
      services.logger.warn('acquirer attempt still unknown: asked again later', { attemptId: found.id, reason: error.reason });
      return false;
    }
  }
  const known = answer;
  return services.store.transaction((tx) => recordRecovered(services, tx, found.id, known));
}

/** What the acquirer is asked about an attempt: its id, and its own reference once a pending answer gave one. */
function inquiryOf(attempt: AcquirerAttempt, recorded: PaymentRecord | undefined): InquiredAttempt {
  return {
    attemptId: attempt.id,
    entityId: attempt.entityId,
    paymentType: attempt.plan.payment.paymentType,
    reference: recorded?.status === 'pending' ? recorded.acquirerReference : null,
    sentAt: attempt.createdAt,
  };
}

/** Records what the acquirer did with the attempt (undefined: it never received it), under the attempt's lock. */
async function recordRecovered(services: PaymentServices, tx: Queryable, attemptId: string, answer: AcquirerAnswer | undefined): Promise<boolean> {
  const locked = await lockAttempt(tx, attemptId);
  if (!locked || locked.finishedAt !== null) return false;
  const now = services.now();
  const { plan } = locked;
  const payment = await lockPayment(tx, plan.payment.entityId, plan.payment.id);
  if (payment && payment.status !== 'pending') {
    // Recorded meanwhile (a request that finished after all): only the attempt is left to close.
    await services.ledger.close(tx, locked.id, 'recorded', now);
    return true;
  }
  if (!answer) {
    await recordNeverReceived(services, tx, locked, payment, now);
    services.logger.warn('acquirer attempt closed: the acquirer never received it', { attemptId: locked.id, paymentId: plan.payment.id });
    return true;
  }
  if (statusOfResult(answer.code) === 'pending') {
    if (payment) {
      await services.ledger.awaitAgain(tx, locked.id, nextInquiryAt(now, 'pending', locked.inquiries + 1), true);
      return false;
    }
    // The answer the dead instance never recorded was pending: recorded so now, awaiting the acquirer's final word.
    if (plan.kind !== 'afterRedirect') {
      await services.ledger.recordIn(tx, awaitingWrite(plan.payment, locked.id, answer, now));
    }
    return false;
  }
  switch (plan.kind) {
    case 'initial': {
      const answered = withAnswer(plan.payment, answer);
      if (payment) await finishAuthorization(services, tx, { id: locked.id, plan }, payment, answered);
      else await services.ledger.recordIn(tx, settleAuthorization(services, { id: locked.id, plan }, answered));
      break;
    }
    case 'backOffice':
      if (payment) await services.ledger.finish(tx, payment, finalResultOf(withAnswer(plan.payment, answer)), now, locked.id);
      else await services.ledger.recordIn(tx, { payments: [withAnswer(plan.payment, answer)], attemptId: locked.id });
      break;
    case 'afterRedirect':
      await settleAfterRedirect(services, tx, { id: locked.id, plan }, answer);
      break;
  }
  services.logger.warn('acquirer attempt recovered: its answer is recorded', { attemptId: locked.id, paymentId: plan.payment.id });
  return true;
}

/**
 * The acquirer never received the attempt: nothing moved. A payment recorded pending meanwhile (its request told the
 * merchant the answer was awaited) ends declined as unreachable; otherwise only the attempt closes. What waited on it
 * is released.
 */
async function recordNeverReceived(services: PaymentServices, tx: Queryable, attempt: AcquirerAttempt, payment: PaymentRecord | undefined, now: Date): Promise<void> {
  const { plan } = attempt;
  if (plan.kind === 'afterRedirect') {
    await endUnanswered(services, tx, { id: attempt.id, plan }, now);
    return;
  }
  if (payment) {
    const unreachable = withResult(payment, withReason(RESULTS.acquirerUnreachable, 'the request never reached the acquirer'));
    await services.ledger.finish(tx, payment, { ...finalResultOf(unreachable), resultDetails: null }, now, attempt.id);
  } else {
    await services.ledger.close(tx, attempt.id, 'unknown', now);
  }
  if (plan.kind === 'initial' && plan.registerSealedCardId !== null) await eraseSealed(tx, plan.registerSealedCardId, now);
}

/** The attempts to take over now: orphans old enough whose instance is gone (or far too old to be in flight), and those whose inquiry is due. */
export async function orphanedAttempts(services: PaymentServices): Promise<AcquirerAttempt[]> {
  const now = services.now();
  const open = await findOpenAttempts(services.store, new Date(now.getTime() - MIN_AGE_MS), now, BATCH);
  const orphaned: AcquirerAttempt[] = [];
  for (const attempt of open) {
    // An attempt awaiting its acquirer is asked about when its inquiry is due, whichever instance opened it.
    const due = attempt.nextInquiryAt !== null;
    const abandoned = now.getTime() - attempt.createdAt.getTime() >= ABANDONED_AFTER_MS;
    if (due || abandoned || !(await services.store.isInstanceAlive(attempt.instanceId))) orphaned.push(attempt);
  }
  return orphaned;
}

export function recoveryJobHandlers(services: PaymentServices): JobHandler[] {
  return [
    {
      kind: RECOVER_ATTEMPTS_JOB,
      everyMs: RECOVERY_INTERVAL_MS,
      maxAttempts: 3,
      retryDelayMs: () => 30_000,
      run: async (_job, context) => {
        for (const attempt of await orphanedAttempts(services)) {
          try {
            await recoverAttempt(services, attempt);
          } catch (error) {
            // One attempt's trouble (its acquirer down) must not hold back the others: it is retried next round.
            context.logger.error('acquirer attempt not recovered', { attemptId: attempt.id, error });
          }
        }
      },
    },
  ];
}
