import { PermanentJobError, exponentialBackoff, type JobHandler } from '../jobs/registry.ts';
import { settleWaiting } from '../payments/flows/asynchronous.ts';
import { REDIRECT_SETTLEMENT_JOB, REDIRECT_TIMEOUT_JOB, timeOutRedirect } from '../payments/flows/pending.ts';
import type { PaymentServices } from '../payments/services.ts';

/**
 * The jobs of waiting payments: the one that ends a redirect nothing decided by its deadline, so no payment stays
 * pending forever, and the provider's word on a waiting asynchronous payment (the simulated provider's, or the
 * operator's given on the command line), so it is given by a running gateway, through the acquirer.
 */
export function redirectJobHandlers(payments: PaymentServices): JobHandler[] {
  // Retried until they work: only a database outage (or an acquirer that cannot be reached) can make them fail.
  const retried = { maxAttempts: 50, retryDelayMs: exponentialBackoff(5_000, 5 * 60_000) };
  return [
    {
      kind: REDIRECT_TIMEOUT_JOB,
      ...retried,
      run: async (job) => {
        const redirectId = job.payload.redirectId;
        if (typeof redirectId !== 'string') throw new PermanentJobError('malformed redirect timeout payload');
        await timeOutRedirect(payments, redirectId);
      },
    },
    {
      kind: REDIRECT_SETTLEMENT_JOB,
      ...retried,
      run: async (job) => {
        const { redirectId, outcome } = job.payload;
        if (typeof redirectId !== 'string' || (outcome !== 'approved' && outcome !== 'declined')) throw new PermanentJobError('malformed settlement payload');
        await settleWaiting(payments, redirectId, outcome);
      },
    },
  ];
}
