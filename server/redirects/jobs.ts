import { exponentialBackoff, PermanentJobError, type JobHandler } from '../jobs/registry.ts';
import { REDIRECT_TIMEOUT_JOB, timeOutRedirect, type RedirectContext } from './service.ts';

/** The job that ends an unanswered redirect, so no payment stays pending forever. */
export function redirectJobHandlers(context: Omit<RedirectContext, 'store' | 'now' | 'logger'>): JobHandler[] {
  return [
    {
      kind: REDIRECT_TIMEOUT_JOB,
      // Retried until it works: only a database or acquirer outage can make it fail.
      maxAttempts: 50,
      retryDelayMs: exponentialBackoff(5_000, 5 * 60_000),
      run: async (job, jobContext) => {
        const redirectId = job.payload.redirectId;
        if (typeof redirectId !== 'string') throw new PermanentJobError('malformed redirect timeout payload');
        await timeOutRedirect({ ...context, store: jobContext.store, now: jobContext.now, logger: jobContext.logger }, redirectId);
      },
    },
  ];
}
