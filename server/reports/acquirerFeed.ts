import { createHash, randomBytes } from 'node:crypto';
import type { PaymentRecord } from '../domain/payment.ts';
import { shortIdOf } from '../payments/view.ts';
import { chargebackRecordOf } from './chargebacks.ts';
import type { SettlementConfig } from '../settlementConfig.ts';
import { convertedAmount, feeOf, settlementRateOf } from './settlementMoney.ts';
import type { NewSettlementRecord } from './settlementRecords.ts';
import type { SettlementSettings } from './settlementSettings.ts';

/**
 * What a simulated acquirer reports it settled for a merchant entity on a day (issue 21, COMPAT §14, §15): one list
 * per acquirer, settlement currency and mode (test or live), its records in the order of the transactions' times.
 * Captures and debits are paid to the merchant (SETTLED, POS), credits and refunds taken back (SETTLED, NEG),
 * chargebacks taken back (CHARGEBACK, NEG) and their reversals paid again (CHARGEBACK REVERSAL, POS). Each record
 * carries the acquirer's fee (SETTLEMENT_FEE_PERCENT of its settlement amount plus SETTLEMENT_FEE_FIXED, as
 * settlement.fee: no FEE records) and its FX rate. Pure: the operations come in, resolved (reports/settlementRun.ts);
 * which of the gateway's payments each record is, matching decides afterwards (reports/matching.ts).
 *
 * For tests the entity's settings make the acquirer add records to each list: `unmatchedRecords` for transactions the
 * gateway never made, `duplicateRecords` debits listed a second time by the merchant's reference, amount and
 * currency only (no UniqueID, no acquirer reference), right after the original.
 */

/** A record as the acquirer lists it, before matching. */
export type AcquirerRecord = Omit<NewSettlementRecord, 'matchingStatus' | 'matchedPaymentIds'>;

export interface SettleableOperation {
  /** An approved DB, CP, CD, RF, CB or CR. */
  readonly operation: PaymentRecord;
  /** A CB's or CR's charged transaction (a DB, CP or CD); undefined for the others. */
  readonly charged: PaymentRecord | undefined;
  /** The first payment of the operation's chain (a DB, PA or CD): it named the account and the merchant's references. */
  readonly origin: PaymentRecord;
}

export interface FeedBatch {
  readonly acquirer: string;
  readonly settlementCurrency: string;
  readonly test: boolean;
  readonly records: readonly AcquirerRecord[];
  /** The gateway's operations this list settles. */
  readonly operationIds: readonly string[];
}

export interface FeedInput {
  readonly entityId: string;
  readonly operations: readonly SettleableOperation[];
  readonly settings: SettlementSettings;
  readonly config: SettlementConfig;
  /** yyyy-MM-dd */
  readonly date: string;
  /** The end of what the run takes: the cut-off, or now for a run of today before its cut-off. */
  readonly until: Date;
}

/** What the acquirer calls the format of its settlement file. */
export const SIMULATOR_SETTLEMENT_FORMAT = 'SIMULATOR';

const SETTLED_KINDS: Readonly<Record<string, { readonly transactionType: string; readonly cashflow: 'POS' | 'NEG' }>> = {
  DB: { transactionType: 'DEBIT', cashflow: 'POS' },
  CP: { transactionType: 'DEBIT', cashflow: 'POS' },
  CD: { transactionType: 'CREDIT', cashflow: 'NEG' },
  RF: { transactionType: 'REFUND', cashflow: 'NEG' },
};

/** The acquirer's prefix of its references, as the simulator's own (acquirers/simulator.ts). */
export function referencePrefixOf(acquirer: string): string {
  return acquirer.toUpperCase().replace(/[^A-Z0-9]/g, '').slice(0, 12) || 'SIMULATOR';
}

/** The merchant's id at the clearing institute (ClearingInstituteMerchantId, 5 to 64 characters). */
export function clearingMerchantIdOf(acquirer: string, entityId: string): string {
  return `${referencePrefixOf(acquirer)}-${entityId.slice(0, 12).toUpperCase()}`;
}

const settlementTxId = (acquirer: string, operationId: string) =>
  `${referencePrefixOf(acquirer)}-S${createHash('sha256').update(`${acquirer}:${operationId}`).digest('hex').slice(0, 20).toUpperCase()}`;
const randomReference = (acquirer: string, kind: string) => `${referencePrefixOf(acquirer)}-${kind}${randomBytes(10).toString('hex').toUpperCase()}`;

const textOf = (value: unknown, max: number): string | null => (typeof value === 'string' && value !== '' ? value.slice(0, max) : null);

/** The account the origin named: a card's last four digits and holder, or a bank account's (IBAN masked already) and its BIC. */
function accountOf(origin: PaymentRecord): { readonly last4: string | null; readonly holder: string | null; readonly bankCode: string | null } {
  if (origin.card) return { last4: origin.card.last4Digits, holder: textOf(origin.card.holder, 128), bankCode: null };
  const bankAccount = origin.requestEcho.bankAccount as { iban?: unknown; holder?: unknown; bic?: unknown } | undefined;
  const iban = textOf(bankAccount?.iban, 64);
  return { last4: iban ? iban.slice(-4) : null, holder: textOf(bankAccount?.holder, 128), bankCode: textOf(bankAccount?.bic, 12) };
}

/** The merchant's reference, or (TransactionId is required) the gateway's id of the order. */
const merchantReferenceOf = (entry: SettleableOperation) => entry.operation.merchantTransactionId ?? entry.origin.merchantTransactionId ?? entry.origin.id;
const hasMerchantReference = (entry: SettleableOperation) => (entry.operation.merchantTransactionId ?? entry.origin.merchantTransactionId) !== null;

function settledRecord(entry: SettleableOperation, input: FeedInput): AcquirerRecord {
  const { operation, origin, charged } = entry;
  const { currency, rate } = settlementRateOf(input.config, operation.currency, input.settings.settlementCurrency);
  const settlementAmountMinor = convertedAmount(operation.amountMinor, rate);
  const account = accountOf(origin);
  const common = {
    clearingMerchantId: clearingMerchantIdOf(operation.acquirer, input.entityId),
    settlementTxId: settlementTxId(operation.acquirer, operation.id),
    connectorTxIds: [operation.acquirerReference, null, null] as const,
    merchantTransactionId: merchantReferenceOf(entry),
    merchantInvoiceId: textOf(operation.requestEcho.merchantInvoiceId ?? origin.requestEcho.merchantInvoiceId, 255),
    amountMinor: operation.amountMinor,
    currency: operation.currency,
    settlementAmountMinor,
    settlementCurrency: currency,
    settlementFeeMinor: feeOf(settlementAmountMinor, input.config.feePercent, input.config.feeFixedMinor),
    fxRate: rate,
    settlementDate: input.date,
    settlementStatus: 'SUCCESS' as const,
    descriptor: textOf(origin.requestEcho.descriptor, 128) ?? shortIdOf(origin.id),
    accountLast4: account.last4,
    bankCode: account.bankCode,
    accountHolder: account.holder,
    settlementFormat: SIMULATOR_SETTLEMENT_FORMAT,
  };
  if (operation.paymentType === 'CB' || operation.paymentType === 'CR') {
    const chargeback = chargebackRecordOf(operation, charged ?? origin, origin);
    return {
      ...common,
      recordType: chargeback.recordType,
      transactionType: chargeback.transactionType,
      cashflow: chargeback.settlement.cashflow,
      paymentId: chargeback.payment.id,
      shortId: chargeback.shortId,
      brand: chargeback.paymentBrand ?? null,
      presentmentAt: new Date(chargeback.presentmentDate),
      reasonCode: chargeback.result.code,
      reasonDesc: chargeback.result.description.slice(0, 128),
      chargebackId: chargeback.chargebackTransaction.id,
    };
  }
  const kind = SETTLED_KINDS[operation.paymentType];
  if (!kind) throw new Error(`a ${operation.paymentType} is not settled`);
  return {
    ...common,
    recordType: 'SETTLED',
    transactionType: kind.transactionType,
    cashflow: kind.cashflow,
    paymentId: operation.id,
    shortId: shortIdOf(operation.id),
    brand: operation.paymentBrand ?? origin.paymentBrand,
    presentmentAt: operation.createdAt,
    reasonCode: null,
    reasonDesc: null,
    chargebackId: null,
  };
}

/** A debit the gateway never made, as an acquirer's file sometimes lists one (another channel's, a mistake). */
function unmatchedRecord(batch: { acquirer: string; currency: string }, index: number, input: FeedInput): AcquirerRecord {
  const amountMinor = (index + 1) * 1000;
  return {
    recordType: 'SETTLED',
    transactionType: 'DEBIT',
    cashflow: 'POS',
    clearingMerchantId: clearingMerchantIdOf(batch.acquirer, input.entityId),
    settlementTxId: randomReference(batch.acquirer, 'U'),
    paymentId: null,
    shortId: null,
    connectorTxIds: [randomReference(batch.acquirer, ''), null, null],
    merchantTransactionId: `unmatched-${randomBytes(6).toString('hex')}`,
    merchantInvoiceId: null,
    amountMinor,
    currency: batch.currency,
    brand: 'VISA',
    presentmentAt: input.until,
    settlementAmountMinor: amountMinor,
    settlementCurrency: batch.currency,
    settlementFeeMinor: feeOf(amountMinor, input.config.feePercent, input.config.feeFixedMinor),
    fxRate: '1',
    settlementDate: input.date,
    settlementStatus: 'SUCCESS',
    descriptor: null,
    accountLast4: null,
    bankCode: null,
    accountHolder: null,
    reasonCode: null,
    reasonDesc: null,
    settlementFormat: SIMULATOR_SETTLEMENT_FORMAT,
    chargebackId: null,
  };
}

/** The acquirer's lists for the entity's operations, one per acquirer, settlement currency and mode. */
export function simulatedSettlementFeed(input: FeedInput): FeedBatch[] {
  const groups = new Map<string, { acquirer: string; currency: string; test: boolean; entries: { entry: SettleableOperation; record: AcquirerRecord }[] }>();
  for (const entry of input.operations) {
    const record = settledRecord(entry, input);
    const test = entry.operation.testMode !== null;
    const key = `${entry.operation.acquirer}|${record.settlementCurrency}|${test}`;
    const group = groups.get(key) ?? { acquirer: entry.operation.acquirer, currency: record.settlementCurrency, test, entries: [] };
    group.entries.push({ entry, record });
    groups.set(key, group);
  }
  return [...groups.keys()].sort().map((key) => {
    const group = groups.get(key) as NonNullable<ReturnType<typeof groups.get>>;
    // In the order of the transactions' times (SettlementTxDate), the operations' own times (then ids) breaking ties.
    const entries = [...group.entries].sort(
      (a, b) =>
        (a.record.presentmentAt?.getTime() ?? 0) - (b.record.presentmentAt?.getTime() ?? 0) ||
        a.entry.operation.createdAt.getTime() - b.entry.operation.createdAt.getTime() ||
        (a.entry.operation.id < b.entry.operation.id ? -1 : 1),
    );
    let duplicatesLeft = input.settings.duplicateRecords;
    const records: AcquirerRecord[] = [];
    for (const { entry, record } of entries) {
      records.push(record);
      if (duplicatesLeft > 0 && record.recordType === 'SETTLED' && record.transactionType === 'DEBIT' && hasMerchantReference(entry)) {
        duplicatesLeft--;
        records.push({ ...record, paymentId: null, shortId: null, connectorTxIds: [null, null, null], settlementTxId: randomReference(group.acquirer, 'D') });
      }
    }
    for (let index = 0; index < input.settings.unmatchedRecords; index++) records.push(unmatchedRecord(group, index, input));
    return { acquirer: group.acquirer, settlementCurrency: group.currency, test: group.test, records, operationIds: entries.map(({ entry }) => entry.operation.id) };
  });
}
