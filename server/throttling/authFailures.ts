import type { Store } from '../store/index.ts';
import { storeCounters, type Counters } from './counters.ts';

/**
 * Failed authentications per client address: a missing, malformed or unknown token, or one not allowed for the
 * entity. Counted with the other request limits (counters.ts: in the store or Redis, every instance shares the
 * count); an address over the limit is refused for the rest of its window without another count, however many
 * tokens it tries.
 */

export interface AuthFailureGuard {
  /** Whether the address is refused now (a local decision, no count). */
  isBlocked(address: string): boolean;
  /** Counts a failure; true when the address is now over its limit. */
  recordFailure(address: string): Promise<boolean>;
}

/** Addresses remembered as blocked at most; the oldest goes first when full. */
const MAX_BLOCKED = 10_000;
const MINUTE_MS = 60_000;

export function createAuthFailureGuard(counted: Store | Counters, failuresPerMinute: number, now: () => Date): AuthFailureGuard {
  const counters = 'take' in counted ? counted : storeCounters(counted);
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
      if (failuresPerMinute <= 0) return false;
      const [decision] = await counters.take([{ bucket: `auth-failures:${address}`, cap: failuresPerMinute, windowMs: MINUTE_MS }], now());
      if (!decision || decision.allowed) return false;
      if (blockedUntil.size >= MAX_BLOCKED) blockedUntil.delete(blockedUntil.keys().next().value as string);
      blockedUntil.set(address, decision.retryAt.getTime());
      return true;
    },
  };
}
