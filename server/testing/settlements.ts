import type { NewSettlementRecord } from '../reports/settlementRecords.ts';

/** A settled VISA debit of 92.00 EUR as an acquirer lists it, matched to one payment; override any field. */
export function settlementRecord(overrides: Partial<NewSettlementRecord> = {}): NewSettlementRecord {
  return {
    recordType: 'SETTLED',
    transactionType: 'DEBIT',
    cashflow: 'POS',
    clearingMerchantId: 'SIM-000123',
    settlementTxId: 'S1',
    paymentId: '0123456789abcdef0123456789abcdef',
    shortId: '1234.5678.9012',
    connectorTxIds: ['A', null, null],
    merchantTransactionId: 'order-0001',
    merchantInvoiceId: null,
    amountMinor: 9200,
    currency: 'EUR',
    brand: 'VISA',
    presentmentAt: new Date('2026-11-25T10:00:00.000Z'),
    settlementAmountMinor: 9200,
    settlementCurrency: 'EUR',
    settlementFeeMinor: 25,
    fxRate: '1',
    settlementDate: '2026-11-26',
    settlementStatus: 'SUCCESS',
    descriptor: '1234.5678.9012',
    accountLast4: '0000',
    bankCode: null,
    accountHolder: 'Jane Jones',
    reasonCode: null,
    reasonDesc: null,
    settlementFormat: 'SIMULATOR',
    matchingStatus: 'MATCHED',
    matchedPaymentIds: ['0123456789abcdef0123456789abcdef'],
    chargebackId: null,
    ...overrides,
  };
}
