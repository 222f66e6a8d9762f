import { isCardBrand } from '../../widget/shared/cardBrandCodes.ts';
import { isWalletBrand } from '../domain/instruments.ts';
import { formatAmount } from '../domain/money.ts';
import { formatTimestamp } from '../domain/timestamps.ts';
import { formatSignedAmount } from './settlementMoney.ts';
import type { SettlementBatch, SettlementRecord } from './settlementRecords.ts';

/**
 * Settlements as the reports API shows them (COMPAT §14, spec doc 3 §2.17 "API field"): an aggregation (a batch), and
 * a record by its API field names, nested. What the records do not store comes from their context, as in the
 * reconciliation file (reconciliation/format.ts), so the two agree: the merchant account is the entity (its id is the
 * merchantAccountId notifications carry, its name the entity's, at most 32 characters), the PSP is the gateway itself
 * (PSP_ENTITY_ID), there is no division, the clearing institute's name is the batch's acquirer, and a record without a
 * presentment time shows when its batch was read. Empty fields are left out.
 */

export interface RecordContext {
  readonly entityName: string;
  /** The gateway's own id (PSP_ENTITY_ID). */
  readonly pspEntityId: string;
}

export function aggregationView(batch: SettlementBatch): Record<string, unknown> {
  return {
    id: batch.id,
    date: batch.settlementDate,
    currency: batch.settlementCurrency,
    clearingInstituteName: batch.clearingInstitute,
    merchantAccountId: batch.entityId,
    settlementAmount: formatSignedAmount(batch.settlementAmountMinor),
    transactionCount: batch.transactionCount,
  };
}

const present = <T extends Record<string, unknown>>(fields: T): Partial<T> =>
  Object.fromEntries(Object.entries(fields).filter(([, value]) => value !== null && value !== undefined)) as Partial<T>;

/** The account a record names: under `card` for a card (or wallet) brand, else under `bankAccount`. */
function accountView(record: SettlementRecord): Record<string, unknown> {
  if (record.accountLast4 === null && record.accountHolder === null && record.bankCode === null) return {};
  const card = record.brand !== null && (isCardBrand(record.brand) || isWalletBrand(record.brand)) && record.bankCode === null;
  return card
    ? { card: present({ last4Digits: record.accountLast4, holder: record.accountHolder }) }
    : { bankAccount: present({ last4Digits: record.accountLast4, bankCode: record.bankCode, holder: record.accountHolder }) };
}

/** One record of `batch` by its API field names (doc 3 §2.17). */
export function recordView(record: SettlementRecord, batch: SettlementBatch, context: RecordContext): Record<string, unknown> {
  const [txId1, txId2, txId3] = record.connectorTxIds;
  const chargeback = record.recordType === 'CHARGEBACK' || record.recordType === 'CHARGEBACK REVERSAL';
  return present({
    recordType: record.recordType,
    transactionType: record.transactionType,
    settlement: present({
      cashflow: record.cashflow,
      id: record.settlementTxId,
      amount: formatAmount(record.settlementAmountMinor),
      currency: record.settlementCurrency,
      fee: record.settlementFeeMinor === null ? null : formatAmount(record.settlementFeeMinor),
      fxRate: record.fxRate,
      date: record.settlementDate,
      status: record.settlementStatus,
      format: record.settlementFormat,
    }),
    clearingInstitute: present({ merchantId: record.clearingMerchantId, txId1, txId2, txId3, name: batch.clearingInstitute }),
    merchantAccount: { id: batch.entityId, name: context.entityName.slice(0, 32) },
    pspEntityId: context.pspEntityId,
    merchantEntityId: batch.entityId,
    payment: record.paymentId === null ? null : { id: record.paymentId },
    shortId: record.shortId,
    merchantTransactionId: record.merchantTransactionId,
    merchantInvoiceId: record.merchantInvoiceId,
    amount: formatAmount(record.amountMinor),
    currency: record.currency,
    paymentBrand: record.brand,
    presentmentDate: formatTimestamp(record.presentmentAt ?? batch.createdAt),
    descriptor: record.descriptor,
    ...accountView(record),
    result: chargeback && record.reasonCode !== null ? present({ code: record.reasonCode, description: record.reasonDesc }) : null,
    matchedTransactions: record.matchingStatus === null ? null : { status: record.matchingStatus, payment: record.matchedPaymentIds.map((id) => ({ id })) },
    chargebackTransaction: record.chargebackId === null ? null : { id: record.chargebackId },
  });
}
