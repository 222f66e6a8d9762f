import type { GatewayError } from '../domain/errors.ts';
import type { Store } from '../store/index.ts';
import { storeCounters, type Counters } from './counters.ts';
import { throttledAnswer } from './service.ts';

/**
 * Failed authentications per client address: a missing, malformed or unknown token, or one not allowed for the
 * entity. Counted with the other request limits (counters.ts: in the store or Redis, every instance shares the
 * count); an address over the limit is refused for the rest of its window without another count, however many
 * tokens it tries.
 */

export interface AuthFailureGuard {
  /** Until when the address is refused, if it is now (a local decision, no count). */
  blockedUntil(address: string): Date | undefined;
  /** Counts a failure; until when the address is refused, when it is now over its limit. */
  recordFailure(address: string): Promise<Date | undefined>;
}

/**
 * What every authentication (merchant tokens, the admin token) does with the guard: throws the throttling answer
 * (400 800.120.100, Retry-After) at once when the address is refused; else returns what a failure is answered
 * with — the failure itself, counted, or the throttling answer when it was one too many.
 */
export function guardAuthentication(guard: AuthFailureGuard, address: string, now: () => Date): (failure: GatewayError) => Promise<GatewayError> {
  const refusal = (until: Date) => throttledAnswer(until, now(), 'Too many failed authentications from this address');
  const blocked = guard.blockedUntil(address);
  if (blocked) throw refusal(blocked);
  return async (failure) => {
    const until = await guard.recordFailure(address);
    return until ? refusal(until) : failure;
  };
}

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
