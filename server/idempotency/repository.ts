import type { Queryable } from '../store/index.ts';

/**
 * SQL for idempotency_keys (Stripe's semantics, kept 24 hours): per entity, a key names one request; its first use
 * chooses the id of what the request creates and records the answer once there is one (http/idempotency.ts).
 */

export interface StoredAnswer {
  readonly status: number;
  readonly body: Record<string, unknown>;
}

export interface IdempotencyKey {
  readonly scope: string;
  readonly fingerprint: string;
  readonly resourceId: string;
  /** The gateway instance running the request; '' once that run ended without an answer. */
  readonly instanceId: string;
  readonly answer: StoredAnswer | null;
}

export const KEY_LIFETIME_MS = 24 * 60 * 60_000;

/** Claims the key for a first request; false when the entity used it before. */
export async function claimKey(
  db: Queryable,
  entityId: string,
  key: string,
  claim: Omit<IdempotencyKey, 'answer'> & { readonly now: Date },
): Promise<boolean> {
  const inserted = await db.query(
    `INSERT INTO idempotency_keys (entity_id, key, scope, fingerprint, resource_id, instance_id, created_at)
     VALUES ($1, $2, $3, $4, $5, $6, $7::timestamptz) ON CONFLICT (entity_id, key) DO NOTHING`,
    [entityId, key, claim.scope, claim.fingerprint, claim.resourceId, claim.instanceId, claim.now.toISOString()],
  );
  return inserted.rowCount > 0;
}

export async function findKey(db: Queryable, entityId: string, key: string): Promise<IdempotencyKey | undefined> {
  const found = await db.query<{ scope: string; fingerprint: string; resource_id: string; instance_id: string; answer: StoredAnswer | null }>(
    'SELECT scope, fingerprint, resource_id, instance_id, answer FROM idempotency_keys WHERE entity_id = $1 AND key = $2',
    [entityId, key],
  );
  const row = found.rows[0];
  return row ? { scope: row.scope, fingerprint: row.fingerprint, resourceId: row.resource_id, instanceId: row.instance_id, answer: row.answer } : undefined;
}

/** Takes over a key whose run ended without an answer (its instance died, or the run failed): true for one taker. */
export async function takeOverKey(db: Queryable, entityId: string, key: string, from: string, to: string): Promise<boolean> {
  const updated = await db.query(
    'UPDATE idempotency_keys SET instance_id = $4 WHERE entity_id = $1 AND key = $2 AND instance_id = $3 AND answer IS NULL',
    [entityId, key, from, to],
  );
  return updated.rowCount > 0;
}

export async function recordAnswer(db: Queryable, entityId: string, key: string, answer: StoredAnswer): Promise<void> {
  await db.query('UPDATE idempotency_keys SET answer = $3::jsonb WHERE entity_id = $1 AND key = $2', [entityId, key, JSON.stringify(answer)]);
}

/** The request made nothing (its parameters were refused): the key may be used again, with other parameters too. */
export async function releaseKey(db: Queryable, entityId: string, key: string): Promise<void> {
  await db.query('DELETE FROM idempotency_keys WHERE entity_id = $1 AND key = $2 AND answer IS NULL', [entityId, key]);
}

/** The run ended without an answer (an unexpected failure): the next request with the key resumes it. */
export async function interruptKey(db: Queryable, entityId: string, key: string): Promise<void> {
  await db.query("UPDATE idempotency_keys SET instance_id = '' WHERE entity_id = $1 AND key = $2 AND answer IS NULL", [entityId, key]);
}

export async function pruneKeys(db: Queryable, now: Date): Promise<number> {
  const pruned = await db.query('DELETE FROM idempotency_keys WHERE created_at <= $1::timestamptz', [new Date(now.getTime() - KEY_LIFETIME_MS).toISOString()]);
  return pruned.rowCount;
}
