import { SettingsRefusedError } from '../domain/errors.ts';
import type { Queryable } from '../store/index.ts';
import { createReadCache } from '../store/readCache.ts';
import type { CardVault } from '../vault/cardVault.ts';
import { eraseSealed, findSealed, keepSealed } from '../vault/repository.ts';

/**
 * A merchant entity's credentials at a connector's provider (issue 33): the provider's entity id and access token,
 * set by the operator (admin API PUT /admin/v1/entities/{id}/acquirers/{name}, `npm run gateway -- acquirer ...`).
 * The token is sealed in the vault like card data (so a key rotation re-seals it, and a replaced one is erased), and
 * never shown again: what is shown is that credentials are set, the provider's entity id, and when.
 */

export interface ProviderCredentials {
  /** The merchant's entity id at the provider. */
  readonly entityId: string;
  readonly accessToken: string;
}

/** What the operator is shown of an entity's credentials at one acquirer. */
export interface CredentialsShown {
  readonly acquirer: string;
  readonly set: boolean;
  readonly providerEntityId: string | null;
  readonly updatedAt: Date | null;
}

export class CredentialsRefusedError extends SettingsRefusedError {}

/** What a provider accepts as an entity id and a token: printable ASCII without spaces (no header or form injection). */
const PROVIDER_ENTITY_ID = /^[\x21-\x7e]{1,64}$/;
const ACCESS_TOKEN = /^[\x21-\x7e]{8,512}$/;

/** Checks what the operator sent; the problems named by the admin API's fields, never quoting the token. */
export function checkCredentials(input: { readonly entityId?: unknown; readonly accessToken?: unknown }): ProviderCredentials {
  const problems = [];
  if (typeof input.entityId !== 'string' || !PROVIDER_ENTITY_ID.test(input.entityId)) {
    problems.push({ name: 'entityId', value: typeof input.entityId === 'string' ? input.entityId : '', message: 'must be the entity id the provider gave: 1 to 64 printable characters without spaces' });
  }
  if (typeof input.accessToken !== 'string' || !ACCESS_TOKEN.test(input.accessToken)) {
    problems.push({ name: 'accessToken', value: '', message: 'must be the access token the provider gave: 8 to 512 printable characters without spaces' });
  }
  if (problems.length > 0) throw new CredentialsRefusedError(problems);
  return { entityId: input.entityId as string, accessToken: input.accessToken as string };
}

interface CredentialsRow {
  acquirer: string;
  upstream_entity_id: string;
  access_token_id: string;
  updated_at: Date | string;
}

/** Sets (or replaces) the entity's credentials at `acquirer`; false when the entity does not exist. */
export async function saveCredentials(
  tx: Queryable,
  vault: CardVault,
  entityId: string,
  acquirer: string,
  credentials: ProviderCredentials,
  now: Date,
): Promise<boolean> {
  const entity = await tx.query('SELECT 1 FROM entities WHERE id = $1 FOR UPDATE', [entityId]);
  if (entity.rows.length === 0) return false;
  const previous = await tx.query<{ access_token_id: string }>(
    'SELECT access_token_id FROM acquirer_credentials WHERE entity_id = $1 AND acquirer = $2 FOR UPDATE',
    [entityId, acquirer],
  );
  const tokenId = await keepSealed(tx, vault.seal(credentials.accessToken), now);
  await tx.query(
    `INSERT INTO acquirer_credentials (entity_id, acquirer, upstream_entity_id, access_token_id, updated_at) VALUES ($1, $2, $3, $4, $5::timestamptz)
     ON CONFLICT (entity_id, acquirer) DO UPDATE SET upstream_entity_id = excluded.upstream_entity_id, access_token_id = excluded.access_token_id, updated_at = excluded.updated_at`,
    [entityId, acquirer, credentials.entityId, tokenId, now.toISOString()],
  );
  const replaced = previous.rows[0]?.access_token_id;
  if (replaced) await eraseSealed(tx, replaced, now);
  return true;
}

/** Removes the entity's credentials at `acquirer` (its token erased); whether there were any. */
export async function removeCredentials(tx: Queryable, entityId: string, acquirer: string, now: Date): Promise<boolean> {
  const removed = await tx.query<{ access_token_id: string }>(
    'DELETE FROM acquirer_credentials WHERE entity_id = $1 AND acquirer = $2 RETURNING access_token_id',
    [entityId, acquirer],
  );
  const tokenId = removed.rows[0]?.access_token_id;
  if (tokenId) await eraseSealed(tx, tokenId, now);
  return tokenId !== undefined;
}

/** What is shown of the entity's credentials at each of `acquirers`; undefined when the entity does not exist. */
export async function showCredentials(db: Queryable, entityId: string, acquirers: readonly string[]): Promise<CredentialsShown[] | undefined> {
  const entity = await db.query('SELECT 1 FROM entities WHERE id = $1', [entityId]);
  if (entity.rows.length === 0) return undefined;
  const found = await db.query<CredentialsRow>('SELECT acquirer, upstream_entity_id, access_token_id, updated_at FROM acquirer_credentials WHERE entity_id = $1', [entityId]);
  const byAcquirer = new Map(found.rows.map((row) => [row.acquirer, row]));
  return acquirers.map((acquirer) => {
    const row = byAcquirer.get(acquirer);
    return { acquirer, set: row !== undefined, providerEntityId: row?.upstream_entity_id ?? null, updatedAt: row ? new Date(row.updated_at) : null };
  });
}

/** The entity's credentials at `acquirer`, opened; undefined when none are set (or the token cannot be opened). */
export async function findCredentials(db: Queryable, vault: CardVault, entityId: string, acquirer: string): Promise<ProviderCredentials | undefined> {
  const found = await db.query<CredentialsRow>(
    'SELECT acquirer, upstream_entity_id, access_token_id, updated_at FROM acquirer_credentials WHERE entity_id = $1 AND acquirer = $2',
    [entityId, acquirer],
    { preparedAs: 'find-acquirer-credentials' },
  );
  const row = found.rows[0];
  if (!row) return undefined;
  const sealed = await findSealed(db, row.access_token_id);
  if (!sealed) return undefined;
  return { entityId: row.upstream_entity_id, accessToken: vault.open<string>(sealed) };
}

/**
 * What a connector reads credentials through: remembered for CREDENTIALS_CACHE_MS per entity and acquirer, so a busy
 * merchant's payments cost no statement for them. A change made through this process applies at once (`forget`); on
 * other instances within CREDENTIALS_CACHE_MS.
 */
export interface CredentialsLookup {
  get(entityId: string, acquirer: string): Promise<ProviderCredentials | undefined>;
  forget(entityId: string, acquirer: string): void;
}

export const CREDENTIALS_CACHE_MS = 10_000;

export function cachedCredentials(db: Queryable, vault: CardVault, now: () => Date, ttlMs: number = CREDENTIALS_CACHE_MS): CredentialsLookup {
  const cache = createReadCache<ProviderCredentials | undefined>(ttlMs, now);
  const keyOf = (entityId: string, acquirer: string) => `${entityId}:${acquirer}`;
  return {
    get: (entityId, acquirer) => cache.get(keyOf(entityId, acquirer), () => findCredentials(db, vault, entityId, acquirer)),
    forget: (entityId, acquirer) => cache.forget(keyOf(entityId, acquirer)),
  };
}
