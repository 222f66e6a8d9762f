import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cardPayment, createTestClock, STORE_KINDS, startTestGateway, warnIfPostgresSkipped, type TestClock, type TestGateway } from '../testing/harness.ts';
import { findSettlementBatchesOfDay, recordsOfBatch, type SettlementBatch, type SettlementRecord } from './settlementRecords.ts';
import { SETTLEMENT_CHECK_EVERY_MS } from './settlementJob.ts';

warnIfPostgresSkipped('reports/settlementRun.test.ts');

/**
 * The simulated acquirers' daily settlement (issue 21): what each settles (captures and debits paid, credits, refunds
 * and chargebacks taken back, reversals paid again), with fees and FX rates exactly as configured, each operation
 * once whatever runs when, matched against the gateway's payments — and the operator's admin API that runs a day,
 * lists it and sets an entity's settlement currency and test records.
 */

const ADMIN_TOKEN = 'admin-token-of-the-settlement-run-test-0123456789';
const DAY = '2026-11-26';
const CUTOFF = new Date(`${DAY}T22:00:00.000Z`);
const HOUR_MS = 3_600_000;

describe.each(STORE_KINDS)('the settlement run on %s', (kind) => {
  let t: TestGateway;
  let clock: TestClock;
  beforeAll(async () => {
    clock = createTestClock(new Date(`${DAY}T10:00:00.000Z`));
    t = await startTestGateway(
      kind,
      { adminToken: ADMIN_TOKEN, settlement: { cutoffMinutesUtc: 22 * 60, feePercent: '1.5', feeFixedMinor: 10, fxRates: new Map([['GBP:EUR', '1.5']]) } },
      { now: clock.now },
    );
  });
  afterAll(async () => {
    await t?.close();
  });

  const at = (time: string) => {
    clock.advance(Date.parse(time) - clock.now().getTime());
  };
  const admin = async (method: string, path: string, body?: unknown) => {
    const response = await t.gateway.app.request(path, {
      method,
      headers: { Authorization: `Bearer ${ADMIN_TOKEN}`, 'Content-Type': 'application/json' },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });
    // eslint-disable-next-line @typescript-eslint/no-explicit-any
    return { status: response.status, body: (await response.json()) as any };
  };
  /** A payment (a card debit unless `params` say otherwise), a second after the one before: the records' order is the payments'. */
  const pay = async (entityId: string, token: string, params: Record<string, string>, base = cardPayment(entityId)) => {
    clock.advance(1_000);
    const answer = await t.post('/v1/payments', { ...base, ...params }, { token });
    expect(answer.status, JSON.stringify(answer.body)).toBe(200);
    return answer.body.id as string;
  };
  const operate = async (token: string, entityId: string, id: string, params: Record<string, string>) => {
    const answer = await t.post(`/v1/payments/${id}`, { entityId, currency: 'EUR', ...params }, { token });
    expect(answer.status, JSON.stringify(answer.body)).toBe(200);
    return answer.body.id as string;
  };
  const recordsOf = async (batch: SettlementBatch): Promise<SettlementRecord[]> => recordsOfBatch(t.gateway.store, batch.id, { limit: 1_000 });
  const batchesOf = async (date: string, entityId: string) => findSettlementBatchesOfDay(t.gateway.store, date, entityId);

  it('settles debits, captures, credits, refunds, chargebacks and their reversals with fees, in the entity’s currency at the configured rate', async () => {
    const { entityId, token } = await t.newMerchant();
    expect((await admin('PUT', `/admin/v1/entities/${entityId}/settlement`, { currency: 'EUR' })).status).toBe(200);
    at(`${DAY}T10:00:00.000Z`);
    const debit = await pay(entityId, token, { amount: '100.00', merchantTransactionId: 'order-0001', merchantInvoiceId: 'invoice-0001' });
    const preauthorization = await pay(entityId, token, { paymentType: 'PA', amount: '50.00' });
    const capture = await operate(token, entityId, preauthorization, { paymentType: 'CP', amount: '50.00' });
    // 10.05 × 1.5 = 15.075 and 10.15 × 1.5 = 15.225: half to even, 15.08 and 15.22.
    const pounds = await pay(entityId, token, { amount: '10.05', currency: 'GBP' });
    const morePounds = await pay(entityId, token, { amount: '10.15', currency: 'GBP' });
    const dollars = await pay(entityId, token, { amount: '7.00', currency: 'USD' });
    const credit = await pay(entityId, token, { paymentType: 'CD', amount: '20.00' });
    const refund = await operate(token, entityId, debit, { paymentType: 'RF', amount: '30.00' });
    const disputed = await pay(entityId, token, { amount: '40.00', merchantTransactionId: 'order-0002' });
    const chargeback = await operate(token, entityId, disputed, { paymentType: 'CB', amount: '15.00', chargebackResultCode: '000.100.210' });
    const reversal = await operate(token, entityId, chargeback, { paymentType: 'CR', amount: '15.00' });
    const sepa = await pay(entityId, token, {}, {
      entityId, paymentType: 'DB', paymentBrand: 'DIRECTDEBIT_SEPA', amount: '9.00', currency: 'EUR',
      'bankAccount.holder': 'Jane Jones', 'bankAccount.iban': 'DE23100000001234567890', 'bankAccount.bic': 'MARKDEF1100',
    });

    at(`${DAY}T22:30:00.000Z`);
    const run = await admin('POST', '/admin/v1/settlements/runs', { date: DAY });
    expect(run.status, JSON.stringify(run.body)).toBe(200);
    expect(run.body.settlementRun).toMatchObject({ date: DAY, cutoffAt: CUTOFF.toISOString(), until: CUTOFF.toISOString() });

    const batches = await batchesOf(DAY, entityId);
    // USD has no rate to EUR: it settles in its own currency, apart.
    expect(batches.map((batch) => [batch.clearingInstitute, batch.settlementCurrency, batch.transactionCount, batch.test])).toEqual([
      ['simulator', 'EUR', 10, true],
      ['simulator', 'USD', 1, true],
    ]);
    const [eur, usd] = batches as [SettlementBatch, SettlementBatch];
    const records = await recordsOf(eur);
    const byOperation = (id: string) => records.find((record) => (record.chargebackId ?? record.paymentId) === id) as SettlementRecord;
    const settled = (id: string) => {
      const record = byOperation(id);
      return [record.recordType, record.transactionType, record.cashflow, record.amountMinor, record.currency, record.settlementAmountMinor, record.settlementCurrency, record.fxRate, record.settlementFeeMinor];
    };
    expect(settled(debit)).toEqual(['SETTLED', 'DEBIT', 'POS', 10000, 'EUR', 10000, 'EUR', '1', 160]);
    expect(settled(capture)).toEqual(['SETTLED', 'DEBIT', 'POS', 5000, 'EUR', 5000, 'EUR', '1', 85]);
    expect(settled(pounds)).toEqual(['SETTLED', 'DEBIT', 'POS', 1005, 'GBP', 1508, 'EUR', '1.5', 33]);
    expect(settled(morePounds)).toEqual(['SETTLED', 'DEBIT', 'POS', 1015, 'GBP', 1522, 'EUR', '1.5', 33]);
    expect(settled(credit)).toEqual(['SETTLED', 'CREDIT', 'NEG', 2000, 'EUR', 2000, 'EUR', '1', 40]);
    expect(settled(refund)).toEqual(['SETTLED', 'REFUND', 'NEG', 3000, 'EUR', 3000, 'EUR', '1', 55]);
    expect(settled(chargeback)).toEqual(['CHARGEBACK', 'DEBIT', 'NEG', 1500, 'EUR', 1500, 'EUR', '1', 32]);
    expect(settled(reversal)).toEqual(['CHARGEBACK REVERSAL', 'DEBIT', 'POS', 1500, 'EUR', 1500, 'EUR', '1', 32]);
    expect(settled(sepa)).toEqual(['SETTLED', 'DEBIT', 'POS', 900, 'EUR', 900, 'EUR', '1', 24]);
    expect(byOperation(preauthorization)).toBeUndefined();

    // What reaches the merchant: positive records minus negative ones and every fee.
    const net = records.reduce((sum, record) => sum + (record.cashflow === 'POS' ? 1 : -1) * record.settlementAmountMinor - (record.settlementFeeMinor ?? 0), 0);
    expect(eur.settlementAmountMinor).toBe(net);
    // 7.00 × 1.5 % = 0.105: half to even, 0.10; plus 0.10.
    expect(usd).toMatchObject({ settlementAmountMinor: 700 - 20, transactionCount: 1 });
    expect((await recordsOf(usd)).map((record) => [record.paymentId, record.settlementCurrency, record.fxRate])).toEqual([[dollars, 'USD', '1']]);

    expect(byOperation(debit)).toMatchObject({
      shortId: expect.stringMatching(/^\d{4}\.\d{4}\.\d{4}$/),
      merchantTransactionId: 'order-0001',
      merchantInvoiceId: 'invoice-0001',
      brand: 'VISA',
      accountLast4: '0000',
      accountHolder: 'Jane Jones',
      clearingMerchantId: `SIMULATOR-${entityId.slice(0, 12).toUpperCase()}`,
      settlementDate: DAY,
      settlementStatus: 'SUCCESS',
      matchingStatus: 'MATCHED',
      matchedPaymentIds: [debit],
      connectorTxIds: [expect.stringMatching(/^SIMULATOR-/), null, null],
    });
    // A refund names its order by the original's reference; a capture without one by the gateway's id of the order.
    expect(byOperation(refund)).toMatchObject({ merchantTransactionId: 'order-0001', matchedPaymentIds: [refund] });
    expect(byOperation(capture)).toMatchObject({ merchantTransactionId: preauthorization, accountLast4: '0000' });
    expect(byOperation(chargeback)).toMatchObject({
      paymentId: disputed, reasonCode: '000.100.210', reasonDesc: 'Fraudulent Transaction', matchingStatus: 'MATCHED', matchedPaymentIds: [disputed], merchantTransactionId: 'order-0002',
    });
    expect(byOperation(reversal)).toMatchObject({ paymentId: disputed, chargebackId: reversal, cashflow: 'POS', reasonCode: '000.100.110' });
    // A bank account: its last four characters and its BIC, never the IBAN.
    expect(byOperation(sepa)).toMatchObject({ brand: 'DIRECTDEBIT_SEPA', accountLast4: '7890', bankCode: 'MARKDEF1100', accountHolder: 'Jane Jones' });
    expect(JSON.stringify(records)).not.toMatch(/DE23100000001234567890|4200000000000000/);
    // In the order of the transactions' times (SettlementTxDate); a chargeback dates from the transaction it charges.
    const times = records.map((record) => record.presentmentAt?.getTime() ?? 0);
    expect(times).toEqual([...times].sort((a, b) => a - b));

    expect(await admin('GET', `/admin/v1/settlements?date=${DAY}&entityId=${entityId}`)).toMatchObject({
      status: 200,
      body: { settlements: [{ id: eur.id, entityId, clearingInstitute: 'simulator', date: DAY, currency: 'EUR', transactionCount: 10, test: true }, { id: usd.id, currency: 'USD', settlementAmount: '6.80' }] },
    });
  });

  it('takes what was made up to the cut-off, the rest the next day, each operation once however often and wherever the day runs', async () => {
    const { entityId, token } = await t.newMerchant();
    at('2026-11-27T09:00:00.000Z');
    const early = await pay(entityId, token, { amount: '1.00' });
    // pay() moves the clock a second on: this one is made at 22:00:00.000, the next at 22:00:00.001.
    at('2026-11-27T21:59:59.000Z');
    const atCutoff = await pay(entityId, token, { amount: '2.00' });
    clock.advance(1 - 1_000);
    const afterCutoff = await pay(entityId, token, { amount: '3.00' });

    at('2026-11-27T23:00:00.000Z');
    // Two runs of the day at once (two instances, an operator and the job): one batch, each operation in it once.
    const runs = await Promise.all([admin('POST', '/admin/v1/settlements/runs', { date: '2026-11-27' }), admin('POST', '/admin/v1/settlements/runs', { date: '2026-11-27' })]);
    expect(runs.map((run) => run.status)).toEqual([200, 200]);
    const [first] = await batchesOf('2026-11-27', entityId);
    expect((await recordsOf(first as SettlementBatch)).map((record) => record.paymentId)).toEqual([early, atCutoff]);

    // An operation whose transaction committed after the day's run had read (its time is before the cut-off).
    clock.advance(-2 * HOUR_MS);
    const late = await pay(entityId, token, { amount: '4.00' });
    at('2026-11-27T23:30:00.000Z');
    expect((await admin('POST', '/admin/v1/settlements/runs', { date: '2026-11-27' })).body.settlementRun.settlements).toEqual([]);
    expect(await batchesOf('2026-11-27', entityId)).toHaveLength(1);

    at('2026-11-28T23:00:00.000Z');
    await admin('POST', '/admin/v1/settlements/runs', { date: '2026-11-28' });
    const [next] = await batchesOf('2026-11-28', entityId);
    expect((await recordsOf(next as SettlementBatch)).map((record) => record.paymentId).sort()).toEqual([afterCutoff, late].sort());
  });

  it('runs each past day once by itself, after its cut-off, even when an operator ran it early', async () => {
    const { entityId, token } = await t.newMerchant();
    at('2026-11-30T12:00:00.000Z');
    await t.gateway.jobs.runDueJobs();
    const paid = await pay(entityId, token, { amount: '5.00' });
    // The operator runs today before its cut-off: what was made up to now.
    const early = await admin('POST', '/admin/v1/settlements/runs', { date: '2026-11-30' });
    expect(early.body.settlementRun.until).toBe(clock.now().toISOString());
    const later = await pay(entityId, token, { amount: '6.00', currency: 'USD' });
    // Before the cut-off, the job settles nothing of the day.
    clock.advance(SETTLEMENT_CHECK_EVERY_MS);
    await t.gateway.jobs.runDueJobs();
    const settledOf = async () =>
      Promise.all((await batchesOf('2026-11-30', entityId)).map(async (batch) => [batch.settlementCurrency, (await recordsOf(batch)).map((record) => record.paymentId)]));
    expect(await settledOf()).toEqual([['EUR', [paid]]]);
    at('2026-11-30T22:20:00.000Z');
    await t.gateway.jobs.runDueJobs();
    expect(await settledOf()).toEqual([['EUR', [paid]], ['USD', [later]]]);
    const runs = await t.gateway.store.query("SELECT first_run_at, last_run_at FROM settlement_runs WHERE settlement_date = '2026-11-30'");
    expect(runs.rows).toHaveLength(1);
    clock.advance(SETTLEMENT_CHECK_EVERY_MS);
    await t.gateway.jobs.runDueJobs();
    // Not run again: the day's run is recorded.
    expect((await t.gateway.store.query("SELECT first_run_at, last_run_at FROM settlement_runs WHERE settlement_date = '2026-11-30'")).rows).toEqual(runs.rows);
  });

  it('matches records against the payments, with the unmatched and duplicate records the simulator is told to add', async () => {
    const { entityId, token } = await t.newMerchant();
    expect((await admin('PUT', `/admin/v1/entities/${entityId}/settlement`, { unmatchedRecords: 1, duplicateRecords: 2 })).body.settlement).toEqual({
      entityId, currency: null, unmatchedRecords: 1, duplicateRecords: 2,
    });
    at('2026-12-01T08:00:00.000Z');
    // The same order paid twice: a record naming it by reference fits both.
    const first = await pay(entityId, token, { amount: '12.00', merchantTransactionId: 'order-twice' });
    const second = await pay(entityId, token, { amount: '12.00', merchantTransactionId: 'order-twice' });
    const unique = await pay(entityId, token, { amount: '13.00', merchantTransactionId: 'order-once' });
    at('2026-12-01T22:05:00.000Z');
    await admin('POST', '/admin/v1/settlements/runs', { date: '2026-12-01' });
    const [batch] = await batchesOf('2026-12-01', entityId);
    const records = await recordsOf(batch as SettlementBatch);
    expect(records.map((record) => [record.paymentId, record.merchantTransactionId, record.matchingStatus, record.matchedPaymentIds])).toEqual([
      [first, 'order-twice', 'MATCHED', [first]],
      [null, 'order-twice', 'MULTIPLE_MATCHES', [first, second]],
      [second, 'order-twice', 'MATCHED', [second]],
      [null, 'order-twice', 'MULTIPLE_MATCHES', [first, second]],
      [unique, 'order-once', 'MATCHED', [unique]],
      [null, expect.stringMatching(/^unmatched-/), 'NOT_MATCHED', []],
    ]);
    expect(batch?.transactionCount).toBe(6);

    expect((await admin('DELETE', `/admin/v1/entities/${entityId}/settlement`)).body.settlement).toEqual({ entityId, currency: null, unmatchedRecords: 0, duplicateRecords: 0 });
  });

  it('refuses what it cannot do, with the reason', async () => {
    const future = await admin('POST', '/admin/v1/settlements/runs', { date: '2099-01-01' });
    expect(future).toMatchObject({ status: 400, body: { result: { code: '200.300.404', parameterErrors: [{ name: 'date', value: '2099-01-01' }] } } });
    expect((await admin('POST', '/admin/v1/settlements/runs', { date: '2026-02-30' })).status).toBe(400);
    expect((await admin('GET', '/admin/v1/settlements?date=26-11-2026')).body.result.parameterErrors).toEqual([{ name: 'date', value: '26-11-2026', message: 'must be a date yyyy-MM-dd' }]);
    const { entityId } = await t.newMerchant();
    const refused = await admin('PUT', `/admin/v1/entities/${entityId}/settlement`, { currency: 'euro', unmatchedRecords: 1000 });
    expect(refused.body.result.parameterErrors.map((error: { name: string }) => error.name)).toEqual(['currency', 'unmatchedRecords']);
    expect((await admin('GET', `/admin/v1/entities/${'0'.repeat(32)}/settlement`)).status).toBe(404);
    expect((await admin('PUT', `/admin/v1/entities/${'0'.repeat(32)}/settlement`, {})).status).toBe(404);
    const unauthorized = await t.gateway.app.request('/admin/v1/settlements/runs', { method: 'POST', body: '{"date":"2026-11-26"}' });
    expect(unauthorized.status).toBe(401);
  });
});
