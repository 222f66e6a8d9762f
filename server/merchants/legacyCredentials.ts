import { randomBytes } from 'node:crypto';
import { newResourceId } from '../domain/ids.ts';
import type { Queryable } from '../store/index.ts';
import { hashPassword } from './passwordHash.ts';

/**
 * Legacy credentials (COMPAT §1): the `authentication.userId` / `authentication.password` pair that clients written
 * for the platform's older API send in the body or query string instead of an `Authorization` header. An operator
 * issues them per entity (CLI: cli/credentials.ts, admin API: credentialRoutes.ts); the password is shown once and
 * kept only as a salted scrypt hash (passwordHash.ts). The userId is the credentials' id.
 */

/** The longest password a request may carry (the catalogue's authentication.password); longer ones match nothing. */
export const MAX_LEGACY_PASSWORD_LENGTH = 255;

/** A new password: 24 random bytes in base64url (32 characters), safe in a form body or a query string as it is. */
export function newLegacyPassword(): string {
  return randomBytes(24).toString('base64url');
}

export interface IssuedCredentials {
  readonly userId: string;
  /** In clear: shown to the operator once, never stored. */
  readonly password: string;
}

export interface LegacyCredentialsSummary {
  readonly userId: string;
  readonly label: string;
  readonly entityIds: readonly string[];
  readonly demo: boolean;
  readonly createdAt: Date;
  readonly revokedAt: Date | null;
}

/**
 * Issues credentials allowed for `entityIds` (which must exist). `demo` marks the demo merchant's public pair, which
 * a live start revokes (merchants/demo.ts); `userId` and `password` are given only for that pair.
 */
export async function issueLegacyCredentials(
  db: Queryable,
  entityIds: readonly string[],
  label: string,
  options: { readonly demo?: boolean; readonly userId?: string; readonly password?: string } = {},
): Promise<IssuedCredentials> {
  const userId = options.userId ?? newResourceId();
  const password = options.password ?? newLegacyPassword();
  await db.query('INSERT INTO legacy_credentials (user_id, password_hash, label, demo) VALUES ($1, $2, $3, $4)', [
    userId,
    await hashPassword(password),
    label,
    options.demo ?? false,
  ]);
  for (const entityId of new Set(entityIds)) {
    await db.query('INSERT INTO legacy_credential_entities (user_id, entity_id) VALUES ($1, $2)', [userId, entityId]);
  }
  return { userId, password };
}

/** Revokes the credentials; false when there are no active ones with that userId. */
export async function revokeLegacyCredentials(db: Queryable, userId: string): Promise<boolean> {
  const updated = await db.query('UPDATE legacy_credentials SET revoked_at = now() WHERE user_id = $1 AND revoked_at IS NULL', [userId]);
  return updated.rowCount > 0;
}

interface SummaryRow {
  user_id: string;
  label: string;
  demo: boolean;
  created_at: Date | string;
  revoked_at: Date | string | null;
  entity_ids: string[] | null;
}

const toDate = (value: Date | string): Date => (value instanceof Date ? value : new Date(value));

/** Credentials' summaries (never a hash), the oldest first: every one, those allowed for `entityId`, or one `userId`'s. */
export async function listLegacyCredentials(
  db: Queryable,
  filter: { readonly entityId?: string | undefined; readonly userId?: string | undefined } = {},
): Promise<LegacyCredentialsSummary[]> {
  const found = await db.query<SummaryRow>(
    `SELECT c.user_id, c.label, c.demo, c.created_at, c.revoked_at,
            array_remove(array_agg(g.entity_id::text ORDER BY g.entity_id), NULL) AS entity_ids
       FROM legacy_credentials c LEFT JOIN legacy_credential_entities g ON g.user_id = c.user_id
      WHERE ($1::text IS NULL OR c.user_id IN (SELECT user_id FROM legacy_credential_entities WHERE entity_id = $1))
        AND ($2::text IS NULL OR c.user_id = $2)
      GROUP BY c.user_id ORDER BY c.created_at, c.user_id`,
    [filter.entityId ?? null, filter.userId ?? null],
  );
  return found.rows.map((row) => ({
    userId: row.user_id,
    label: row.label,
    entityIds: row.entity_ids ?? [],
    demo: row.demo,
    createdAt: toDate(row.created_at),
    revokedAt: row.revoked_at === null ? null : toDate(row.revoked_at),
  }));
}

/** What the request path needs of active credentials: the hash to check the password against, and the entities. */
export interface LegacyCredentialsRecord {
  readonly userId: string;
  readonly passwordHash: string;
  readonly entityIds: ReadonlySet<string>;
}

/** The active credentials with this userId, or undefined (unknown or revoked). */
export async function findLegacyCredentials(db: Queryable, userId: string): Promise<LegacyCredentialsRecord | undefined> {
  const found = await db.query<{ password_hash: string; entity_id: string | null }>(
    `SELECT c.password_hash, g.entity_id FROM legacy_credentials c
       LEFT JOIN legacy_credential_entities g ON g.user_id = c.user_id
      WHERE c.user_id = $1 AND c.revoked_at IS NULL`,
    [userId],
  );
  const first = found.rows[0];
  if (!first) return undefined;
  return {
    userId,
    passwordHash: first.password_hash,
    entityIds: new Set(found.rows.flatMap((row) => (row.entity_id ? [row.entity_id] : []))),
  };
}
