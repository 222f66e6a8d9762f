import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { newResourceId } from '../domain/ids.ts';
import { openStore, type Store } from '../store/index.ts';
import { freshStoreLocation, STORE_KINDS, warnIfPostgresSkipped, type StoreLocation } from '../testing/harness.ts';
import { createSimulatedAcquirer, createSimulatorRecords, type SimulatorRecords } from './simulator.ts';
import type { Acquirer, BackOfficeRequest, InquiredAttempt } from './types.ts';

warnIfPostgresSkipped('simulatorRecords.test.ts');

/**
 * The simulated acquirer's records by default (SIMULATOR_DURABLE_RECORDS=false): an answer is kept in memory until the
 * transaction that records it writes it (the ledger's: AcquirerRecords.writeIn), and asked again meanwhile the
 * acquirer answers it again; a transaction that rolls back leaves it in memory, to be written by the next one.
 */

describe.each(STORE_KINDS)('the simulated acquirer’s records, written with the payment’s transaction, on %s', (kind) => {
  let location: StoreLocation;
  let store: Store;
  let records: SimulatorRecords;
  let acquirer: Acquirer;
  const entityId = newResourceId();
  const capture = (attemptId: string): BackOfficeRequest => ({
    attemptId,
    entityId,
    paymentId: newResourceId(),
    paymentType: 'CP',
    amountMinor: 100,
    currency: 'EUR',
    referencedReference: 'SIMULATOR-1',
    testMode: 'EXTERNAL',
  });
  const asked = (attemptId: string): InquiredAttempt => ({ attemptId, entityId, paymentType: 'CP', reference: null, sentAt: new Date() });
  const stored = async (attemptId: string) =>
    (await store.query<{ reference: string }>('SELECT reference FROM simulator_operations WHERE attempt_id = $1', [attemptId])).rows.map((row) => row.reference);

  beforeAll(async () => {
    location = await freshStoreLocation(kind);
    store = await openStore(location);
    records = createSimulatorRecords(store);
    acquirer = createSimulatedAcquirer('simulator', store, { durableRecords: false, records });
  });
  afterAll(async () => {
    await store?.close();
    await location?.dispose();
  });

  it('answers an attempt asked twice with its first answer, and inquire tells it, before anything is written', async () => {
    const attemptId = newResourceId();
    const first = await acquirer.backOffice(capture(attemptId));
    expect(await acquirer.backOffice(capture(attemptId))).toEqual(first);
    expect(await acquirer.inquire(asked(attemptId))).toEqual(first);
    expect(await stored(attemptId)).toEqual([]);
    expect(await acquirer.inquire(asked(newResourceId()))).toBeUndefined();
  });

  it('keeps an answer whose transaction rolled back, and the next transaction writes it', async () => {
    const attemptId = newResourceId();
    const answer = await acquirer.backOffice(capture(attemptId));
    await expect(
      store.transaction(async (tx) => {
        await records.writeIn(tx, [attemptId]);
        throw new Error('the payment could not be written');
      }),
    ).rejects.toThrow('the payment could not be written');
    expect(await stored(attemptId)).toEqual([]);
    expect(await acquirer.inquire(asked(attemptId))).toEqual(answer);
    await store.transaction((tx) => records.writeIn(tx, [attemptId]));
    expect(await stored(attemptId)).toEqual([answer.reference]);
  });

  it('forgets what it has seen committed, and answers from the store then', async () => {
    const attemptIds = Array.from({ length: 600 }, () => newResourceId());
    const answers = await Promise.all(attemptIds.map((attemptId) => acquirer.backOffice(capture(attemptId))));
    // Past 512 written records, the acquirer looks them up in the store (outside the transaction) and forgets them.
    await store.transaction((tx) => records.writeIn(tx, attemptIds));
    // The lookup runs after the commit, in the background: on a busy machine it may take seconds.
    await expect.poll(() => records.kept('simulator', attemptIds[0] as string), { timeout: 30_000 }).toBeUndefined();
    expect(await acquirer.inquire(asked(attemptIds[0] as string))).toEqual(answers[0]);
    expect(records.kept('simulator', attemptIds[599] as string)).toBeUndefined();
  });
});
