import type { AuthFailureGuard } from '../http/access.ts';
import type { Store } from '../store/index.ts';
import { storeCounters, type Counters } from './counters.ts';

/**
 * Failed authentications per client address: a missing, malformed or unknown token, or one not allowed for the
 * entity. Counted with the other request limits (counters.ts: in the store or Redis, every instance shares the
 * count); an address over the limit is refused for the rest of its window without another count, however many
 * tokens it tries.
 */

/** Addresses remembered as blocked at most; the oldest goes first when full. */
const MAX_BLOCKED = 10_000;
const MINUTE_MS = 60_000;

export function createAuthFailureGuard(counted: Store | Counters, failuresPerMinute: number, now: () => Date): AuthFailureGuard {
  const counters = 'take' in counted ? counted : storeCounters(counted);
  const blockedUntil = new Map<string, number>();
  return {
    blockedUntil(address) {
      const until = blockedUntil.get(address);
      if (until === undefined) return undefined;
      if (until > now().getTime()) return new Date(until);
      blockedUntil.delete(address);
      return undefined;
    },
    async recordFailure(address) {
      if (failuresPerMinute <= 0) return undefined;
      const [decision] = await counters.take([{ bucket: `auth-failures:${address}`, cap: failuresPerMinute, windowMs: MINUTE_MS }], now());
      if (!decision || decision.allowed) return undefined;
      if (blockedUntil.size >= MAX_BLOCKED) blockedUntil.delete(blockedUntil.keys().next().value as string);
      blockedUntil.set(address, decision.retryAt.getTime());
      return decision.retryAt;
    },
  };
}
