import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { settlementRecord } from '../testing/settlements.ts';
import { createEntity } from '../merchants/repository.ts';
import { openStore, type Store } from '../store/index.ts';
import { freshStoreLocation, STORE_KINDS, warnIfPostgresSkipped, type StoreLocation } from '../testing/harness.ts';
import {
  countRecordsOfBatch,
  findSettlementBatch,
  findSettlementBatches,
  insertSettlementBatch,
  recordsOfBatch,
  recordsOfDay,
  type NewSettlementRecord,
} from './settlementRecords.ts';

warnIfPostgresSkipped('reports/settlementRecords.test.ts');

/** The settlements' SQL: a batch with its records written once, read back exactly, paged and streamed in order. */

const record = (overrides: Partial<NewSettlementRecord> = {}): NewSettlementRecord => settlementRecord({ accountHolder: 'Jane "J" Jones; Sr.', ...overrides });

describe.each(STORE_KINDS)('settlement records on %s', (kind) => {
  let location: StoreLocation;
  let store: Store;
  let entityId: string;
  beforeAll(async () => {
    location = await freshStoreLocation(kind);
    store = await openStore({ dataDir: location.dataDir, databaseUrl: location.databaseUrl });
    entityId = (await createEntity(store, 'Settled shop')).id;
  });
  afterAll(async () => {
    await store?.close();
    await location?.dispose();
  });

  const batch = (date: string, currency = 'EUR') => ({
    entityId,
    clearingInstitute: 'simulator',
    settlementDate: date,
    settlementCurrency: currency,
    settlementAmountMinor: 0,
    transactionCount: 0,
    test: true,
    createdAt: new Date('2026-11-27T00:00:00.000Z'),
  });

  it('writes a batch once with its records in order, and reads them back exactly', async () => {
    const records = [record(), record({ recordType: 'FEE', transactionType: 'CAPTURE_FEE', cashflow: 'NEG', paymentId: null, fxRate: '0.9134567', matchingStatus: null, matchedPaymentIds: [] })];
    const written = await store.transaction((tx) => insertSettlementBatch(tx, batch('2026-11-26'), records));
    expect(written.inserted).toBe(true);
    // The same batch again (a settlement run repeated) writes nothing.
    expect((await store.transaction((tx) => insertSettlementBatch(tx, batch('2026-11-26'), records))).inserted).toBe(false);
    expect(await findSettlementBatch(store, entityId, written.batchId)).toMatchObject({ settlementDate: '2026-11-26', settlementCurrency: 'EUR', test: true });
    expect(await findSettlementBatch(store, '0'.repeat(32), written.batchId)).toBeUndefined();
    const read = await recordsOfBatch(store, written.batchId, { limit: 10 });
    expect(read.map((entry) => entry.position)).toEqual([1, 2]);
    expect(read[0]).toMatchObject({ ...records[0], batchId: written.batchId });
    expect(read[1]?.fxRate).toBe('0.9134567');
    expect(await countRecordsOfBatch(store, written.batchId, 'FEE')).toBe(1);
  });

  it('pages a batch both ways and streams a day of several batches in order', async () => {
    const many = Array.from({ length: 1_234 }, (_, index) => record({ amountMinor: index + 1 }));
    const usd = await store.transaction((tx) => insertSettlementBatch(tx, { ...batch('2026-11-25', 'USD'), clearingInstitute: 'fallback' }, many));
    await store.transaction((tx) => insertSettlementBatch(tx, batch('2026-11-25'), [record({ amountMinor: 5 })]));
    const last = await recordsOfBatch(store, usd.batchId, { limit: 3, descending: true });
    expect(last.map((entry) => entry.position)).toEqual([1234, 1233, 1232]);
    const next = await recordsOfBatch(store, usd.batchId, { after: 1232, limit: 3, descending: true });
    expect(next.map((entry) => entry.position)).toEqual([1231, 1230, 1229]);

    const streamed: number[] = [];
    for await (const entry of recordsOfDay(store, entityId, '2026-11-25', 500)) streamed.push(entry.amountMinor);
    // Batches in the order of their institutes' names (fallback, then simulator), each batch's records in order.
    expect(streamed).toEqual([...many.map((entry) => entry.amountMinor), 5]);
    expect(await findSettlementBatches(store, entityId, { from: '2026-11-25', to: '2026-11-26', currency: 'EUR' })).toHaveLength(2);
  });
});
