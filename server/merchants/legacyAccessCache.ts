import { createHmac, randomBytes } from 'node:crypto';
import type { Queryable } from '../store/index.ts';
import { LEGACY_USER_ID } from '../domain/ids.ts';
import { findLegacyCredentials, MAX_LEGACY_PASSWORD_LENGTH } from './legacyCredentials.ts';
import { verifyPassword } from './passwordHash.ts';
import { createReadCache } from '../store/readCache.ts';

export type LegacyAccess = { readonly known: false } | { readonly known: true; readonly userId: string; readonly entityIds: ReadonlySet<string> };

/** Pairs remembered at most, per map; the oldest entry goes first when full. */
const MAX_ENTRIES = 10_000;
/** Refused pairs remembered at most: fewer, and apart, so a spray of wrong passwords never evicts a verified pair. */
const MAX_REFUSED = 1_000;

export interface LegacyAccessOptions {
  /** Checks a password against a stored hash: the slow KDF (passwordHash.ts); a test counts its calls. */
  readonly verify?: (password: string, passwordHash: string) => Promise<boolean>;
}

function remember<V>(map: Map<string, V>, key: string, value: V, max: number): void {
  map.delete(key);
  if (map.size >= max) map.delete(map.keys().next().value as string);
  map.set(key, value);
}

/**
 * Legacy pairs as access tokens are cached (tokenAccessCache.ts): what a verified pair may act for is remembered for
 * `ttlMs`, so revoking it (or granting it an entity) takes effect within that time on every instance, and a new pair
 * works at once; unknown, revoked and wrong pairs are never remembered as valid.
 *
 * The KDF is what makes a pair slow to check, so its outcome is remembered on its own: whether the pair matches the
 * stored hash (a fact that does not expire: a userId's hash never changes, and a new hash is checked anew). Even with
 * TOKEN_CACHE_SECONDS=0, where every request reads the database, a pair costs one KDF per process, not one per
 * request; concurrent first requests share that one. Wrong pairs are remembered as wrong (apart, fewer) so a client
 * retrying a stale password is no KDF per retry either; the failed-authentication limit bounds the rest.
 *
 * Entries are keyed by an HMAC of userId and password under a key made at start and never stored: neither the cache
 * nor a memory dump of it holds a password, nor a fast hash someone could test guesses against.
 */
export function cachedLegacyAccess(db: Queryable, ttlMs: number, now: () => Date, options: LegacyAccessOptions = {}): (userId: string, password: string) => Promise<LegacyAccess> {
  const verify = options.verify ?? verifyPassword;
  const cacheKey = randomBytes(32);
  const access = createReadCache<LegacyAccess>(ttlMs, now);
  /** Verified and refused pairs, each with the hash it was checked against. */
  const verified = new Map<string, string>();
  const refused = new Map<string, string>();
  const checking = new Map<string, Promise<boolean>>();

  const matches = async (key: string, password: string, passwordHash: string): Promise<boolean> => {
    if (verified.get(key) === passwordHash) return true;
    if (refused.get(key) === passwordHash) return false;
    const flightKey = `${key}:${passwordHash}`;
    let check = checking.get(flightKey);
    if (!check) {
      check = verify(password, passwordHash).finally(() => checking.delete(flightKey));
      checking.set(flightKey, check);
    }
    const matched = await check;
    if (matched) remember(verified, key, passwordHash, MAX_ENTRIES);
    else remember(refused, key, passwordHash, MAX_REFUSED);
    return matched;
  };

  return async (userId, password) => {
    // The shapes are no secret: a pair that cannot be one is refused without a look at the store or the KDF.
    if (!LEGACY_USER_ID.test(userId) || password.length === 0 || password.length > MAX_LEGACY_PASSWORD_LENGTH) return { known: false };
    const key = createHmac('sha256', cacheKey).update(userId).update('\0').update(password).digest('hex');
    const load = async (): Promise<LegacyAccess> => {
      const record = await findLegacyCredentials(db, userId);
      if (!record || !(await matches(key, password, record.passwordHash))) return { known: false };
      return { known: true, userId, entityIds: record.entityIds };
    };
    return access.get(key, load, (found) => found.known);
  };
}
