import type { Queryable } from '../store/index.ts';
import { createReadCache } from '../store/readCache.ts';
import { findTokenAccess, type TokenAccess } from './repository.ts';

/**
 * The edge's TokenAccessLookup (http/access.ts). Remembers which entities a token may act for, for `ttlMs`, so a busy merchant does not cost a database
 * read per request. Consequence, documented in docs/operating.md: a token revoked (or granted a new entity) in the
 * database takes effect within `ttlMs` on every gateway instance. Unknown tokens are never remembered, so a
 * newly created token works at once. The cache lives in process memory only, next to the request
 * headers that carry the same tokens; the database keeps nothing but hashes.
 */
export function cachedTokenAccess(db: Queryable, ttlMs: number, now: () => Date): (token: string) => Promise<TokenAccess> {
  const cache = createReadCache<TokenAccess>(ttlMs, now);
  return (token) => cache.get(token, (key) => findTokenAccess(db, key), (access) => access.known);
}
