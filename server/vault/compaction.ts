import { exponentialBackoff, PermanentJobError, type JobHandler } from '../jobs/registry.ts';
import { scheduleJob } from '../jobs/repository.ts';
import type { CardVault } from './cardVault.ts';
import { VAULT_COMPACTION_JOB } from './repository.ts';
import { ROTATION_JOB_BATCHES, rotateSealedValues, scheduleCompactionAfterRotation, VAULT_ROTATION_JOB } from './rotation.ts';

/**
 * The job that makes erasure real: the vault's table is rewritten, so erased cards are gone from the data files
 * (and, on the embedded store, from the WAL), not merely marked dead until PostgreSQL reuses the space. A payload
 * may name other tables that once held sealed data (a migration moving it into the vault does).
 *
 * And the job that re-seals, in the background, what is still sealed with a previous card-data key (rotation.ts):
 * a gateway on the embedded store schedules it at start, as nothing else can open its directory while it runs.
 */

/** Tables a compaction may be asked to rewrite besides the vault's own. */
const FORMER_HOLDERS = new Set(['payment_redirects', 'registrations']);

export function vaultJobHandlers(vault: CardVault): JobHandler[] {
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
    {
      kind: VAULT_ROTATION_JOB,
      maxAttempts: 10,
      retryDelayMs: exponentialBackoff(60_000, 60 * 60_000),
      run: async (job, context) => {
        const { after = '', resealed: before = 0 } = job.payload;
        if (typeof after !== 'string' || typeof before !== 'number') throw new PermanentJobError('malformed vault rotation payload');
        const result = await rotateSealedValues(context.store, vault, { after, maxBatches: ROTATION_JOB_BATCHES });
        const resealed = before + result.resealed;
        const now = context.now();
        if (!result.complete) {
          // A job holds its claim for minutes: the next one goes on where this one stopped.
          await scheduleJob(
            context.store,
            { kind: VAULT_ROTATION_JOB, uniqueKey: `${VAULT_ROTATION_JOB}:after:${job.id}`, runAt: now, payload: { after: result.cursor, resealed } },
            now,
          );
          context.logger.info('card data being re-sealed with the current key', { resealed, keyId: vault.keyId });
          return;
        }
        if (resealed > 0) await scheduleCompactionAfterRotation(context.store, now);
        context.logger.info('card data re-sealed with the current key', { resealed, left: result.left, keyId: vault.keyId });
        if (result.unopenable.length > 0) {
          context.logger.error('sealed card data no configured card-data key opens was left as it is', {
            count: result.unopenable.length,
            vaultItemIds: result.unopenable.slice(0, 100),
          });
        }
      },
    },
  ];
}
