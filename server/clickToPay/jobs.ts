import type { JobHandler } from '../jobs/registry.ts';
import { eraseSealed } from '../vault/repository.ts';

export const PRUNE_SESSIONS_JOB = 'clickToPay.prune';

/**
 * Forgets Click to Pay's sessions once nothing can use them: the session's own lifetime over and its correlation id,
 * if the shopper chose a card, expired or spent. A network's payload that was never paid (sealed in the vault) is
 * erased with its session; otherwise this is housekeeping: the table does not grow with every shopper who looked a
 * card up.
 */
export function clickToPayJobHandlers(): JobHandler[] {
  return [
    {
      kind: PRUNE_SESSIONS_JOB,
      everyMs: 60 * 60_000,
      maxAttempts: 3,
      retryDelayMs: () => 5 * 60_000,
      run: async (_job, context) => {
        const now = context.now();
        const pruned = await context.store.transaction(async (tx) => {
          const deleted = await tx.query<{ payload_id: string | null; redeemed_at: Date | null }>(
            `DELETE FROM click_to_pay_sessions WHERE expires_at < $1 AND (correlation_expires_at IS NULL OR correlation_expires_at < $1 OR redeemed_at IS NOT NULL)
             RETURNING payload_id, redeemed_at`,
            [now],
          );
          // A redeemed payload was erased by the submit that paid it.
          for (const row of deleted.rows) if (row.payload_id && !row.redeemed_at) await eraseSealed(tx, row.payload_id, now);
          return deleted.rows.length;
        });
        context.logger.info('Click to Pay sessions pruned', { pruned });
      },
    },
  ];
}
