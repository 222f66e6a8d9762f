import { Redis } from 'ioredis';
import type { Logger } from '../logger.ts';
import type { Queryable, Store } from '../store/index.ts';

/**
 * Request counters shared by every gateway instance: "at most `cap` requests per window" for a bucket (an entity's
 * requests, a payment's reads, an address's failed authentications), counted in fixed windows aligned on the clock
 * (the minute, the second: window start = now rounded down to a multiple of the window).
 *
 * Cheap and exact. One instance's requests that arrive while a count is on its way are counted together, in the next
 * single statement (store) or script call (Redis): a burst costs one round trip per flush, not one per request.
 * The statement raises each bucket's row by what is asked, but never past its cap, and returns what it added (row
 * lock in PostgreSQL, a Lua script in Redis): however many instances count at once, a window never holds more than
 * its cap. Within a flush, a bucket's requests are allowed in the order they arrived, up to what was added.
 */

export interface Take {
  readonly bucket: string;
  /** Requests allowed per window (> 0; a limit of 0 is no limit and is never counted). */
  readonly cap: number;
  readonly windowMs: number;
}

export interface TakeResult {
  readonly allowed: boolean;
  /** When the bucket's window ends (when a refused request may be made again). */
  readonly retryAt: Date;
}

export interface Counters {
  readonly kind: 'memory' | 'store' | 'redis';
  /**
   * Counts one request against each take whose bucket has room, and says which did. `within`: a transaction of the
   * store the caller holds open (PGlite has one connection: a count outside it would wait for it forever); store
   * counts then go in it, unbatched.
   */
  take(takes: readonly Take[], now: Date, within?: Queryable): Promise<readonly TakeResult[]>;
  /** Forgets windows that have ended (the store's rows; Redis keys expire by themselves). */
  prune(now: Date): Promise<number>;
  close(): Promise<void>;
}

/**
 * One bucket's window in a flush: how many of the queued requests ask for it, how much is asked of the counter
 * (a lease more for a leased bucket), and how much was granted.
 */
interface Row {
  readonly key: string;
  readonly bucket: string;
  readonly windowStart: number;
  readonly cap: number;
  readonly expiresAt: number;
  requests: number;
  asked: number;
  granted: number;
}

/**
 * A large limit is counted in leases: an instance takes a hundredth of the cap from the shared counter at once and
 * allows that many requests from memory, so a busy entity's requests cost a statement (or a Redis call) per lease,
 * not per request. The shared counter still never passes the cap; what an instance leased and did not use by the
 * window's end is lost, so at most one lease per instance (1% of the limit each) may go unused. Limits under
 * LEASED_FROM are counted request by request.
 */
const LEASE_SHARE = 100;
const LEASED_FROM = 2 * LEASE_SHARE;

const MAX_LEASES = 10_000;

export function leaseSizeOf(cap: number): number {
  return cap >= LEASED_FROM ? Math.floor(cap / LEASE_SHARE) : 1;
}

interface Queued {
  readonly takes: readonly Take[];
  readonly now: Date;
  readonly resolve: (results: readonly TakeResult[]) => void;
  readonly reject: (error: unknown) => void;
}

/** Requests per flush at most (a statement of as many rows at worst, far below any limit). */
const MAX_FLUSH = 500;

export const windowStartOf = (now: Date, windowMs: number): number => Math.floor(now.getTime() / windowMs) * windowMs;

/**
 * The batching common to both backends: `write` raises the rows (each by `asked`, never past `cap`) and returns
 * what it added to each, in order.
 */
function batchingCounters(
  kind: Counters['kind'],
  write: (rows: readonly Row[], within?: Queryable) => Promise<readonly number[]>,
  concurrent: number,
  extra: Pick<Counters, 'prune' | 'close'>,
): Counters {
  const queue: Queued[] = [];
  let inFlight = 0;
  /** What is left of this instance's lease of each leased bucket, for the window it was taken in. */
  const leases = new Map<string, { windowStart: number; left: number }>();
  /** The bucket windows whose lease is being asked for: another flush meanwhile asks for its requests only. */
  const leasing = new Set<string>();
  const fromLease = (take: Take, now: Date): TakeResult | undefined => {
    if (leaseSizeOf(take.cap) === 1) return undefined;
    const windowStart = windowStartOf(now, take.windowMs);
    const lease = leases.get(take.bucket);
    if (!lease || lease.windowStart !== windowStart || lease.left === 0) return undefined;
    lease.left--;
    return { allowed: true, retryAt: new Date(windowStart + take.windowMs) };
  };

  async function flush(): Promise<void> {
    const items = queue.splice(0, MAX_FLUSH);
    if (items.length === 0) return;
    inFlight++;
    try {
      await count(items);
    } finally {
      inFlight--;
      if (queue.length > 0 && inFlight < concurrent) void flush();
    }
  }

  async function count(items: readonly Queued[], within?: Queryable): Promise<void> {
    const leased: string[] = [];
    try {
      const rows = new Map<string, Row>();
      // A take a lease covers by now (one that arrived while the flush bringing it was on its way) is allowed from it.
      const placed = items.map((item) =>
        item.takes.map((take): Row | TakeResult => {
          const fromHere = fromLease(take, item.now);
          if (fromHere) return fromHere;
          const windowStart = windowStartOf(item.now, take.windowMs);
          const key = `${take.bucket}\u0000${windowStart}`;
          let row = rows.get(key);
          if (!row) {
            // A leased bucket asks for a lease beside its requests (one lease in flight at a time): what is granted
            // beyond them is this instance's.
            const lease = leaseSizeOf(take.cap) > 1 && !leasing.has(key) ? leaseSizeOf(take.cap) : 0;
            if (lease > 0) {
              leasing.add(key);
              leased.push(key);
            }
            row = { key, bucket: take.bucket, windowStart, cap: take.cap, expiresAt: windowStart + take.windowMs, requests: 0, asked: lease, granted: 0 };
            rows.set(key, row);
          }
          row.requests++;
          row.asked++;
          return row;
        }),
      );
      // Always the same order: two instances' statements lock shared rows one after the other, never crosswise.
      const sorted = [...rows.values()].sort((a, b) => (a.key < b.key ? -1 : a.key > b.key ? 1 : 0));
      let added: readonly number[];
      try {
        added = sorted.length === 0 ? [] : await write(sorted, within);
      } catch (error) {
        for (const item of items) item.reject(error);
        return;
      }
      sorted.forEach((row, index) => {
        row.granted = Number(added[index] ?? 0);
        const surplus = row.granted - row.requests;
        if (surplus > 0) {
          // The lease: granted beyond this flush's requests (a lease left from an earlier window is gone).
          const lease = leases.get(row.bucket);
          if (lease && lease.windowStart === row.windowStart) lease.left += surplus;
          else {
            // Leases of ended windows go once there are many (one per leased bucket: an entity's own limits).
            if (leases.size >= MAX_LEASES) leases.clear();
            leases.set(row.bucket, { windowStart: row.windowStart, left: surplus });
          }
          row.granted = row.requests;
        }
      });
      items.forEach((item, index) => {
        const mine = placed[index] as (Row | TakeResult)[];
        item.resolve(
          mine.map((row) => {
            if (!('key' in row)) return row;
            const allowed = row.granted > 0;
            if (allowed) row.granted--;
            return { allowed, retryAt: new Date(row.expiresAt) };
          }),
        );
      });
    } finally {
      for (const key of leased) leasing.delete(key);
    }
  }

  const counted = (takes: readonly Take[], now: Date, within: Queryable | undefined): Promise<readonly TakeResult[]> => {
    if (takes.length === 0) return Promise.resolve([]);
    return new Promise((resolve, reject) => {
      if (within) {
        void count([{ takes, now, resolve, reject }], within);
        return;
      }
      queue.push({ takes, now, resolve, reject });
      if (inFlight < concurrent) void flush();
    });
  };
  /** Counts the takes a lease does not cover; each result in the order of `takes`. */
  const takeCounted = async (takes: readonly Take[], now: Date, within: Queryable | undefined): Promise<readonly TakeResult[]> => {
    const leased = takes.map((take) => fromLease(take, now));
    const rest = takes.filter((_, index) => leased[index] === undefined);
    if (rest.length === 0) return leased as TakeResult[];
    const counts = await counted(rest, now, within);
    let next = 0;
    return leased.map((result) => result ?? (counts[next++] as TakeResult));
  };
  return {
    kind,
    async take(takes, now, within) {
      if (takes.every((take) => take.cap > 0)) return takeCounted(takes, now, within);
      // No limit: allowed without a count.
      const results = await takeCounted(
        takes.filter((take) => take.cap > 0),
        now,
        within,
      );
      let next = 0;
      return takes.map((take) => (take.cap > 0 ? (results[next++] as TakeResult) : { allowed: true, retryAt: now }));
    },
    ...extra,
  };
}

/**
 * Counters in this process's memory: for the embedded store (PGlite), which one gateway process at a time may open
 * (its data directory is locked), so this process sees every request there is and its counts are as exact as the
 * store's, without a statement per request. A restart forgets the windows under way (they start anew).
 */
export function memoryCounters(): Counters {
  const windows = new Map<string, { readonly expiresAt: number; hits: number }>();
  let sweptAt = 0;
  const prune = (now: Date): number => {
    sweptAt = now.getTime();
    let pruned = 0;
    for (const [key, window] of windows) {
      if (window.expiresAt <= sweptAt) {
        windows.delete(key);
        pruned++;
      }
    }
    return pruned;
  };
  return {
    kind: 'memory',
    async take(takes, now) {
      // Ended windows go at most once a minute (the store's are pruned by the hourly job).
      if (now.getTime() - sweptAt >= 60_000) prune(now);
      // Decided at once, in arrival order: nothing here awaits, so concurrent requests are counted one by one.
      return takes.map((take) => {
        const windowStart = windowStartOf(now, take.windowMs);
        const retryAt = new Date(windowStart + take.windowMs);
        if (take.cap <= 0) return { allowed: true, retryAt: now };
        const key = `${take.bucket}\u0000${windowStart}`;
        let window = windows.get(key);
        if (!window) {
          window = { expiresAt: windowStart + take.windowMs, hits: 0 };
          windows.set(key, window);
        }
        if (window.hits >= take.cap) return { allowed: false, retryAt };
        window.hits++;
        return { allowed: true, retryAt };
      });
    },
    async prune(now) {
      return prune(now);
    },
    async close() {
      windows.clear();
    },
  };
}

/** Counters in the store's throttle_counters (migration 0016). */
export function storeCounters(store: Store): Counters {
  // PostgreSQL commits several statements at once on separate connections; PGlite runs one at a time anyway.
  const concurrent = store.kind === 'postgres' ? 4 : 1;
  return batchingCounters(
    'store',
    async (rows, within) => {
      const result = await (within ?? store).query<{ bucket: string; window_start: string | number; taken: string | number }>(
        `INSERT INTO throttle_counters AS t (bucket, window_start, hits, taken, cap, expires_at)
         SELECT b, w, LEAST(k, c), LEAST(k, c), c, to_timestamp(e / 1000.0)
           FROM unnest($1::text[], $2::bigint[], $3::bigint[], $4::bigint[], $5::bigint[]) WITH ORDINALITY AS x(b, w, k, c, e, n)
          ORDER BY n
         ON CONFLICT (bucket, window_start) DO UPDATE
           SET hits = GREATEST(t.hits, LEAST(t.hits + excluded.taken, excluded.cap)),
               taken = LEAST(excluded.taken, GREATEST(excluded.cap - t.hits, 0)),
               cap = excluded.cap
         RETURNING bucket, window_start, taken`,
        [
          rows.map((row) => row.bucket),
          rows.map((row) => row.windowStart),
          rows.map((row) => row.asked),
          rows.map((row) => row.cap),
          rows.map((row) => row.expiresAt),
        ],
        { preparedAs: 'throttle-take' },
      );
      const added = new Map(result.rows.map((row) => [`${row.bucket}\u0000${Number(row.window_start)}`, Number(row.taken)]));
      return rows.map((row) => added.get(row.key) ?? 0);
    },
    concurrent,
    {
      async prune(now) {
        const pruned = await store.query('DELETE FROM throttle_counters WHERE expires_at <= $1::timestamptz', [now.toISOString()]);
        return pruned.rowCount;
      },
      async close() {
        // The store is the gateway's: it closes it.
      },
    },
  );
}

/**
 * Adds to each key what is asked, never past its cap, and returns what it added: atomic in Redis, so concurrent
 * instances never pass a cap. A window's key is created with an expiry (two windows: the gateway's clock, not
 * Redis's, names the window).
 */
const TAKE_SCRIPT = `
local added = {}
for i, key in ipairs(KEYS) do
  local asked = tonumber(ARGV[3 * i - 2])
  local cap = tonumber(ARGV[3 * i - 1])
  local current = tonumber(redis.call('GET', key) or '0')
  local take = math.min(asked, math.max(cap - current, 0))
  if take > 0 then
    if current == 0 then
      redis.call('SET', key, take, 'PX', tonumber(ARGV[3 * i]))
    else
      redis.call('INCRBY', key, take)
    end
  end
  added[i] = take
end
return added
`;

type ThrottleRedis = Redis & { throttleTake(numberOfKeys: number, ...args: (string | number)[]): Promise<number[]> };

export interface RedisCountersOptions {
  readonly url: string;
  /** Prefix of every key (gateways that share a Redis for different purposes, tests). */
  readonly keyPrefix: string;
  readonly logger: Logger;
  /** How long a count may take before the request goes through uncounted. */
  readonly timeoutMs?: number;
}

/**
 * Counters in Redis (THROTTLE_REDIS_URL): one script call per flush. Redis out of reach never fails a request: it
 * is let through uncounted (throttling protects the gateway; it must not stop it), and the outage is logged once
 * a minute at most.
 */
export function redisCounters(options: RedisCountersOptions): Counters {
  const redis = new Redis(options.url, {
    keyPrefix: options.keyPrefix,
    // A request waits for no reconnection: it fails at once and goes through uncounted.
    enableOfflineQueue: false,
    maxRetriesPerRequest: 0,
    commandTimeout: options.timeoutMs ?? 1000,
    // Reconnects at once, then less and less often (at most every 2 s).
    retryStrategy: (times) => Math.min(times * 100, 2000),
    lazyConnect: false,
  }) as ThrottleRedis;
  redis.defineCommand('throttleTake', { lua: TAKE_SCRIPT });
  let lastWarning = 0;
  const warn = (error: unknown) => {
    const time = Date.now();
    if (time - lastWarning < 60_000) return;
    lastWarning = time;
    options.logger.warn('throttling counters in Redis are out of reach: requests go through uncounted', { error });
  };
  // Connection errors are reported here, not as unhandled events.
  redis.on('error', warn);
  const timeoutMs = options.timeoutMs ?? 1000;
  // Until the first connection is made (a gateway starting), counts wait for it, at most timeoutMs; later, while
  // Redis is away, none waits.
  let connected = false;
  const firstConnection = new Promise<void>((resolve) => {
    redis.once('ready', () => {
      connected = true;
      resolve();
    });
  });
  const connectedOnce = () =>
    connected
      ? Promise.resolve()
      : Promise.race([firstConnection, new Promise<void>((resolve) => setTimeout(resolve, timeoutMs).unref())]);
  return batchingCounters(
    'redis',
    async (rows) => {
      const args: (string | number)[] = [];
      for (const row of rows) args.push(`${row.bucket}:${row.windowStart}`);
      for (const row of rows) args.push(row.asked, row.cap, row.expiresAt - row.windowStart + (row.expiresAt - row.windowStart) + 1000);
      try {
        await connectedOnce();
        return await redis.throttleTake(rows.length, ...args);
      } catch (error) {
        warn(error);
        return rows.map((row) => row.asked);
      }
    },
    // Redis answers one script at a time; a second flush waiting in line keeps it busy.
    2,
    {
      async prune() {
        return 0;
      },
      async close() {
        redis.disconnect();
      },
    },
  );
}
