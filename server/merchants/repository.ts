import { createHash, randomBytes } from 'node:crypto';
import { ENTITY_ID, newResourceId } from '../domain/ids.ts';
import type { Queryable } from '../store/index.ts';

/** Merchants: entities and the access tokens allowed to act for them. Tokens are kept only as hashes. */

export function hashToken(token: string): string {
  return createHash('sha256').update(token, 'utf8').digest('hex');
}

/** A new access token: 48 random bytes, base64, the shape merchants are used to pasting. */
export function newAccessToken(): string {
  return randomBytes(48).toString('base64');
}

export interface Entity {
  readonly id: string;
  readonly name: string;
  /** Where the merchant's shoppers return (doc 1 §3 rule 3), a base ending with a slash, or null. */
  readonly shopperResultUrlBase: string | null;
}

export async function createEntity(db: Queryable, name: string, id: string = newResourceId()): Promise<Entity> {
  if (!ENTITY_ID.test(id)) throw new Error('an entity id is 32 lowercase hexadecimal characters');
  await db.query('INSERT INTO entities (id, name) VALUES ($1, $2)', [id, name]);
  return { id, name, shopperResultUrlBase: null };
}

/** Sets (or with null, removes) the entity's return address base; the caller has checked it (resultUrlBaseProblem). */
export async function setShopperResultUrlBase(db: Queryable, id: string, base: string | null): Promise<boolean> {
  const updated = await db.query('UPDATE entities SET shopper_result_url_base = $2 WHERE id = $1', [id, base]);
  return updated.rowCount > 0;
}

export async function findEntity(db: Queryable, id: string): Promise<Entity | undefined> {
  const found = await db.query<{ id: string; name: string; shopper_result_url_base: string | null }>(
    'SELECT id, name, shopper_result_url_base FROM entities WHERE id = $1',
    [id],
  );
  const row = found.rows[0];
  return row ? { id: row.id, name: row.name, shopperResultUrlBase: row.shopper_result_url_base } : undefined;
}

export async function entityExists(db: Queryable, id: string): Promise<boolean> {
  const found = await db.query('SELECT 1 FROM entities WHERE id = $1', [id]);
  return found.rows.length > 0;
}

/** The entity's name (shown to shoppers on the gateway's own pages), or undefined for an unknown id. */
/** The tables that keep an entity's own settings, one row per entity (entity_id its key). */
export type EntitySettingsTable = 'smart_retry_settings' | 'throttling_settings' | 'entity_brands' | 'routing_rules';

/**
 * Drops the entity's own settings of `table` (back to the defaults), in one statement; entityExists is false when
 * there is no such entity.
 */
export async function removeEntitySettings(
  db: Queryable,
  table: EntitySettingsTable,
  entityId: string,
): Promise<{ readonly entityExists: boolean; readonly removed: boolean }> {
  const found = await db.query<{ removed: boolean }>(
    `WITH removed AS (DELETE FROM ${table} WHERE entity_id = $1 RETURNING 1)
     SELECT EXISTS (SELECT 1 FROM removed) AS removed FROM entities WHERE id = $1`,
    [entityId],
  );
  const row = found.rows[0];
  return { entityExists: row !== undefined, removed: row?.removed ?? false };
}

export async function findEntityName(db: Queryable, id: string): Promise<string | undefined> {
  const found = await db.query<{ name: string }>('SELECT name FROM entities WHERE id = $1', [id]);
  return found.rows[0]?.name;
}

export async function listEntities(db: Queryable): Promise<Entity[]> {
  const found = await db.query<{ id: string; name: string; shopper_result_url_base: string | null }>(
    'SELECT id, name, shopper_result_url_base FROM entities ORDER BY created_at, id',
  );
  return found.rows.map((row) => ({ id: row.id, name: row.name, shopperResultUrlBase: row.shopper_result_url_base }));
}

/**
 * Stores the hash of `token` as allowed for `entityIds`; returns the token's id (for revocation). `demo` marks the
 * demo merchant's public token, which a live start disables (merchants/demo.ts).
 */
export async function grantToken(
  db: Queryable,
  token: string,
  label: string,
  entityIds: readonly string[],
  options: { readonly demo?: boolean } = {},
): Promise<string> {
  const tokenId = newResourceId();
  await db.query('INSERT INTO access_tokens (id, token_hash, label, demo) VALUES ($1, $2, $3, $4)', [
    tokenId,
    hashToken(token),
    label,
    options.demo ?? false,
  ]);
  for (const entityId of entityIds) {
    await db.query('INSERT INTO access_token_entities (token_id, entity_id) VALUES ($1, $2)', [tokenId, entityId]);
  }
  return tokenId;
}

/** An access token as an operator sees it: never the token, nor its hash. */
export interface TokenListing {
  readonly id: string;
  readonly label: string;
  readonly entityIds: readonly string[];
  readonly createdAt: Date;
  readonly revokedAt: Date | null;
  /** When an API request last used it, to the minute (recordTokenUse); null: not yet. */
  readonly lastUsedAt: Date | null;
}

/** Every access token (with `entityId`: those allowed for it), oldest first. */
export async function listTokens(db: Queryable, entityId?: string): Promise<TokenListing[]> {
  const found = await db.query<{ id: string; label: string; entity_ids: string[] | null; created_at: Date | string; revoked_at: Date | string | null; last_used_at: Date | string | null }>(
    `SELECT t.id, t.label, t.created_at, t.revoked_at, t.last_used_at,
            array_remove(array_agg(e.entity_id::text ORDER BY e.entity_id), NULL) AS entity_ids
       FROM access_tokens t LEFT JOIN access_token_entities e ON e.token_id = t.id
      GROUP BY t.id
     HAVING $1::text IS NULL OR bool_or(e.entity_id = $1::char(32))
      ORDER BY t.created_at, t.id`,
    [entityId ?? null],
  );
  return found.rows.map((row) => ({
    id: row.id,
    label: row.label,
    entityIds: row.entity_ids ?? [],
    createdAt: new Date(row.created_at),
    revokedAt: row.revoked_at === null ? null : new Date(row.revoked_at),
    lastUsedAt: row.last_used_at === null ? null : new Date(row.last_used_at),
  }));
}

/** Notes that the token was used at `at` (never moving its last use back). */
export async function recordTokenUse(db: Queryable, tokenId: string, at: Date): Promise<void> {
  await db.query('UPDATE access_tokens SET last_used_at = $2 WHERE id = $1 AND (last_used_at IS NULL OR last_used_at < $2)', [tokenId, at]);
}

/**
 * A merchant's start: an entity (with its shoppers' result URL base when given) and an access token for it, in one
 * transaction. The token is returned once, here; only its hash is kept. For the `entity create` command and the admin
 * API alike.
 */
export async function createEntityWithToken(
  store: { transaction<T>(work: (tx: Queryable) => Promise<T>): Promise<T> },
  settings: { readonly name: string; readonly id?: string | undefined; readonly resultUrlBase?: string | undefined },
): Promise<{ entity: Entity; tokenId: string; token: string }> {
  const token = newAccessToken();
  return store.transaction(async (tx) => {
    const created = await createEntity(tx, settings.name, settings.id);
    if (settings.resultUrlBase) await setShopperResultUrlBase(tx, created.id, settings.resultUrlBase);
    const tokenId = await grantToken(tx, token, `entity ${created.id}`, [created.id]);
    return { entity: { ...created, shopperResultUrlBase: settings.resultUrlBase ?? null }, tokenId, token };
  });
}

export async function revokeToken(db: Queryable, tokenId: string): Promise<boolean> {
  const updated = await db.query('UPDATE access_tokens SET revoked_at = now() WHERE id = $1 AND revoked_at IS NULL', [tokenId]);
  return updated.rowCount > 0;
}

export type TokenAccess =
  | { readonly known: false }
  | { readonly known: true; readonly tokenId: string; readonly entityIds: ReadonlySet<string> };

/** Which entities a token may act for; `known: false` for an unknown or revoked token. */
export async function findTokenAccess(db: Queryable, token: string): Promise<TokenAccess> {
  const found = await db.query<{ token_id: string; entity_id: string | null }>(
    `SELECT t.id AS token_id, e.entity_id FROM access_tokens t
       LEFT JOIN access_token_entities e ON e.token_id = t.id
      WHERE t.token_hash = $1 AND t.revoked_at IS NULL`,
    [hashToken(token)],
  );
  const first = found.rows[0];
  if (!first) return { known: false };
  return {
    known: true,
    tokenId: first.token_id,
    entityIds: new Set(found.rows.flatMap((row) => (row.entity_id ? [row.entity_id] : []))) };
}
