import { newResourceId } from '../domain/ids.ts';
import { scheduleJob } from '../jobs/repository.ts';
import type { Queryable, Store } from '../store/index.ts';
import type { CardVault, SealedValue } from './cardVault.ts';
import { VAULT_COMPACTION_JOB } from './repository.ts';

/**
 * Card-data key rotation: every sealed value still under another key than the current one is opened with the ring
 * (the current key and CARD_DATA_PREVIOUS_KEYS) and sealed again with the current key, in batches of its own
 * transaction each, while gateways keep serving. Then the vault's compaction is scheduled, so the old ciphertexts
 * leave the data files as erased cards do, and the previous key can be dropped.
 *
 * A batch locks its rows (FOR UPDATE SKIP LOCKED: rows a payment holds right now are left to a second pass) and
 * walks the table in id order, so each batch reads only its own rows whatever the vault's size. A value that no
 * key of the ring opens is left as it is and reported by id (never with any of its data).
 */

export const VAULT_ROTATION_JOB = 'vault.rotate';
export const DEFAULT_ROTATION_BATCH = 500;
/** Batches one rotation job runs before it hands on to the next (a job holds its claim for minutes, not hours). */
export const ROTATION_JOB_BATCHES = 20;

export interface KeyCount {
  readonly keyId: string;
  /** current: seals now; previous: a configured key that only opens; unknown: no configured key opens these. */
  readonly role: 'current' | 'previous' | 'unknown';
  readonly sealedValues: number;
}

/** How many sealed values each key id holds; every configured key is listed, with 0 when it seals nothing. */
export async function sealedValuesByKey(db: Queryable, vault: CardVault): Promise<KeyCount[]> {
  const found = await db.query<{ key_id: string; count: string | number }>('SELECT key_id, count(*) AS count FROM vault_items GROUP BY key_id');
  const counts = new Map(found.rows.map((row) => [row.key_id, Number(row.count)]));
  const role = (keyId: string): KeyCount['role'] => (keyId === vault.keyId ? 'current' : vault.hasKey(keyId) ? 'previous' : 'unknown');
  const keyIds = [...vault.keyIds, ...[...counts.keys()].filter((keyId) => !vault.hasKey(keyId)).sort()];
  return keyIds.map((keyId) => ({ keyId, role: role(keyId), sealedValues: counts.get(keyId) ?? 0 }));
}

export interface RotationOptions {
  /** Sealed values per transaction. Default 500. */
  readonly batchSize?: number;
  /** After each batch that found rows: what it did, for progress reports. */
  readonly onBatch?: (progress: { readonly resealed: number; readonly totalResealed: number }) => void;
  /** Start after this id (a rotation job handing on to the next). */
  readonly after?: string;
  /** Stop after this many batches; the result's `cursor` says where to go on. */
  readonly maxBatches?: number;
}

export interface RotationResult {
  /** Values sealed again with the current key by this run. */
  readonly resealed: number;
  /** Ids of values no key of the ring opens (sealed with a key not configured, or altered): left as they are. */
  readonly unopenable: readonly string[];
  /** False when `maxBatches` stopped the run before the end of the table; go on after `cursor`. */
  readonly complete: boolean;
  readonly cursor: string;
  /** Values under another key than the current one after the run (the unopenable ones included). */
  readonly left: number;
}

interface BatchResult {
  readonly rows: number;
  readonly resealed: number;
  readonly lastId: string | undefined;
}

/** One batch, in its own transaction: the next `limit` rows after `after` not under the current key. */
function resealBatch(store: Store, vault: CardVault, after: string, limit: number, skipLocked: boolean, unopenable: Set<string>): Promise<BatchResult> {
  return store.transaction(async (tx) => {
    const found = await tx.query<{ id: string; key_id: string; iv: string; tag: string; data: string }>(
      `SELECT id, key_id, iv, tag, data FROM vault_items
        WHERE key_id <> $1 AND id > $2
        ORDER BY id LIMIT $3
        FOR UPDATE${skipLocked ? ' SKIP LOCKED' : ''}`,
      [vault.keyId, after, limit],
    );
    let resealed = 0;
    for (const row of found.rows) {
      const sealed: SealedValue = { keyId: row.key_id, iv: row.iv, tag: row.tag, data: row.data };
      let value: unknown;
      try {
        value = vault.open<unknown>(sealed);
      } catch {
        unopenable.add(row.id);
        continue;
      }
      const again = vault.seal(value);
      await tx.query('UPDATE vault_items SET key_id = $2, iv = $3, tag = $4, data = $5 WHERE id = $1', [row.id, again.keyId, again.iv, again.tag, again.data]);
      unopenable.delete(row.id);
      resealed++;
    }
    return { rows: found.rows.length, resealed, lastId: found.rows.at(-1)?.id };
  });
}

/** Runs the rotation on `store` with `vault`'s ring (see the top of this file). */
export async function rotateSealedValues(store: Store, vault: CardVault, options: RotationOptions): Promise<RotationResult> {
  const batchSize = options.batchSize ?? DEFAULT_ROTATION_BATCH;
  if (!Number.isInteger(batchSize) || batchSize < 1) throw new Error('the rotation batch size must be a positive integer');
  const unopenable = new Set<string>();
  let resealed = 0;
  let cursor = options.after ?? '';
  let batches = 0;
  const report = (batch: BatchResult) => {
    resealed += batch.resealed;
    if (batch.rows > 0) options.onBatch?.({ resealed: batch.resealed, totalResealed: resealed });
  };
  // First pass: never waits for a row a payment holds, it is left for the second.
  for (;;) {
    if (options.maxBatches !== undefined && batches >= options.maxBatches) {
      return { resealed, unopenable: [...unopenable].sort(), complete: false, cursor, left: await valuesLeft(store, vault) };
    }
    const batch = await resealBatch(store, vault, cursor, batchSize, true, unopenable);
    batches++;
    report(batch);
    if (batch.lastId === undefined) break;
    cursor = batch.lastId;
  }
  // Second pass, over whatever the first skipped: waits for each such row's holder (a payment's transaction) to end.
  if ((await valuesLeft(store, vault)) > unopenable.size) {
    let sweep = '';
    for (;;) {
      const batch = await resealBatch(store, vault, sweep, batchSize, false, unopenable);
      report(batch);
      if (batch.lastId === undefined) break;
      sweep = batch.lastId;
    }
  }
  return { resealed, unopenable: [...unopenable].sort(), complete: true, cursor, left: await valuesLeft(store, vault) };
}

/**
 * After a rotation re-sealed values: the vault's compaction, due at once. The old ciphertexts are still in the
 * table's files until it runs (an updated row is only marked dead), and the next gateway job poll runs it.
 */
export async function scheduleCompactionAfterRotation(db: Queryable, now: Date): Promise<void> {
  await scheduleJob(db, { kind: VAULT_COMPACTION_JOB, uniqueKey: `${VAULT_COMPACTION_JOB}:rotation:${newResourceId()}`, runAt: now, payload: {} }, now);
}

/** Values sealed under another key than the vault's current one. */
export async function valuesLeft(db: Queryable, vault: CardVault): Promise<number> {
  const found = await db.query<{ count: string | number }>('SELECT count(*) AS count FROM vault_items WHERE key_id <> $1', [vault.keyId]);
  return Number(found.rows[0]?.count ?? 0);
}

/**
 * For a gateway on the embedded store, at start: when values are still sealed with a previous key it holds, a
 * rotation job re-seals them in the background (the operator's command cannot open the directory the gateway holds).
 * Returns whether it scheduled one.
 */
export async function scheduleRotationIfDue(db: Queryable, vault: CardVault, now: Date): Promise<boolean> {
  const previous = vault.keyIds.filter((keyId) => keyId !== vault.keyId);
  if (previous.length === 0) return false;
  const found = await db.query('SELECT 1 FROM vault_items WHERE key_id = ANY($1::text[]) LIMIT 1', [previous]);
  if (found.rows.length === 0) return false;
  // One per current key and hour, whichever restarts happen meanwhile.
  const hour = Math.floor(now.getTime() / 3_600_000);
  return scheduleJob(db, { kind: VAULT_ROTATION_JOB, uniqueKey: `${VAULT_ROTATION_JOB}:${vault.keyId}:${hour}`, runAt: now, payload: {} }, now);
}
