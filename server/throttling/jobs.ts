import type { JobHandler } from '../jobs/registry.ts';
import { pruneLimitHits } from './limiter.ts';

export const PRUNE_LIMIT_HITS_JOB = 'throttling.prune';
const HOUR_MS = 60 * 60_000;

/** Forgets counted requests once no limit's window (a minute at most) can reach them any more. */
export function throttlingJobHandlers(): JobHandler[] {
  return [
    {
      kind: PRUNE_LIMIT_HITS_JOB,
      everyMs: HOUR_MS,
      maxAttempts: 3,
      retryDelayMs: () => 5 * 60_000,
      run: async (_job, context) => {
        const pruned = await pruneLimitHits(context.store, context.now(), HOUR_MS);
        context.logger.info('counted requests pruned', { pruned });
      },
    },
  ];
}
