import { AcquirerOutcomeUnknownError, AcquirerUnreachableError, type AcquirerAnswer } from '../acquirers/types.ts';
import { GatewayError } from '../domain/errors.ts';
import { eraseSealed } from '../vault/repository.ts';
import type { PaymentServices } from './services.ts';
import type { AttemptPlan } from './store/attempts.ts';

/**
 * How one call to an acquirer ends, as the payment core tells it apart (DESIGN principle 13):
 *
 * - an answer (approved, declined, or pending at the acquirer);
 * - unreachable: the request certainly never left, so nothing can have happened;
 * - unknown: it was sent (or may have been) and no answer can be read — a timeout, a reset, a 5xx, anything
 *   unexpected. The attempt is never sent again; the acquirer is asked what it did (recovery.ts).
 *
 * An acquirer's refusal of the request as it stood (a GatewayError: a parameter it would not take, no credentials
 * for the entity) made nothing: the attempt is closed as refused, and the refusal is the merchant's answer.
 */
export type CallOutcome =
  | { readonly answer: AcquirerAnswer }
  | { readonly unreachable: AcquirerUnreachableError }
  | { readonly unknown: Error };

export async function callAcquirer(
  services: PaymentServices,
  attempt: { readonly id: string; readonly plan: AttemptPlan },
  call: () => Promise<AcquirerAnswer>,
): Promise<CallOutcome> {
  const acquirer = attempt.plan.payment.acquirer;
  try {
    const answer = await call();
    services.onAcquirerCall?.(acquirer, 'answer');
    return { answer };
  } catch (error) {
    if (error instanceof AcquirerUnreachableError) {
      services.onAcquirerCall?.(acquirer, 'unreachable');
      return { unreachable: error };
    }
    if (error instanceof GatewayError) {
      services.onAcquirerCall?.(acquirer, 'refused');
      await closeRefused(services, attempt);
      throw error;
    }
    services.onAcquirerCall?.(acquirer, 'unknown');
    // Whatever else went wrong, the request may have been made: it is asked about, never made again.
    if (!(error instanceof AcquirerOutcomeUnknownError)) services.logger.error('an acquirer call failed unexpectedly: its outcome is asked of the acquirer', { attemptId: attempt.id, error });
    else services.logger.warn('the outcome of an acquirer call is unknown: the acquirer will be asked', { attemptId: attempt.id, reason: error.reason });
    return { unknown: error instanceof Error ? error : new Error(String(error)) };
  }
}

/**
 * Closes an attempt the acquirer refused: nothing was made, and a new payment's card held for a registration goes (a
 * challenged payment's card is its redirect's, which its end erases).
 */
async function closeRefused(services: PaymentServices, attempt: { readonly id: string; readonly plan: AttemptPlan }): Promise<void> {
  const now = services.now();
  await services.store.transaction(async (tx) => {
    await services.ledger.close(tx, attempt.id, 'refused', now);
    if (attempt.plan.kind === 'initial' && attempt.plan.registerSealedCardId !== null) await eraseSealed(tx, attempt.plan.registerSealedCardId, now);
  });
}
