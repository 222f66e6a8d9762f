import { exponentialBackoff, PermanentJobError, type JobHandler } from '../jobs/registry.ts';
import { VAULT_COMPACTION_JOB } from './repository.ts';

/**
 * The job that makes erasure real: the vault's table is rewritten, so erased cards are gone from the data files
 * (and, on the embedded store, from the WAL), not merely marked dead until PostgreSQL reuses the space. A payload
 * may name other tables that once held sealed data (a migration moving it into the vault does).
 */

/** Tables a compaction may be asked to rewrite besides the vault's own. */
const FORMER_HOLDERS = new Set(['payment_redirects', 'registrations']);

export function vaultJobHandlers(): JobHandler[] {
  return [
    {
      kind: VAULT_COMPACTION_JOB,
      maxAttempts: 20,
      retryDelayMs: exponentialBackoff(60_000, 60 * 60_000),
      run: async (job, context) => {
        const extra = job.payload.tables ?? [];
        if (!Array.isArray(extra) || !extra.every((table) => typeof table === 'string' && FORMER_HOLDERS.has(table))) {
          throw new PermanentJobError('malformed vault compaction payload');
        }
        await context.store.reclaimSpace(['vault_items', ...(extra as string[])]);
        context.logger.info('vault compacted', { tables: ['vault_items', ...(extra as string[])] });
      },
    },
  ];
}
