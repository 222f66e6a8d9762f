import type { Queryable, Store } from '../store/index.ts';

/**
 * Request limits shared by every gateway instance: "at most `count` requests per `windowMs`" for a bucket (a
 * payment's reads, an entity's back-office calls, an address's failed authentications), as a sliding window over
 * the requests counted in the database. COMPAT §8: a request over its limit is refused with 800.120.100.
 */

export interface RateLimit {
  /** Requests allowed per window; 0 means no limit. */
  readonly count: number;
  readonly windowMs: number;
}

export const perMinute = (count: number): RateLimit => ({ count, windowMs: 60_000 });

export type LimitDecision = { readonly allowed: true } | { readonly allowed: false; readonly retryAt: Date };

/**
 * Counts one request against `bucket` if the limit allows it. Inside a transaction: the bucket is locked until the
 * transaction ends, so concurrent requests on any instance are counted one after another and never exceed it.
 */
export async function takeFromLimit(tx: Queryable, bucket: string, limit: RateLimit, now: Date): Promise<LimitDecision> {
  if (limit.count <= 0) return { allowed: true };
  await tx.query('SELECT pg_advisory_xact_lock(hashtextextended($1, 0))', [bucket]);
  await tx.query('DELETE FROM rate_limit_hits WHERE bucket = $1 AND hit_at <= $2::timestamptz', [
    bucket,
    new Date(now.getTime() - limit.windowMs).toISOString(),
  ]);
  const counted = await tx.query<{ hits: number; oldest: Date | null }>(
    'SELECT count(*)::integer AS hits, min(hit_at) AS oldest FROM rate_limit_hits WHERE bucket = $1',
    [bucket],
  );
  const { hits, oldest } = counted.rows[0] ?? { hits: 0, oldest: null };
  if (Number(hits) >= limit.count) {
    return { allowed: false, retryAt: new Date((oldest ?? now).getTime() + limit.windowMs) };
  }
  await tx.query('INSERT INTO rate_limit_hits (bucket, hit_at) VALUES ($1, $2::timestamptz)', [bucket, now.toISOString()]);
  return { allowed: true };
}

/** takeFromLimit in a transaction of its own. */
export function throttle(store: Store, bucket: string, limit: RateLimit, now: Date): Promise<LimitDecision> {
  if (limit.count <= 0) return Promise.resolve({ allowed: true });
  return store.transaction((tx) => takeFromLimit(tx, bucket, limit, now));
}

/** Forgets requests older than `olderThanMs`: no limit's window is longer. */
export async function pruneLimitHits(db: Queryable, now: Date, olderThanMs: number): Promise<number> {
  const pruned = await db.query('DELETE FROM rate_limit_hits WHERE hit_at <= $1::timestamptz', [new Date(now.getTime() - olderThanMs).toISOString()]);
  return pruned.rowCount;
}
