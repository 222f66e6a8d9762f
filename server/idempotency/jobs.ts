import type { JobHandler } from '../jobs/registry.ts';
import { pruneKeys } from './repository.ts';

export const PRUNE_KEYS_JOB = 'idempotency.prune';

/** Forgets idempotency keys after their 24 hours. */
export function idempotencyJobHandlers(): JobHandler[] {
  return [
    {
      kind: PRUNE_KEYS_JOB,
      everyMs: 60 * 60_000,
      maxAttempts: 3,
      retryDelayMs: () => 5 * 60_000,
      run: async (_job, context) => {
        context.logger.info('idempotency keys pruned', { pruned: await pruneKeys(context.store, context.now()) });
      },
    },
  ];
}
