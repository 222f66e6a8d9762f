import type { Queryable } from '../store/index.ts';
import { findTokenAccess, type TokenAccess } from './repository.ts';

export type TokenAccessLookup = (token: string) => Promise<TokenAccess>;

/** Tokens remembered at most; the oldest entry goes first when full. */
const MAX_ENTRIES = 10_000;

/**
 * Remembers which entities a token may act for, for `ttlMs`, so a busy merchant does not cost a database
 * read per request. Consequence, documented in the README: a token revoked (or granted a new entity) in the
 * database takes effect within `ttlMs` on every gateway instance. Unknown tokens are never remembered, so a
 * newly created token works at once. The cache lives in process memory only, next to the request
 * headers that carry the same tokens; the database keeps nothing but hashes.
 */
export function cachedTokenAccess(db: Queryable, ttlMs: number, now: () => Date): TokenAccessLookup {
  if (ttlMs <= 0) return (token) => findTokenAccess(db, token);
  const entries = new Map<string, { readonly access: TokenAccess; readonly expiresAt: number }>();
  return async (token) => {
    const cached = entries.get(token);
    const time = now().getTime();
    if (cached && cached.expiresAt > time) return cached.access;
    const access = await findTokenAccess(db, token);
    entries.delete(token);
    if (access.known) {
      if (entries.size >= MAX_ENTRIES) entries.delete(entries.keys().next().value as string);
      entries.set(token, { access, expiresAt: time + ttlMs });
    }
    return access;
  };
}
