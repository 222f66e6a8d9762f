import type { Queryable } from '../store/index.ts';
import { createReadCache } from '../store/readCache.ts';
import { findTokenAccess, recordTokenUse, type TokenAccess } from './repository.ts';

/** How finely a token's last use is kept: each instance writes it at most this often per token. */
export const TOKEN_USE_RESOLUTION_MS = 60_000;

/**
 * The edge's TokenAccessLookup (http/access.ts). Remembers which entities a token may act for, for `ttlMs`, so a busy merchant does not cost a database
 * read per request. Consequence, documented in docs/operating.md: a token revoked (or granted a new entity) in the
 * database takes effect within `ttlMs` on every gateway instance. Unknown tokens are never remembered, so a
 * newly created token works at once. The cache lives in process memory only, next to the request
 * headers that carry the same tokens; the database keeps nothing but hashes.
 *
 * A known token's use is noted (its last use, for the operator: the dashboard's token list) at most once per
 * TOKEN_USE_RESOLUTION_MS per token and instance, after the answer is decided and without the request waiting for it;
 * a write that fails is tried again at the next use.
 */
export function cachedTokenAccess(db: Queryable, ttlMs: number, now: () => Date): (token: string) => Promise<TokenAccess> {
  const cache = createReadCache<TokenAccess>(ttlMs, now);
  const noted = new Map<string, number>();
  const noteUse = (tokenId: string) => {
    const at = now();
    const last = noted.get(tokenId);
    if (last !== undefined && at.getTime() - last < TOKEN_USE_RESOLUTION_MS) return;
    noted.set(tokenId, at.getTime());
    recordTokenUse(db, tokenId, at).catch(() => noted.delete(tokenId));
  };
  return async (token) => {
    const access = await cache.get(token, (key) => findTokenAccess(db, key), (found) => found.known);
    if (access.known) noteUse(access.tokenId);
    return access;
  };
}
