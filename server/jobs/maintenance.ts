import type { JobHandler } from './registry.ts';

export const VACUUM_JOB = 'store.vacuum';
const VACUUM_EVERY_MS = 10 * 60_000;

/**
 * The embedded store's autovacuum (store.vacuum): every ten minutes the space of rows deleted or updated since
 * (pruned limits and idempotency keys, finished attempts and jobs, pending payments made final) becomes reusable.
 */
export function maintenanceJobHandlers(): JobHandler[] {
  return [
    {
      kind: VACUUM_JOB,
      everyMs: VACUUM_EVERY_MS,
      maxAttempts: 3,
      retryDelayMs: () => 60_000,
      run: async (_job, context) => {
        await context.store.vacuum();
      },
    },
  ];
}
