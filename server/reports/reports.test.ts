import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BUILD_NUMBER, TIMESTAMP } from '../testing/envelope.ts';
import { cardPayment, createTestClock, STORE_KINDS, startTestGateway, warnIfPostgresSkipped, type TestClock, type TestGateway } from '../testing/harness.ts';
import { insertSettlementBatch, type NewSettlementRecord, type RecordType } from './settlementRecords.ts';
import { runSettlement } from './settlementRun.ts';

warnIfPostgresSkipped('reports/reports.test.ts');

/**
 * The settlement reports (COMPAT §14, §17): the summary of an entity's aggregations over days, the detail of one
 * (every record, either order), the paged detail (100 a page, of one record type), under the platform's misspelled
 * paths too; every bad parameter named, another entity's aggregation as unknown as none, and 1 report a second.
 */

const DAY = '2026-11-26';
const PAGED_DAY = '2026-11-20';

function syntheticRecord(index: number, recordType: RecordType): NewSettlementRecord {
  return {
    recordType,
    transactionType: 'DEBIT',
    cashflow: recordType === 'CHARGEBACK' ? 'NEG' : 'POS',
    clearingMerchantId: 'SIMULATOR-000000000000',
    settlementTxId: `S${index}`,
    paymentId: null,
    shortId: null,
    connectorTxIds: [null, null, null],
    merchantTransactionId: `order-${index}`,
    merchantInvoiceId: null,
    amountMinor: 100 + index,
    currency: 'EUR',
    brand: 'VISA',
    presentmentAt: new Date(Date.parse(`${PAGED_DAY}T00:00:00Z`) + index * 1000),
    settlementAmountMinor: 100 + index,
    settlementCurrency: 'EUR',
    settlementFeeMinor: null,
    fxRate: '1',
    settlementDate: PAGED_DAY,
    settlementStatus: 'SUCCESS',
    descriptor: null,
    accountLast4: null,
    bankCode: null,
    accountHolder: null,
    reasonCode: null,
    reasonDesc: null,
    settlementFormat: 'SIMULATOR',
    matchingStatus: 'NOT_MATCHED',
    matchedPaymentIds: [],
    chargebackId: null,
  };
}

describe.each(STORE_KINDS)('the settlement reports on %s', (kind) => {
  let t: TestGateway;
  let clock: TestClock;
  let aggregationId: string;
  let pagedId: string;
  let debitId: string;
  let chargebackId: string;
  let sepaId: string;

  beforeAll(async () => {
    clock = createTestClock(new Date(`${DAY}T09:00:00.000Z`));
    t = await startTestGateway(kind, {}, { now: clock.now });
    const pay = async (params: Record<string, string>) => {
      clock.advance(1_000);
      return (await t.post('/v1/payments', params)).body.id as string;
    };
    debitId = await pay(cardPayment(t.entityId, { amount: '40.00', merchantTransactionId: 'order-4711' }));
    sepaId = await pay({ entityId: t.entityId, amount: '9.00', currency: 'EUR', paymentType: 'DB', paymentBrand: 'DIRECTDEBIT_SEPA', 'bankAccount.holder': 'Jane Jones', 'bankAccount.iban': 'DE23100000001234567890', 'bankAccount.bic': 'MARKDEF1100' });
    chargebackId = (await t.post(`/v1/payments/${debitId}`, { entityId: t.entityId, paymentType: 'CB', amount: '15.00', currency: 'EUR', chargebackResultCode: '000.100.210' })).body.id as string;
    clock.advance(14 * 3_600_000);
    const run = await runSettlement({ store: t.gateway.store, acquirers: t.gateway.config.acquirers, settlement: t.gateway.config.settlement, now: clock.now }, DAY);
    aggregationId = (run.batches[0] as { id: string }).id;
    const records = Array.from({ length: 250 }, (_, index) => syntheticRecord(index + 1, index % 10 === 9 ? 'CHARGEBACK' : 'SETTLED'));
    const paged = await t.gateway.store.transaction((tx) =>
      insertSettlementBatch(tx, { entityId: t.entityId, clearingInstitute: 'simulator', settlementDate: PAGED_DAY, settlementCurrency: 'EUR', settlementAmountMinor: 0, transactionCount: 250, test: true, createdAt: clock.now() }, records),
    );
    pagedId = paged.batchId;
  });
  afterAll(async () => {
    await t?.close();
  });

  /** A report request, a second after the one before (1 report a second per entity). */
  const report = async (path: string, query: Record<string, string> = {}, token: string | null = t.token) => {
    clock.advance(1_000);
    const response = await t.gateway.app.request(`${path}?${new URLSearchParams({ entityId: t.entityId, ...query })}`, { headers: token ? { Authorization: `Bearer ${token}` } : {} });
    // eslint-disable-next-line @typescript-eslint/no-explicit-any
    return { status: response.status, body: JSON.parse(await response.text()) as any };
  };
  const summary = (query: Record<string, string>, path = '/reports/v1/reconciliations/aggregations') => report(path, query);
  const errorsOf = (answer: { body: { result: { parameterErrors?: { name: string }[] } } }) => answer.body.result.parameterErrors?.map((error) => error.name);

  it('sums up the entity’s aggregations of the days asked for, under either spelling', async () => {
    const answer = await summary({ 'date.from': PAGED_DAY, 'date.to': DAY });
    expect(answer.status).toBe(200);
    expect(answer.body).toMatchObject({ result: { code: '000.000.100' }, buildNumber: expect.stringMatching(BUILD_NUMBER), timestamp: expect.stringMatching(TIMESTAMP), ndc: expect.stringMatching(new RegExp(`^${t.entityId}_`)) });
    expect(answer.body.aggregations).toEqual([
      { id: pagedId, date: PAGED_DAY, currency: 'EUR', clearingInstituteName: 'simulator', merchantAccountId: t.entityId, settlementAmount: '0.00', transactionCount: 250 },
      // 40.00 + 9.00 − 15.00, less the default fees (1.4 % + 0.25 each): 0.81, 0.38, 0.46.
      { id: aggregationId, date: DAY, currency: 'EUR', clearingInstituteName: 'simulator', merchantAccountId: t.entityId, settlementAmount: '32.35', transactionCount: 3 },
    ]);
    const misspelled = await summary({ 'date.from': DAY, 'date.to': `${DAY} 23:59:59`, currency: 'EUR', testMode: 'INTERNAL' }, '/reports/v1/reconiliations/aggregrations');
    expect(misspelled.body.aggregations.map((aggregation: { id: string }) => aggregation.id)).toEqual([aggregationId]);
    expect((await summary({ 'date.from': DAY, 'date.to': DAY, currency: 'USD' })).body.aggregations).toEqual([]);
  });

  it('details an aggregation’s records by their API fields, in either order', async () => {
    const answer = await report(`/reports/v1/reconciliations/aggregations/${aggregationId}`);
    expect(answer.status).toBe(200);
    expect(answer.body).toMatchObject({ id: aggregationId, result: { code: '000.000.100' }, buildNumber: expect.stringMatching(BUILD_NUMBER) });
    // By the transactions' times: the chargeback dates from the debit it charges back.
    const [debit, chargeback, sepa] = answer.body.records;
    expect(debit).toEqual({
      recordType: 'SETTLED',
      transactionType: 'DEBIT',
      settlement: { cashflow: 'POS', id: expect.stringMatching(/^SIMULATOR-S/), amount: '40.00', currency: 'EUR', fee: '0.81', fxRate: '1', date: DAY, status: 'SUCCESS', format: 'SIMULATOR' },
      clearingInstitute: { merchantId: `SIMULATOR-${t.entityId.slice(0, 12).toUpperCase()}`, txId1: expect.stringMatching(/^SIMULATOR-/), name: 'simulator' },
      merchantAccount: { id: t.entityId, name: 'Test merchant' },
      pspEntityId: t.gateway.config.pspEntityId,
      merchantEntityId: t.entityId,
      payment: { id: debitId },
      shortId: expect.stringMatching(/^\d{4}\.\d{4}\.\d{4}$/),
      merchantTransactionId: 'order-4711',
      amount: '40.00',
      currency: 'EUR',
      paymentBrand: 'VISA',
      presentmentDate: '2026-11-26 09:00:01.000+0000',
      descriptor: expect.stringMatching(/^\d{4}\.\d{4}\.\d{4}$/),
      card: { last4Digits: '0000', holder: 'Jane Jones' },
      matchedTransactions: { status: 'MATCHED', payment: [{ id: debitId }] },
    });
    expect(sepa).toMatchObject({ payment: { id: sepaId }, bankAccount: { last4Digits: '7890', bankCode: 'MARKDEF1100', holder: 'Jane Jones' } });
    expect(sepa.card).toBeUndefined();
    expect(chargeback).toMatchObject({
      recordType: 'CHARGEBACK',
      settlement: { cashflow: 'NEG', amount: '15.00' },
      payment: { id: debitId },
      result: { code: '000.100.210', description: 'Fraudulent Transaction' },
      chargebackTransaction: { id: chargebackId },
    });
    expect(JSON.stringify(answer.body)).not.toContain('DE23100000001234567890');

    const descending = await report(`/reports/v1/reconciliations/aggregrations/${aggregationId}`, { sortValue: 'SettlementTxDate', sortOrder: 'desc' });
    expect(descending.body.records.map((record: { recordType: string }) => record.recordType)).toEqual(['SETTLED', 'CHARGEBACK', 'SETTLED']);
    expect(descending.body.records[0].payment).toEqual({ id: sepaId });
    const all = await report(`/reports/v1/reconciliations/aggregations/${pagedId}`, { sortOrder: 'ASC' });
    expect(all.body.records.map((record: { settlement: { id: string } }) => record.settlement.id)).toEqual(Array.from({ length: 250 }, (_, index) => `S${index + 1}`));
  });

  it('pages an aggregation’s records 100 at a time, of one record type when asked', async () => {
    const path = `/reports/v2/reconciliations/aggregations/${pagedId}`;
    const ids = (answer: { body: { records: { settlement: { id: string } }[] } }) => answer.body.records.map((record) => record.settlement.id);
    const first = await report(path);
    expect(first.body).toMatchObject({ id: pagedId, pages: 3, result: { code: '000.000.100' } });
    expect(ids(first)).toEqual(Array.from({ length: 100 }, (_, index) => `S${index + 1}`));
    expect(ids(await report(path, { pageNo: '3' }))).toEqual(Array.from({ length: 50 }, (_, index) => `S${index + 201}`));
    expect(ids(await report(path, { pageNo: '2', sortValue: 'SettlementTxDate', sortOrder: 'DESC' }))).toEqual(Array.from({ length: 100 }, (_, index) => `S${150 - index}`));
    const chargebacks = await report('/reports/v2/reconiliations/aggregrations/' + pagedId, { reconciliationType: 'CHARGEBACK' });
    expect(chargebacks.body.pages).toBe(1);
    expect(ids(chargebacks)).toEqual(Array.from({ length: 25 }, (_, index) => `S${(index + 1) * 10}`));
    const settled = await report(path, { reconciliationType: 'SETTLED', pageNo: '3', sortOrder: 'DESC' });
    expect(settled.body.pages).toBe(3);
    const settledDescending = Array.from({ length: 250 }, (_, index) => 250 - index).filter((position) => position % 10 !== 0);
    expect(ids(settled)).toEqual(settledDescending.slice(200).map((position) => `S${position}`));
    expect(await report(path, { pageNo: '4' })).toMatchObject({ status: 200, body: { records: [], pages: 3 } });
  });

  it('names every bad parameter, and answers another entity’s aggregation as an unknown one', async () => {
    expect(errorsOf(await summary({}))).toEqual(['date.from', 'date.to']);
    expect(errorsOf(await summary({ 'date.from': '2026-02-30', 'date.to': '26.11.2026' }))).toEqual(['date.from', 'date.to']);
    expect((await summary({ 'date.from': DAY, 'date.to': '2026-11-25' })).body.result).toMatchObject({ code: '200.300.404', parameterErrors: [{ name: 'date.to', value: '2026-11-25', message: 'must not be before date.from' }] });
    expect(errorsOf(await summary({ 'date.from': '2026-10-26', 'date.to': DAY }))).toEqual(['date.to']);
    expect(errorsOf(await summary({ 'date.from': '2026-10-27', 'date.to': DAY, currency: 'eur' }))).toEqual(['currency']);
    expect((await summary({ 'date.from': DAY, 'date.to': DAY, testMode: 'SOMETIMES' })).body.result.code).toBe('100.300.101');
    const detail = `/reports/v2/reconciliations/aggregations/${pagedId}`;
    expect(errorsOf(await report(detail, { sortValue: 'Amount', sortOrder: 'UP', reconciliationType: 'REFUND', pageNo: '0' }))).toEqual(['sortValue', 'sortOrder', 'reconciliationType', 'pageNo']);

    const other = await t.newMerchant();
    for (const [path, token, entityId] of [
      [`/reports/v1/reconciliations/aggregations/${'0'.repeat(32)}`, t.token, t.entityId],
      [`/reports/v1/reconciliations/aggregations/not-an-id`, t.token, t.entityId],
      [`/reports/v2/reconciliations/aggregations/${pagedId}`, other.token, other.entityId],
      [`/reports/v1/reconciliations/aggregations/${aggregationId}`, other.token, other.entityId],
    ] as const) {
      clock.advance(1_000);
      const response = await t.gateway.app.request(`${path}?entityId=${entityId}`, { headers: { Authorization: `Bearer ${token}` } });
      expect([response.status, ((await response.json()) as { result: { code: string } }).result.code], path).toEqual([400, '700.400.580']);
    }
    expect((await report(`/reports/v1/reconciliations/aggregations/${aggregationId}`, {}, null)).status).toBe(401);
    expect((await report(`/reports/v1/reconciliations/aggregations/${aggregationId}`, {}, other.token)).status).toBe(403);
    const posted = await t.gateway.app.request('/reports/v1/reconciliations/aggregations', { method: 'POST', headers: { Authorization: `Bearer ${t.token}` } });
    expect(posted.status).toBe(405);
  });

  it('answers one report a second per entity, as list queries', async () => {
    const first = await summary({ 'date.from': DAY, 'date.to': DAY });
    expect(first.status).toBe(200);
    // Same second: refused; a second later: answered again.
    const response = await t.gateway.app.request(`/reports/v2/reconciliations/aggregations/${pagedId}?entityId=${t.entityId}`, { headers: { Authorization: `Bearer ${t.token}` } });
    expect(response.status).toBe(400);
    expect(((await response.json()) as { result: { code: string } }).result.code).toBe('800.120.100');
    expect(response.headers.get('retry-after')).toBe('1');
    expect((await summary({ 'date.from': DAY, 'date.to': DAY })).status).toBe(200);
  });
});
