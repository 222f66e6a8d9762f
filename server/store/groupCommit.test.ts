import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { freshStoreLocation, STORE_KINDS, warnIfPostgresSkipped, type StoreLocation } from '../testing/harness.ts';
import { createGroupCommit } from './groupCommit.ts';
import { openStore } from './index.ts';
import type { Store } from './types.ts';

warnIfPostgresSkipped('groupCommit.test.ts');

describe.each(STORE_KINDS)('group commit on %s', (kind) => {
  let location: StoreLocation;
  let store: Store;
  let transactions = 0;
  beforeAll(async () => {
    location = await freshStoreLocation(kind);
    const opened = await openStore(location);
    await opened.exec('CREATE TABLE lane_a (value integer PRIMARY KEY); CREATE TABLE lane_b (value integer PRIMARY KEY)');
    // Counts the transactions the writers run.
    store = { ...opened, transaction: (work) => (transactions++, opened.transaction(work)) };
  });
  afterAll(async () => {
    await store?.close();
    await location?.dispose();
  });

  const writer = (table: string) =>
    createGroupCommit<number, number>(store, async (tx, values) => {
      await tx.query(`INSERT INTO ${table} (value) SELECT unnest($1::int[])`, [values]);
      return values.map((value) => value * 10);
    });

  it("writes what several writers submitted together in one transaction, each caller getting its own result", async () => {
    const a = writer('lane_a');
    const b = writer('lane_b');
    transactions = 0;
    const results = await Promise.all([a.submit(1), b.submit(2), a.submit(3), b.submit(4)]);
    expect(results).toEqual([10, 20, 30, 40]);
    expect(transactions).toBe(1);
    const stored = await store.query<{ a: number[]; b: number[] }>('SELECT (SELECT array_agg(value ORDER BY value) FROM lane_a) AS a, (SELECT array_agg(value ORDER BY value) FROM lane_b) AS b');
    expect(stored.rows[0]).toEqual({ a: [1, 3], b: [2, 4] });
  });

  it("fails only the bad item's caller: the rest of both writers' items are committed", async () => {
    const a = writer('lane_a');
    const b = writer('lane_b');
    const outcomes = await Promise.allSettled([a.submit(5), b.submit(6), a.submit(1), b.submit(7)]);
    expect(outcomes.map((outcome) => outcome.status)).toEqual(['fulfilled', 'fulfilled', 'rejected', 'fulfilled']);
    const stored = await store.query<{ a: number[]; b: number[] }>('SELECT (SELECT array_agg(value ORDER BY value) FROM lane_a) AS a, (SELECT array_agg(value ORDER BY value) FROM lane_b) AS b');
    expect(stored.rows[0]).toEqual({ a: [1, 3, 5], b: [2, 4, 6, 7] });
  });

  it('sends a batch its writer writes in one statement without a transaction, and a batch beside another lane in one', async () => {
    const single = createGroupCommit<number, number>(
      store,
      async (db, values) => {
        await db.query('INSERT INTO lane_a (value) SELECT unnest($1::int[])', [values]);
        return values;
      },
      { oneStatement: (values) => values.every((value) => value < 1000) },
    );
    const other = writer('lane_b');
    transactions = 0;
    expect(await Promise.all([single.submit(100), single.submit(101)])).toEqual([100, 101]);
    expect(transactions).toBe(0);
    // Its own writer says no: a transaction, as any batch.
    expect(await single.submit(1000)).toBe(1000);
    expect(transactions).toBe(1);
    // Beside another lane's batch: one transaction for both.
    expect(await Promise.all([single.submit(102), other.submit(100)])).toEqual([102, 1000]);
    expect(transactions).toBe(2);
    // A failed statement alone fails only its bad item, the others retried one by one.
    const outcomes = await Promise.allSettled([single.submit(103), single.submit(100), single.submit(104)]);
    expect(outcomes.map((outcome) => outcome.status)).toEqual(['fulfilled', 'rejected', 'fulfilled']);
    const stored = await store.query<{ a: number[] }>('SELECT array_agg(value ORDER BY value) AS a FROM lane_a WHERE value >= 100');
    expect(stored.rows[0]?.a).toEqual([100, 101, 102, 103, 104, 1000]);
  });
});
