import { DEFAULT_DEMO_MERCHANT, type DemoMerchant } from '../config.ts';
import type { Queryable } from '../store/index.ts';
import { issueLegacyCredentials } from './legacyCredentials.ts';
import { hashPassword, verifyPassword } from './passwordHash.ts';
import { createEntity, entityExists, findTokenAccess, grantToken, hashToken } from './repository.ts';

/**
 * The demo merchant of the test environment. Its credentials are public (README, start banner), so its tokens
 * and its legacy credentials (COMPAT §1) are marked `demo`, and a live start disables every marked one, and the
 * well-known default token and userId whatever their mark: a store that once ran in the test environment never lets
 * them into a live gateway.
 */

/**
 * Makes sure the demo merchant exists with exactly the configured credentials. Idempotent, so every test start
 * can call it; a changed DEMO_ACCESS_TOKEN replaces the old demo token, and a demo token a live start disabled
 * works again in test; the same for its legacy pair.
 */
export async function ensureDemoMerchant(db: Queryable, demo: DemoMerchant): Promise<void> {
  // Instances starting together on a fresh PostgreSQL would both find no demo merchant and both insert it: one at a
  // time (the caller's transaction holds the lock until it commits).
  await db.query("SELECT pg_advisory_xact_lock(hashtext('gateway-demo-merchant'))");
  if (!(await entityExists(db, demo.entityId))) await createEntity(db, 'Demo merchant', demo.entityId);
  await ensureDemoToken(db, demo.entityId, demo.accessToken);
  await ensureDemoCredentials(db, demo);
}

async function ensureDemoToken(db: Queryable, entityId: string, token: string): Promise<void> {
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

/**
 * The demo's legacy credentials, exactly the configured pair: an earlier demo pair of the entity is revoked, a changed
 * DEMO_PASSWORD replaces the hash, and a pair a live start disabled works again in test. One KDF run per start
 * (passwordHash.ts), in the test environment only.
 */
async function ensureDemoCredentials(db: Queryable, demo: DemoMerchant): Promise<void> {
  const { entityId, userId, password } = demo;
  await db.query(
    `UPDATE legacy_credentials SET revoked_at = now()
      WHERE demo AND revoked_at IS NULL AND user_id <> $1
        AND user_id IN (SELECT user_id FROM legacy_credential_entities WHERE entity_id = $2)`,
    [userId, entityId],
  );
  const found = await db.query<{ password_hash: string }>('SELECT password_hash FROM legacy_credentials WHERE user_id = $1', [userId]);
  const existing = found.rows[0];
  if (!existing) {
    await issueLegacyCredentials(db, [entityId], 'demo', { demo: true, userId, password });
    return;
  }
  if (!(await verifyPassword(password, existing.password_hash))) {
    await db.query('UPDATE legacy_credentials SET password_hash = $2 WHERE user_id = $1', [userId, await hashPassword(password)]);
  }
  await db.query('UPDATE legacy_credentials SET revoked_at = NULL, demo = true WHERE user_id = $1', [userId]);
  await db.query('INSERT INTO legacy_credential_entities (user_id, entity_id) VALUES ($1, $2) ON CONFLICT DO NOTHING', [userId, entityId]);
}

/** At a live start: revokes every demo legacy pair still active. Returns how many there were. */
export async function disableDemoCredentials(db: Queryable): Promise<number> {
  const revoked = await db.query('UPDATE legacy_credentials SET revoked_at = now() WHERE revoked_at IS NULL AND (demo OR user_id = $1)', [
    DEFAULT_DEMO_MERCHANT.userId,
  ]);
  return revoked.rowCount;
}

/** At a live start: revokes every demo token still active. Returns how many there were. */
export async function disableDemoTokens(db: Queryable): Promise<number> {
  const revoked = await db.query(
    'UPDATE access_tokens SET revoked_at = now() WHERE revoked_at IS NULL AND (demo OR token_hash = $1)',
    [hashToken(DEFAULT_DEMO_MERCHANT.accessToken)],
  );
  return revoked.rowCount;
}
