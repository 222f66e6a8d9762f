import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { newNdc, newResourceId } from '../domain/ids.ts';
import { createEntity } from '../merchants/repository.ts';
import { openStore, type Store } from '../store/index.ts';
import { freshStoreLocation, STORE_KINDS, warnIfPostgresSkipped, type StoreLocation } from '../testing/harness.ts';
import { createPaymentWriter } from './paymentWriter.ts';
import type { PaymentRecord } from './repository.ts';

warnIfPostgresSkipped('paymentWriter.test.ts');

describe.each(STORE_KINDS)('group commit of new payments on %s', (kind) => {
  let location: StoreLocation;
  let store: Store;
  let entityId: string;
  beforeAll(async () => {
    location = await freshStoreLocation(kind);
    store = await openStore(location);
    entityId = (await createEntity(store, 'writer test')).id;
  });
  afterAll(async () => {
    await store?.close();
    await location?.dispose();
  });

  const payment = (overrides: Partial<PaymentRecord> = {}): PaymentRecord => ({
    id: newResourceId(),
    entityId,
    parentId: null,
    paymentType: 'DB',
    paymentBrand: 'VISA',
    amountMinor: 9200,
    currency: 'EUR',
    resultCode: '000.100.110',
    resultDescription: 'approved',
    approved: true,
    finalInSequence: false,
    maxCaptures: null,
    acquirer: 'simulator',
    testMode: 'INTERNAL',
    merchantTransactionId: 'order-0001',
    card: { bin: '420000', last4Digits: '0000', holder: 'Jane Jones', expiryMonth: '05', expiryYear: '2034' },
    requestEcho: { customer: { givenName: 'Jane' }, cart: { items: [{ name: 'Socks' }] } },
    resultDetails: { AcquirerResponse: '000100110' },
    threeDSecure: null,
    redirect: null,
    registrationId: null,
    ndc: newNdc(entityId),
    createdAt: new Date('2026-11-21T10:04:05.123Z'),
    ...overrides,
  });

  async function storedIds(ids: readonly string[]): Promise<string[]> {
    const found = await store.query<{ id: string }>('SELECT id FROM payments WHERE id = ANY($1::text[]) ORDER BY id', [ids]);
    return found.rows.map((row) => row.id);
  }

  it('commits every payment of a burst before answering, with every field intact', async () => {
    const writer = createPaymentWriter(store);
    const burst = Array.from({ length: 50 }, (_, index) => payment({ amountMinor: index + 1 }));
    await Promise.all(burst.map((item) => writer.write(item)));
    expect(await storedIds(burst.map((item) => item.id))).toEqual(burst.map((item) => item.id).sort());

    const first = burst[0] as PaymentRecord;
    const row = await store.query<Record<string, unknown>>('SELECT * FROM payments WHERE id = $1', [first.id]);
    expect(row.rows[0]).toMatchObject({
      entity_id: entityId,
      amount_minor: 1,
      card: first.card,
      request_echo: first.requestEcho,
      result_details: first.resultDetails,
      merchant_transaction_id: 'order-0001',
      approved: true,
    });
    expect((row.rows[0]?.created_at as Date).toISOString()).toBe('2026-11-21T10:04:05.123Z');
  });

  it('keeps the good payments of a batch when one of them cannot be stored', async () => {
    const writer = createPaymentWriter(store);
    const existing = payment();
    await writer.write(existing);
    const good = [payment(), payment(), payment()];
    const duplicate = payment({ id: existing.id });
    const outcomes = await Promise.allSettled([...good, duplicate].map((item) => writer.write(item)));
    expect(outcomes.map((outcome) => outcome.status)).toEqual(['fulfilled', 'fulfilled', 'fulfilled', 'rejected']);
    expect(await storedIds(good.map((item) => item.id))).toEqual(good.map((item) => item.id).sort());
  });

  it('answers a lone failing payment with its own error', async () => {
    const writer = createPaymentWriter(store);
    await expect(writer.write(payment({ currency: 'TOO-LONG' }))).rejects.toThrow();
    const after = payment();
    await writer.write(after);
    expect(await storedIds([after.id])).toEqual([after.id]);
  });
});
