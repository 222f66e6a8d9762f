import { DEFAULT_DEMO_MERCHANT } from '../config.ts';
import type { Queryable } from '../store/index.ts';
import { createEntity, entityExists, findTokenAccess, grantToken, hashToken } from './repository.ts';

/**
 * The demo merchant of the test environment. Its credentials are public (README, start banner), so its tokens
 * are marked `demo`, and a live start disables every marked token, and the well-known default token whatever its
 * mark: a store that once ran in the test environment never lets them into a live gateway.
 */

/**
 * Makes sure the demo merchant exists with exactly the configured credentials. Idempotent, so every test start
 * can call it; a changed DEMO_ACCESS_TOKEN replaces the old demo token, and a demo token a live start disabled
 * works again in test.
 */
export async function ensureDemoMerchant(db: Queryable, entityId: string, token: string): Promise<void> {
  // Instances starting together on a fresh PostgreSQL would both find no demo merchant and both insert it: one at a
  // time (the caller's transaction holds the lock until it commits).
  await db.query("SELECT pg_advisory_xact_lock(hashtext('gateway-demo-merchant'))");
  if (!(await entityExists(db, entityId))) await createEntity(db, 'Demo merchant', entityId);
  await db.query('UPDATE access_tokens SET revoked_at = NULL WHERE token_hash = $1 AND demo', [hashToken(token)]);
  const access = await findTokenAccess(db, token);
  if (access.known) {
    if (!access.entityIds.has(entityId)) {
      await db.query('INSERT INTO access_token_entities (token_id, entity_id) VALUES ($1, $2)', [access.tokenId, entityId]);
    }
    return;
  }
  await db.query(
    `UPDATE access_tokens SET revoked_at = now()
      WHERE demo AND revoked_at IS NULL
        AND id IN (SELECT token_id FROM access_token_entities WHERE entity_id = $1)`,
    [entityId],
  );
  await grantToken(db, token, 'demo', [entityId], { demo: true });
}

/** At a live start: revokes every demo token still active. Returns how many there were. */
export async function disableDemoTokens(db: Queryable): Promise<number> {
  const revoked = await db.query(
    'UPDATE access_tokens SET revoked_at = now() WHERE revoked_at IS NULL AND (demo OR token_hash = $1)',
    [hashToken(DEFAULT_DEMO_MERCHANT.accessToken)],
  );
  return revoked.rowCount;
}
