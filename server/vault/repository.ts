import { newResourceId } from '../domain/ids.ts';
import { scheduleJob } from '../jobs/repository.ts';
import type { Queryable } from '../store/index.ts';
import type { SealedValue } from './cardVault.ts';

/**
 * SQL for vault_items: every sealed card the gateway keeps, in one table. Erasing deletes the row and schedules
 * the compaction (vault/compaction.ts) that takes the deleted bytes out of the data files.
 */

export const VAULT_COMPACTION_JOB = 'vault.compact';
/** Erasures are compacted together, at the end of the hour they happened in. */
export const VAULT_COMPACTION_INTERVAL_MS = 60 * 60_000;

/** Keeps a sealed value; returns its id (a caller that must name it before it is written chooses it). */
export async function keepSealed(db: Queryable, sealed: SealedValue, now: Date, id: string = newResourceId()): Promise<string> {
  await db.query('INSERT INTO vault_items (id, key_id, iv, tag, data, created_at) VALUES ($1, $2, $3, $4, $5, $6::timestamptz)', [
    id,
    sealed.keyId,
    sealed.iv,
    sealed.tag,
    sealed.data,
    now.toISOString(),
  ]);
  return id;
}

export async function findSealed(db: Queryable, id: string): Promise<SealedValue | undefined> {
  const found = await db.query<{ key_id: string; iv: string; tag: string; data: string }>(
    'SELECT key_id, iv, tag, data FROM vault_items WHERE id = $1',
    [id],
  );
  const row = found.rows[0];
  return row ? { keyId: row.key_id, iv: row.iv, tag: row.tag, data: row.data } : undefined;
}

/**
 * Erases a sealed value: its row goes now (the caller has dropped its reference in the same transaction), its
 * bytes from the data files at the next compaction, due at the end of the current interval.
 */
export async function eraseSealed(db: Queryable, id: string, now: Date): Promise<void> {
  await db.query('DELETE FROM vault_items WHERE id = $1', [id]);
  const interval = Math.floor(now.getTime() / VAULT_COMPACTION_INTERVAL_MS);
  await scheduleJob(
    db,
    {
      kind: VAULT_COMPACTION_JOB,
      uniqueKey: `${VAULT_COMPACTION_JOB}:${interval}`,
      runAt: new Date((interval + 1) * VAULT_COMPACTION_INTERVAL_MS),
      payload: {},
    },
    now,
  );
}
