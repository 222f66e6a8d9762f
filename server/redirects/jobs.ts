import { PermanentJobError, exponentialBackoff, type JobHandler } from '../jobs/registry.ts';
import { REDIRECT_TIMEOUT_JOB, timeOutRedirect } from '../payments/pending.ts';
import type { PaymentServices } from '../payments/services.ts';

/** The job that ends an unanswered redirect, so no payment stays pending forever. */
export function redirectJobHandlers(payments: PaymentServices): JobHandler[] {
  return [
    {
      kind: REDIRECT_TIMEOUT_JOB,
      // Retried until it works: only a database outage can make it fail.
      maxAttempts: 50,
      retryDelayMs: exponentialBackoff(5_000, 5 * 60_000),
      run: async (job) => {
        const redirectId = job.payload.redirectId;
        if (typeof redirectId !== 'string') throw new PermanentJobError('malformed redirect timeout payload');
        await timeOutRedirect(payments, redirectId);
      },
    },
  ];
}
