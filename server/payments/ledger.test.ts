import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { newNdc, newResourceId } from '../domain/ids.ts';
import type { PaymentRecord } from '../domain/payment.ts';
import { createOutbox, eventsOf, type DomainEvent } from '../events/outbox.ts';
import { createEntity } from '../merchants/repository.ts';
import { openStore, type Store } from '../store/index.ts';
import { freshStoreLocation, STORE_KINDS, warnIfPostgresSkipped, type StoreLocation } from '../testing/harness.ts';
import { createLedger, type Ledger } from './ledger.ts';

warnIfPostgresSkipped('ledger.test.ts');

/** A ledger whose outbox records what its subscribers were handed. */
function ledgerOf(store: Store, handed: DomainEvent[] = []): Ledger {
  return createLedger(
    store,
    createOutbox([
      async (_tx, events) => {
        handed.push(...events);
      },
    ]),
  );
}

describe.each(STORE_KINDS)('the ledger: group commit of new payments on %s', (kind) => {
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
    status: 'approved',
    finalInSequence: false,
    maxCaptures: null,
    acquirer: 'simulator',
    acquirerReference: 'SIMULATOR-1',
    testMode: 'INTERNAL',
    merchantTransactionId: 'order-0001',
    card: { bin: '420000', last4Digits: '0000', holder: 'Jane Jones', expiryMonth: '05', expiryYear: '2034' },
    requestEcho: { customer: { givenName: 'Jane' }, cart: { items: [{ name: 'Socks' }] } },
    resultDetails: { AcquirerResponse: '000100110' },
    threeDSecure: null,
    redirect: null,
    registrationId: null,
    source: 'API',
    checkoutId: null,
    ndc: newNdc(entityId),
    createdAt: new Date('2026-11-21T10:04:05.123Z'),
    ...overrides,
  });

  async function storedIds(ids: readonly string[]): Promise<string[]> {
    const found = await store.query<{ id: string }>('SELECT id FROM payments WHERE id = ANY($1::text[]) ORDER BY id', [ids]);
    return found.rows.map((row) => row.id);
  }

  it('commits every payment of a burst before answering, with every field intact', async () => {
    const handed: DomainEvent[] = [];
    const ledger = ledgerOf(store, handed);
    const burst = Array.from({ length: 50 }, (_, index) => payment({ amountMinor: index + 1 }));
    await Promise.all(burst.map((item) => ledger.record({ payments: [item] })));
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
      status: 'approved',
    });
    expect((row.rows[0]?.created_at as Date).toISOString()).toBe('2026-11-21T10:04:05.123Z');
    // Each payment has its one PAYMENT CREATED event, with the payment as the API shows it, and the subscribers saw it.
    for (const item of burst) {
      const events = await eventsOf(store, item.id);
      expect(events.map((event) => [event.type, event.action])).toEqual([['PAYMENT', 'CREATED']]);
      expect(events[0]?.payload).toMatchObject({ id: item.id, amount: (item.amountMinor / 100).toFixed(2), paymentType: 'DB' });
    }
    expect(handed.map((event) => event.resourceId).sort()).toEqual(burst.map((item) => item.id).sort());
  });

  it('keeps the good payments of a batch when one of them cannot be stored', async () => {
    const ledger = ledgerOf(store);
    const good = [payment(), payment(), payment()];
    const bad = payment({ currency: 'TOO-LONG' });
    const outcomes = await Promise.allSettled([...good, bad].map((item) => ledger.record({ payments: [item] })));
    expect(outcomes.map((outcome) => outcome.status)).toEqual(['fulfilled', 'fulfilled', 'fulfilled', 'rejected']);
    expect(await storedIds(good.map((item) => item.id))).toEqual(good.map((item) => item.id).sort());
    expect(await eventsOf(store, bad.id)).toEqual([]);
  });

  it('answers a lone failing payment with its own error', async () => {
    const ledger = ledgerOf(store);
    await expect(ledger.record({ payments: [payment({ currency: 'TOO-LONG' })] })).rejects.toThrow();
    const after = payment();
    await ledger.record({ payments: [after] });
    expect(await storedIds([after.id])).toEqual([after.id]);
  });

  it('writes a payment and its event together or not at all: a failure after the payment leaves neither', async () => {
    const ledger = ledgerOf(store);
    const doomed = payment();
    await expect(
      ledger.record({
        payments: [doomed],
        alongside: async () => {
          throw new Error('the transaction fails after the payment and its event were written');
        },
      }),
    ).rejects.toThrow(/fails after/);
    expect(await storedIds([doomed.id])).toEqual([]);
    expect(await eventsOf(store, doomed.id)).toEqual([]);
  });

  it('records a payment once: written again under its id, it keeps the first, and gets no second event', async () => {
    const ledger = ledgerOf(store);
    const first = payment({ resultCode: '000.100.110' });
    await ledger.record({ payments: [first] });
    const [again] = await ledger.record({ payments: [{ ...first, resultCode: '800.100.151', status: 'declined' }] });
    expect(again?.resultCode).toBe('000.100.110');
    expect(await eventsOf(store, first.id)).toHaveLength(1);
  });

  it('makes a pending payment final once, with its UPDATED event, and nothing more afterwards', async () => {
    const ledger = ledgerOf(store);
    const pending = payment({ resultCode: '000.200.000', resultDescription: 'transaction pending', status: 'pending' });
    await ledger.record({ payments: [pending] });
    const final = { resultCode: '000.100.110', resultDescription: 'ok', resultDetails: null, threeDSecure: null, acquirerReference: 'SIMULATOR-2', registrationId: null };
    const finished = await store.transaction((tx) => ledger.finish(tx, pending, final, new Date()));
    expect(finished).toMatchObject({ status: 'approved', resultCode: '000.100.110', acquirerReference: 'SIMULATOR-2', redirect: null });
    const late = await store.transaction((tx) => ledger.finish(tx, pending, { ...final, resultCode: '100.396.103' }, new Date()));
    expect(late).toBeUndefined();
    expect((await eventsOf(store, pending.id)).map((event) => event.action)).toEqual(['CREATED', 'UPDATED']);
  });
});
