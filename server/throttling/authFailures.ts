import type { Store } from '../store/index.ts';
import { perMinute, throttle } from './limiter.ts';

/**
 * Failed authentications per client address: a missing, malformed or unknown token, or one not allowed for the
 * entity. Counted in the store (every instance shares the count); an address over the limit is refused for the
 * rest of its window without another look at the database, however many tokens it tries.
 */

export interface AuthFailureGuard {
  /** Whether the address is refused now (a local decision, no database read). */
  isBlocked(address: string): boolean;
  /** Counts a failure; true when the address is now over its limit. */
  recordFailure(address: string): Promise<boolean>;
}

/** Addresses remembered as blocked at most; the oldest goes first when full. */
const MAX_BLOCKED = 10_000;

export function createAuthFailureGuard(store: Store, failuresPerMinute: number, now: () => Date): AuthFailureGuard {
  const blockedUntil = new Map<string, number>();
  return {
    isBlocked(address) {
      const until = blockedUntil.get(address);
      if (until === undefined) return false;
      if (until > now().getTime()) return true;
      blockedUntil.delete(address);
      return false;
    },
    async recordFailure(address) {
      const decision = await throttle(store, `auth-failure:${address}`, perMinute(failuresPerMinute), now());
      if (decision.allowed) return false;
      if (blockedUntil.size >= MAX_BLOCKED) blockedUntil.delete(blockedUntil.keys().next().value as string);
      blockedUntil.set(address, decision.retryAt.getTime());
      return true;
    },
  };
}
