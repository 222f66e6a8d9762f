import type { JobHandler } from '../jobs/registry.ts';
import { childrenOfUnstatedPayments, refreshLifecycles } from './store/payments.ts';

/**
 * The lifecycle state of payments recorded before the ledger wrote it (migration 0027 schedules this job once): each
 * payment with approved children gets its state from the rule itself, a batch per transaction. Idempotent: a payment
 * with its state written is not looked at again.
 */
export const LIFECYCLE_BACKFILL_JOB = 'payments.lifecycle-backfill';
const BATCH = 500;

export function lifecycleJobHandlers(): JobHandler[] {
  return [
    {
      kind: LIFECYCLE_BACKFILL_JOB,
      maxAttempts: 5,
      retryDelayMs: () => 60_000,
      run: async (_job, { store }) => {
        let after = '';
        for (;;) {
          const children = await childrenOfUnstatedPayments(store, after, BATCH);
          if (children.length === 0) return;
          await store.transaction((tx) => refreshLifecycles(tx, children));
          after = children[children.length - 1]?.parentId ?? after;
        }
      },
    },
  ];
}
