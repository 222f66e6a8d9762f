import type { GatewayConfig } from '../config.ts';
import { throttledAnswer, type GatewayError } from '../domain/errors.ts';
import type { Logger } from '../logger.ts';
import type { Store } from '../store/index.ts';

/**
 * What the HTTP edge needs from the floors above it, as ports it declares and the composition root (gateway.ts)
 * fills: who a credential may act for (merchants/ implements the lookups), failed authentications per address and
 * request limits (throttling/ implements the guard and the limiter). The edge imports none of those folders, so every
 * feature's routes can use it without a cycle.
 */

/** The entities a credential may act for; `known: false` for one that is malformed, unknown, revoked or wrong. */
export type CredentialAccess = { readonly known: false } | { readonly known: true; readonly entityIds: ReadonlySet<string> };

/** Which entities an access token may act for (merchants/tokenAccessCache.ts). */
export type TokenAccessLookup = (token: string) => Promise<CredentialAccess>;

/** Which entities a legacy authentication.userId/password pair may act for (COMPAT §1; merchants/legacyAccessCache.ts). */
export type LegacyAccessLookup = (userId: string, password: string) => Promise<CredentialAccess>;

/** Failed authentications per client address (throttling/authFailures.ts). */
export interface AuthFailureGuard {
  /** Until when the address is refused, if it is now (a local decision, no count). */
  blockedUntil(address: string): Date | undefined;
  /** Counts a failure; until when the address is refused, when it is now over its limit. */
  recordFailure(address: string): Promise<Date | undefined>;
}

/**
 * An entity's request limits (COMPAT §17, throttling/service.ts): counts one request against `uses` (the limits a
 * route names, in throttling's own vocabulary) and the entity's requestsPerMinute; throws the throttling answer when
 * any of them is over.
 */
export interface RequestLimiter<Use> {
  admit(entityId: string, uses: readonly Use[]): Promise<void>;
}

/** What every route module is built from; a feature adds its own services (`HttpDependencies & { payments: ... }`). */
export interface HttpDependencies {
  readonly config: GatewayConfig;
  readonly store: Store;
  readonly logger: Logger;
  /** The clock used for expiry checks; tests may pin it. */
  readonly now: () => Date;
  readonly tokenAccess: TokenAccessLookup;
  readonly legacyAccess: LegacyAccessLookup;
  readonly authFailures: AuthFailureGuard;
}

/**
 * What every authentication (merchant tokens, legacy pairs, the admin token) does with the guard: throws the
 * throttling answer (400 800.120.100, Retry-After) at once when the address is refused; else returns what a failure is
 * answered with — the failure itself, counted, or the throttling answer when it was one too many.
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
