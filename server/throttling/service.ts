import type { Context } from 'hono';
import { throttledAnswer } from '../domain/errors.ts';
import type { AppEnv } from '../http/context.ts';
import type { Queryable } from '../store/index.ts';
import type { Counters, Take, TakeResult } from './counters.ts';
import { LIMITS, type EntityLimits, type LimitName } from './limits.ts';
import { effectiveLimits, type ThrottlingLookup } from './settings.ts';

/**
 * Request limits (COMPAT §8, §17) as the routes apply them: every authenticated request counts against its entity's
 * requestsPerMinute, and a route names the other limits it counts against (payment creations, a payment's reads, ...),
 * all in one count (counters.ts). Over any of them: HTTP 400, 800.120.100 "Rejected by Throttling. Please try again later.", with
 * Retry-After (the seconds until the window that refused it ends).
 */

/** A limit a request counts against: the entity's, or (`key`) one resource's of the entity. */
export interface LimitUse {
  readonly limit: LimitName;
  readonly key?: string;
}

/** The limits of the query and report endpoints (COMPAT §14, §17), for their routes: `requireMerchant(deps, ...)`. */
export const QUERY_LIMITS = {
  /** GET /v1/query/{id} (and /v3/query/{id}): per id. */
  byId: (id: string): LimitUse => ({ limit: 'queryReadsPerMinute', key: id }),
  /** GET /v1/query?...: per entity and second. */
  list: { limit: 'listQueriesPerSecond' } as LimitUse,
  /** GET /reports/v1|v2/reconciliations/...: per entity and second, shared with list queries. */
  settlementReport: { limit: 'listQueriesPerSecond' } as LimitUse,
} as const;

export interface Throttling {
  readonly counters: Counters;
  /** The entities' own settings (limits and risk rules), cached briefly. */
  readonly settings: ThrottlingLookup;
  /** The limits in force for an entity. */
  limitsOf(entityId: string): Promise<EntityLimits>;
  /**
   * Counts one request of the entity against `uses` (and, unless `general` is false, requestsPerMinute); throws the
   * throttling answer when any of them is over.
   */
  admit(entityId: string, uses: readonly LimitUse[], options?: { readonly general?: boolean }): Promise<void>;
  /**
   * As admit, answered instead of thrown (a caller that must finish a transaction first: `within`, where store counts
   * go, see Counters.take).
   */
  count(entityId: string, uses: readonly LimitUse[], options?: { readonly general?: boolean; readonly within?: Queryable }): Promise<TakeResult>;
  close(): Promise<void>;
}

export function bucketOf(entityId: string, use: LimitUse): string {
  return use.key === undefined ? `${use.limit}:${entityId}` : `${use.limit}:${entityId}:${use.key}`;
}

export function createThrottling(parts: { readonly counters: Counters; readonly settings: ThrottlingLookup; readonly defaults: EntityLimits; readonly now: () => Date }): Throttling {
  const { counters, settings, defaults, now } = parts;
  const limitsOf = async (entityId: string, within?: Queryable) => effectiveLimits(defaults, await settings.get(entityId, within));
  const count = async (entityId: string, uses: readonly LimitUse[], options: { readonly general?: boolean; readonly within?: Queryable } = {}): Promise<TakeResult> => {
    const limits = await limitsOf(entityId, options.within);
    const all: readonly LimitUse[] = options.general === false ? uses : [{ limit: 'requestsPerMinute' }, ...uses];
    const takes: Take[] = all.map((use) => ({ bucket: bucketOf(entityId, use), cap: limits[use.limit], windowMs: LIMITS[use.limit].windowMs }));
    const time = now();
    const results = await counters.take(takes, time, options.within);
    const refused = results.filter((result) => !result.allowed);
    if (refused.length === 0) return { allowed: true, retryAt: time };
    return { allowed: false, retryAt: new Date(Math.max(...refused.map((result) => result.retryAt.getTime()))) };
  };
  return {
    counters,
    settings,
    limitsOf,
    count,
    async admit(entityId, uses, options) {
      const decision = await count(entityId, uses, options);
      if (!decision.allowed) throw throttledAnswer(decision.retryAt, now());
    },
    close: () => counters.close(),
  };
}

/** A route's per-resource limit, keyed by its path's `id` when it has the shape of one (anything else is unknown anyway). */
export function perResource(limit: LimitName, shape: RegExp): (c: Context<AppEnv>) => LimitUse | undefined {
  return (c) => {
    const id = c.req.param('id') as string | undefined;
    return id !== undefined && shape.test(id) ? { limit, key: id } : undefined;
  };
}

/** Checkouts remembered at most by checkoutEntityLookup; the oldest goes first when full. */
const MAX_CHECKOUTS = 10_000;

/**
 * The entity of a checkout, for a shopper's submit (no token names it): read once per checkout and remembered (a
 * checkout's entity never changes). Undefined: no such checkout.
 */
export function checkoutEntityLookup(db: Queryable): (checkoutId: string) => Promise<string | undefined> {
  const known = new Map<string, string>();
  return async (checkoutId) => {
    const cached = known.get(checkoutId);
    if (cached) return cached;
    const found = await db.query<{ entity_id: string }>('SELECT entity_id FROM checkouts WHERE id = $1', [checkoutId], { preparedAs: 'checkout-entity' });
    const entityId = found.rows[0]?.entity_id;
    if (entityId === undefined) return undefined;
    if (known.size >= MAX_CHECKOUTS) known.delete(known.keys().next().value as string);
    known.set(checkoutId, entityId);
    return entityId;
  };
}
