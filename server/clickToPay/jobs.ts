import type { JobHandler } from '../jobs/registry.ts';

export const PRUNE_SESSIONS_JOB = 'clickToPay.prune';

/**
 * Forgets Click to Pay's sessions once nothing can use them: the session's own lifetime over and its correlation id,
 * if the shopper chose a card, expired or spent. A session holds no card data (the simulator's keys only), so this is
 * housekeeping: the table does not grow with every shopper who looked a card up.
 */
export function clickToPayJobHandlers(): JobHandler[] {
  return [
    {
      kind: PRUNE_SESSIONS_JOB,
      everyMs: 60 * 60_000,
      maxAttempts: 3,
      retryDelayMs: () => 5 * 60_000,
      run: async (_job, context) => {
        const pruned = await context.store.query(
          'DELETE FROM click_to_pay_sessions WHERE expires_at < $1 AND (correlation_expires_at IS NULL OR correlation_expires_at < $1 OR redeemed_at IS NOT NULL)',
          [context.now()],
        );
        context.logger.info('Click to Pay sessions pruned', { pruned: pruned.rowCount ?? 0 });
      },
    },
  ];
}
