import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { findPayment } from '../payments/store/payments.ts';
import { cardPayment, startTestGateway, type TestGateway } from '../testing/harness.ts';
import { chargebackRecordOf } from './chargebacks.ts';

/**
 * Chargebacks are ready for reconciliation (COMPAT §15): from the stored CB and CR, and the transaction they charge
 * back, the CHARGEBACK and CHARGEBACK REVERSAL records with ReasonCode/ReasonDesc and ChargebackId (spec doc 3 §2.17).
 */
describe('reconciliation records of chargebacks', () => {
  let t: TestGateway;
  beforeAll(async () => {
    t = await startTestGateway('PGlite');
  });
  afterAll(async () => {
    await t?.close();
  });

  const operate = (id: string, params: Record<string, string>) => t.post(`/v1/payments/${id}`, { entityId: t.entityId, currency: 'EUR', ...params });
  const stored = async (id: string) => {
    const payment = await findPayment(t.gateway.store, t.entityId, id);
    if (!payment) throw new Error(`payment ${id} not stored`);
    return payment;
  };

  it('makes a CHARGEBACK record of a card debit’s CB and a CHARGEBACK REVERSAL of its CR, matched to the debit', async () => {
    const debit = await t.post('/v1/payments', cardPayment(t.entityId, { amount: '40.00', merchantTransactionId: 'order-4711-x' }));
    const chargeback = await operate(debit.body.id, { paymentType: 'CB', amount: '15.00', chargebackResultCode: '000.100.210' });
    const reversal = await operate(chargeback.body.id, { paymentType: 'CR', amount: '15.00' });
    const original = await stored(debit.body.id);

    const record = chargebackRecordOf(await stored(chargeback.body.id), original);
    expect(record).toMatchObject({
      recordType: 'CHARGEBACK',
      transactionType: 'DEBIT',
      settlement: { cashflow: 'NEG', amount: '15.00', currency: 'EUR', status: 'SUCCESS' },
      merchantEntityId: t.entityId,
      payment: { id: debit.body.id },
      merchantTransactionId: 'order-4711-x',
      paymentBrand: 'VISA',
      accountNumberLast4: '0000',
      accountHolder: 'Jane Jones',
      result: { code: '000.100.210', description: 'Fraudulent Transaction' },
      matchedTransactions: { status: 'MATCHED', payment: [{ id: debit.body.id }] },
      chargebackTransaction: { id: chargeback.body.id },
      clearingInstitute: { name: 'simulator' },
    });
    expect(record.clearingInstitute.txId1).toMatch(/^SIMULATOR-/);

    const reversed = chargebackRecordOf(await stored(reversal.body.id), original);
    expect(reversed).toMatchObject({ recordType: 'CHARGEBACK REVERSAL', settlement: { cashflow: 'POS', amount: '15.00' }, result: { code: '000.100.110' }, chargebackTransaction: { id: reversal.body.id }, payment: { id: debit.body.id } });
    expect(() => chargebackRecordOf(original, original)).toThrow(/not a chargeback/);
  });

  it('names a SEPA return’s account by the last four characters of its IBAN and its holder', async () => {
    const debit = await t.post('/v1/payments', { entityId: t.entityId, amount: '9.00', currency: 'EUR', paymentType: 'DB', paymentBrand: 'DIRECTDEBIT_SEPA', 'bankAccount.holder': 'Jane Jones', 'bankAccount.iban': 'DE23100000001234567890' });
    const returned = await operate(debit.body.id, { paymentType: 'CB', amount: '9.00', chargebackResultCode: '000.100.201' });
    const record = chargebackRecordOf(await stored(returned.body.id), await stored(debit.body.id));
    expect(record).toMatchObject({ accountNumberLast4: '7890', accountHolder: 'Jane Jones', paymentBrand: 'DIRECTDEBIT_SEPA', result: { code: '000.100.201', description: 'Account or Bank Details Incorrect' } });
  });

  it('names the account of a returned capture of a direct-debit preauthorization by the preauthorization', async () => {
    const preauthorization = await t.post('/v1/payments', { entityId: t.entityId, amount: '9.00', currency: 'EUR', paymentType: 'PA', paymentBrand: 'DIRECTDEBIT_SEPA', 'bankAccount.holder': 'Jane Jones', 'bankAccount.iban': 'DE23100000001234567890' });
    const capture = await operate(preauthorization.body.id, { paymentType: 'CP', amount: '9.00' });
    const returned = await operate(capture.body.id, { paymentType: 'CB', amount: '9.00', chargebackResultCode: '000.100.204' });
    expect(returned.status).toBe(200);
    const charged = await stored(capture.body.id);
    const record = chargebackRecordOf(await stored(returned.body.id), charged, await stored(preauthorization.body.id));
    expect(record).toMatchObject({ payment: { id: capture.body.id }, accountNumberLast4: '7890', accountHolder: 'Jane Jones', result: { code: '000.100.204' } });
  });
});
