import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createLogger } from '../logger.ts';
import { openStore, type Store } from '../store/index.ts';
import { freshStoreLocation, STORE_KINDS, warnIfPostgresSkipped, type StoreLocation } from '../testing/harness.ts';
import { leaseSizeOf, memoryCounters, redisCounters, storeCounters, type Counters } from './counters.ts';

/**
 * The request counters (counters.ts) on each backend, with the same cases: the store (PGlite, PostgreSQL), Redis
 * (THROTTLE_REDIS_URL; TEST_REDIS_URL here, default the local 127.0.0.1:6379) and memory (the embedded store's). Exactness under concurrency:
 * two counters (two gateway instances) counting at once never let a window pass its cap.
 */

warnIfPostgresSkipped('counters.test.ts');

const TEST_REDIS_URL = process.env.TEST_REDIS_URL || 'redis://127.0.0.1:6379';

type Backend = 'PGlite' | 'PostgreSQL' | 'Redis' | 'memory';
const BACKENDS: readonly Backend[] = [...STORE_KINDS, 'Redis', 'memory'];
const MINUTE = 60_000;

describe.each(BACKENDS)('request counters in %s', (backend) => {
  let location: StoreLocation | undefined;
  let stores: Store[] = [];
  /** Two counters on the same data: two gateway instances. */
  let one: Counters;
  let two: Counters;
  const prefix = `test:${randomBytes(6).toString('hex')}:`;
  beforeAll(async () => {
    if (backend === 'memory') {
      // Over the embedded store the gateway counts in memory: one process, so one counter sees every request.
      one = memoryCounters();
      two = one;
      return;
    }
    if (backend === 'Redis') {
      const logger = createLogger({ level: 'silent' });
      one = redisCounters({ url: TEST_REDIS_URL, keyPrefix: prefix, logger });
      two = redisCounters({ url: TEST_REDIS_URL, keyPrefix: prefix, logger });
      return;
    }
    location = await freshStoreLocation(backend);
    const first = await openStore(location);
    stores = [first];
    one = storeCounters(first);
    if (backend === 'PostgreSQL') {
      const second = await openStore(location);
      stores.push(second);
      two = storeCounters(second);
    } else {
      // The embedded store is one process's: a second counter on it stands for concurrent requests of that process.
      two = storeCounters(first);
    }
  });
  afterAll(async () => {
    await one?.close();
    await two?.close();
    for (const store of stores) await store.close();
    await location?.dispose();
  });

  const take = (counters: Counters, bucket: string, cap: number, at: Date, windowMs = MINUTE) => counters.take([{ bucket, cap, windowMs }], at).then((results) => results[0]);

  it('allows the cap in a window, refuses the rest until the window ends, then allows again', async () => {
    const start = new Date(Date.UTC(2030, 0, 1, 12, 0, 10));
    const windowEnd = new Date(Date.UTC(2030, 0, 1, 12, 1, 0));
    for (let request = 0; request < 3; request++) expect((await take(one, 'cap-3', 3, start))?.allowed).toBe(true);
    const refused = await take(two, 'cap-3', 3, new Date(start.getTime() + 20_000));
    expect(refused).toEqual({ allowed: false, retryAt: windowEnd });
    // Refused requests are not counted: still refused, never more than the cap.
    expect((await take(one, 'cap-3', 3, new Date(windowEnd.getTime() - 1)))?.allowed).toBe(false);
    expect((await take(one, 'cap-3', 3, windowEnd))?.allowed).toBe(true);
    // Another bucket has its own count.
    expect((await take(one, 'cap-3-other', 3, start))?.allowed).toBe(true);
  });

  it('counts every take of a request, each in its own bucket, and leaves a limit of 0 uncounted', async () => {
    const at = new Date(Date.UTC(2030, 0, 2, 8, 0, 0));
    const both = () =>
      one.take(
        [
          { bucket: 'entity-wide', cap: 2, windowMs: MINUTE },
          { bucket: 'per-second', cap: 1, windowMs: 1000 },
          { bucket: 'unlimited', cap: 0, windowMs: MINUTE },
        ],
        at,
      );
    expect((await both()).map((result) => result.allowed)).toEqual([true, true, true]);
    const second = await both();
    expect(second.map((result) => result.allowed)).toEqual([true, false, true]);
    expect(second[1]?.retryAt).toEqual(new Date(at.getTime() + 1000));
    expect((await both()).map((result) => result.allowed)).toEqual([false, false, true]);
  });

  it('never lets concurrent requests of two instances pass a cap', async () => {
    const at = new Date(Date.UTC(2030, 0, 3, 9, 30, 0));
    const cap = 37;
    const requests = Array.from({ length: 240 }, (_, index) => take(index % 2 === 0 ? one : two, 'contended', cap, at));
    const results = await Promise.all(requests);
    expect(results.filter((result) => result?.allowed).length).toBe(cap);
    // Two buckets at once, in both orders, from both instances: no deadlock, each exact.
    const crossed = await Promise.all(
      Array.from({ length: 120 }, (_, index) =>
        (index % 2 === 0 ? one : two).take(
          index % 3 === 0
            ? [
                { bucket: 'crossed-a', cap: 10, windowMs: MINUTE },
                { bucket: 'crossed-b', cap: 20, windowMs: MINUTE },
              ]
            : [
                { bucket: 'crossed-b', cap: 20, windowMs: MINUTE },
                { bucket: 'crossed-a', cap: 10, windowMs: MINUTE },
              ],
          at,
        ),
      ),
    );
    expect(crossed.flat().filter((result) => result.allowed).length).toBe(30);
  });

  it('counts a large limit in leases of a hundredth of it: never past the cap, at most a lease per instance unused, a counter call per lease', async () => {
    const at = new Date(Date.UTC(2030, 0, 4, 9, 30, 0));
    const cap = 1000;
    expect(leaseSizeOf(cap)).toBe(10);
    expect(leaseSizeOf(199)).toBe(1);
    const results = await Promise.all(Array.from({ length: 1100 }, (_, index) => take(index % 2 === 0 ? one : two, 'leased', cap, at)));
    const allowed = results.filter((result) => result?.allowed).length;
    expect(allowed).toBeLessThanOrEqual(cap);
    // What the two instances leased and did not use is lost for this window: at most a lease each.
    expect(allowed).toBeGreaterThanOrEqual(cap - 2 * leaseSizeOf(cap));
    // One instance alone, one request at a time: a statement per lease, not per request (the store's counters).
    const store = stores[0];
    if (store) {
      let statements = 0;
      const counting = new Proxy(store, {
        get(target, property) {
          if (property === 'query') return (...args: Parameters<Store['query']>) => (statements++, target.query(...args));
          const value: unknown = Reflect.get(target, property);
          return typeof value === 'function' ? value.bind(target) : value;
        },
      });
      const alone = storeCounters(counting);
      for (let index = 0; index < 50; index++) expect((await take(alone, 'leased-sequential', cap, at))?.allowed).toBe(true);
      expect(statements).toBe(5);
    }
    // The next window starts without the last one's lease.
    expect((await take(one, 'leased', cap, new Date(at.getTime() + MINUTE)))?.allowed).toBe(true);
  });
});

describe('request counters in Redis out of reach', () => {
  it('let requests through uncounted, and say so in the log', async () => {
    const lines: string[] = [];
    const counters = redisCounters({
      url: 'redis://127.0.0.1:1',
      keyPrefix: 'unreachable:',
      logger: createLogger({ level: 'warn', sink: (line) => lines.push(line) }),
      timeoutMs: 200,
    });
    try {
      const results = await counters.take([{ bucket: 'any', cap: 1, windowMs: MINUTE }], new Date());
      expect(results.map((result) => result.allowed)).toEqual([true]);
      expect(lines.join('\n')).toContain('throttling counters in Redis are out of reach');
    } finally {
      await counters.close();
    }
  });
});
