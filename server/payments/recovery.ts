import { withReason } from '../domain/errors.ts';
import { withResult } from '../domain/paymentState.ts';
import { RESULTS } from '../domain/resultCodes.ts';
import type { JobHandler } from '../jobs/registry.ts';
import type { Queryable } from '../store/index.ts';
import { eraseSealed } from '../vault/repository.ts';
import { settleAuthorization, withAnswer } from './authorize.ts';
import { settleAfterRedirect } from './flows/pending.ts';
import type { PaymentServices } from './services.ts';
import { findOpenAttempts, lockAttempt, type AcquirerAttempt } from './store/attempts.ts';
import { findRedirect, finishRedirect } from './store/paymentRedirects.ts';
import { lockPayment } from './store/payments.ts';

/**
 * The recovery of acquirer attempts left open: the gateway process that asked the acquirer died before it recorded
 * the answer (store/attempts.ts). For each, the acquirer is asked what became of the attempt; an answer is recorded exactly
 * as the dead process would have recorded it, and an attempt the acquirer never received is closed as such (no money
 * moved, so there is nothing to record but that). An attempt is taken over only when its instance is gone, or after
 * ABANDONED_AFTER_MS whatever its instance says (an acquirer call never takes that long).
 */

export const RECOVER_ATTEMPTS_JOB = 'payments.recoverAttempts';
/** How often the recovery looks, and how old an attempt must be before it does. */
export const RECOVERY_INTERVAL_MS = 60_000;
const MIN_AGE_MS = 30_000;
const ABANDONED_AFTER_MS = 10 * 60_000;
const BATCH = 100;

/** Recovers one attempt; true when this call finished it. */
export async function recoverAttempt(services: PaymentServices, attempt: Pick<AcquirerAttempt, 'id' | 'acquirer'>): Promise<boolean> {
  const acquirer = services.acquirers.get(attempt.acquirer);
  if (!acquirer) {
    services.logger.error('open acquirer attempt of an acquirer that is not configured', { attemptId: attempt.id, acquirer: attempt.acquirer });
    return false;
  }
  // Outside any lock: the acquirer is asked, then the answer is recorded under the attempt's lock.
  const answer = await acquirer.inquire(attempt.id);
  return services.store.transaction(async (tx) => {
    const locked = await lockAttempt(tx, attempt.id);
    if (!locked || locked.finishedAt !== null) return false;
    const now = services.now();
    const { plan } = locked;
    if (!answer) {
      // The acquirer never saw it: nothing moved. What waited on it is released.
      await services.ledger.close(tx, locked.id, 'unknown', now);
      if (plan.kind === 'initial' && plan.registerSealedCardId !== null) await eraseSealed(tx, plan.registerSealedCardId, now);
      if (plan.kind === 'afterRedirect') await endUnanswered(services, tx, plan, now);
      services.logger.warn('acquirer attempt closed: the acquirer never received it', { attemptId: locked.id, paymentId: plan.payment.id });
      return true;
    }
    switch (plan.kind) {
      case 'initial':
        await services.ledger.recordIn(tx, settleAuthorization(services, { id: locked.id, plan }, answer));
        break;
      case 'backOffice':
        await services.ledger.recordIn(tx, { payments: [withAnswer(plan.payment, answer)], attemptId: locked.id });
        break;
      case 'afterRedirect':
        await settleAfterRedirect(services, tx, { id: locked.id, plan }, answer);
        break;
    }
    services.logger.warn('acquirer attempt recovered: its answer is recorded', { attemptId: locked.id, paymentId: plan.payment.id });
    return true;
  });
}

/** A success whose authorization never reached the acquirer: the pending payment ends failed, nothing was charged. */
async function endUnanswered(
  services: PaymentServices,
  tx: Queryable,
  plan: Extract<AcquirerAttempt['plan'], { kind: 'afterRedirect' }>,
  now: Date,
): Promise<void> {
  const payment = await lockPayment(tx, plan.payment.entityId, plan.payment.id);
  const redirect = await findRedirect(tx, plan.redirectId, { forUpdate: true });
  if (!payment || !redirect) return;
  const failed = withResult(payment, withReason(RESULTS.acquirerUnreachable, 'the authorization never reached the acquirer'));
  await services.ledger.finish(
    tx,
    payment,
    { resultCode: failed.resultCode, resultDescription: failed.resultDescription, resultDetails: null, threeDSecure: plan.threeDSecure, acquirerReference: null, registrationId: null },
    now,
  );
  await finishRedirect(tx, redirect.id, 'success', now);
  if (redirect.sealedCardId !== null) await eraseSealed(tx, redirect.sealedCardId, now);
}

/** The attempts to take over now: old enough, and their instance gone (or far too old to be in flight). */
export async function orphanedAttempts(services: PaymentServices): Promise<AcquirerAttempt[]> {
  const now = services.now().getTime();
  const open = await findOpenAttempts(services.store, new Date(now - MIN_AGE_MS), BATCH);
  const orphaned: AcquirerAttempt[] = [];
  for (const attempt of open) {
    const abandoned = now - attempt.createdAt.getTime() >= ABANDONED_AFTER_MS;
    if (abandoned || !(await services.store.isInstanceAlive(attempt.instanceId))) orphaned.push(attempt);
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
