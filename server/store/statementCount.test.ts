import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { freshStoreLocation, STORE_KINDS, warnIfPostgresSkipped, type StoreLocation } from '../testing/harness.ts';
import { openStore, type Store } from './index.ts';
import { countStatements } from './statementCount.ts';

warnIfPostgresSkipped('statementCount.test.ts');

describe.each(STORE_KINDS)('counting what the store on %s is asked', (kind) => {
  let location: StoreLocation;
  let store: Store;
  beforeAll(async () => {
    location = await freshStoreLocation(kind);
    store = await openStore(location);
  });
  afterAll(async () => {
    await store?.close();
    await location?.dispose();
  });

  it('counts statements in and out of transactions, and a round trip each besides for BEGIN and COMMIT', async () => {
    const counted = countStatements(store);
    expect(counted.counts()).toEqual({ statements: 0, transactions: 0, roundTrips: 0 });
    await counted.store.query('SELECT 1');
    const answer = await counted.store.transaction(async (tx) => {
      await tx.query('SELECT 2');
      return (await tx.query<{ n: number }>('SELECT 3 AS n')).rows[0]?.n;
    });
    await expect(counted.store.transaction((tx) => tx.query('SELECT * FROM no_such_table'))).rejects.toThrow();
    expect(answer).toBe(3);
    expect(counted.counts()).toEqual({ statements: 4, transactions: 2, roundTrips: 8 });
    expect(counted.store.kind).toBe(store.kind);
  });
});
