import { parseAmount } from '../../domain/money.ts';
import type { ProviderSettlementRecord } from '../types.ts';
import { isJsonObject } from '../../domain/json.ts';

/**
 * A provider's settlement reports (COMPAT §14) read: the summary of a day's aggregations
 * (`/reports/v1/reconciliations/aggregations`) and an aggregation's records a page at a time
 * (`/reports/v2/reconciliations/aggregations/{id}`), the records by their API field names (spec doc 3 §2.17). Pure:
 * the connector fetches, this reads; anything that is not the API's shape is refused whole (undefined), never guessed.
 */

export interface ReportedAggregation {
  readonly id: string;
  readonly clearingInstitute: string;
  readonly currency: string;
}

const text = (value: unknown): string | null => (typeof value === 'string' && value !== '' ? value : null);
const amountOf = (value: unknown): number | undefined => (typeof value === 'string' ? parseAmount(value) : undefined);

function parsed(body: string): Record<string, unknown> | undefined {
  try {
    const json: unknown = JSON.parse(body);
    return isJsonObject(json) ? json : undefined;
  } catch {
    return undefined;
  }
}

/** The summary's aggregations; undefined when the answer is not the API's. */
export function readAggregations(body: string): ReportedAggregation[] | undefined {
  const json = parsed(body);
  if (!json || !Array.isArray(json.aggregations)) return undefined;
  const aggregations: ReportedAggregation[] = [];
  for (const entry of json.aggregations) {
    if (!isJsonObject(entry) || typeof entry.id !== 'string' || typeof entry.currency !== 'string') return undefined;
    aggregations.push({ id: entry.id, clearingInstitute: text(entry.clearingInstituteName) ?? '', currency: entry.currency });
  }
  return aggregations;
}

function recordOf(entry: unknown): ProviderSettlementRecord | undefined {
  if (!isJsonObject(entry) || !isJsonObject(entry.settlement)) return undefined;
  const settlement = entry.settlement;
  const institute = isJsonObject(entry.clearingInstitute) ? entry.clearingInstitute : {};
  const account = isJsonObject(entry.card) ? entry.card : isJsonObject(entry.bankAccount) ? entry.bankAccount : {};
  const result = isJsonObject(entry.result) ? entry.result : {};
  const amountMinor = amountOf(entry.amount);
  const settlementAmountMinor = amountOf(settlement.amount);
  const cashflow = settlement.cashflow;
  const status = settlement.status;
  if (
    typeof entry.recordType !== 'string' ||
    typeof entry.transactionType !== 'string' ||
    (cashflow !== 'POS' && cashflow !== 'NEG') ||
    (status !== 'SUCCESS' && status !== 'FAILED') ||
    amountMinor === undefined ||
    settlementAmountMinor === undefined ||
    typeof entry.currency !== 'string' ||
    typeof settlement.currency !== 'string' ||
    typeof settlement.date !== 'string'
  ) {
    return undefined;
  }
  const fee = settlement.fee === undefined ? null : amountOf(settlement.fee);
  const presentment = text(entry.presentmentDate);
  const presentmentAt = presentment === null ? null : new Date(presentment.replace(' ', 'T').replace(/([+-]\d{2})(\d{2})$/, '$1:$2'));
  return {
    recordType: entry.recordType,
    transactionType: entry.transactionType,
    cashflow,
    clearingMerchantId: text(institute.merchantId) ?? '',
    settlementTxId: text(settlement.id),
    providerPaymentId: isJsonObject(entry.payment) ? text(entry.payment.id) : null,
    merchantTransactionId: text(entry.merchantTransactionId),
    connectorTxIds: [text(institute.txId1), text(institute.txId2), text(institute.txId3)],
    merchantInvoiceId: text(entry.merchantInvoiceId),
    amountMinor,
    currency: entry.currency,
    brand: text(entry.paymentBrand),
    presentmentAt: presentmentAt && !Number.isNaN(presentmentAt.getTime()) ? presentmentAt : null,
    settlementAmountMinor,
    settlementCurrency: settlement.currency,
    settlementFeeMinor: fee ?? null,
    fxRate: typeof settlement.fxRate === 'string' || typeof settlement.fxRate === 'number' ? String(settlement.fxRate) : '1',
    settlementDate: settlement.date,
    settlementStatus: status,
    descriptor: text(entry.descriptor),
    accountLast4: text(account.last4Digits),
    bankCode: text(account.bankCode),
    accountHolder: text(account.holder),
    reasonCode: text(result.code),
    reasonDesc: text(result.description),
    settlementFormat: text(settlement.format) ?? 'PROVIDER',
    providerChargebackId: isJsonObject(entry.chargebackTransaction) ? text(entry.chargebackTransaction.id) : null,
  };
}

/** A page of an aggregation's records and the number of pages; undefined when the answer is not the API's. */
export function readRecordPage(body: string): { readonly records: ProviderSettlementRecord[]; readonly pages: number } | undefined {
  const json = parsed(body);
  if (!json || !Array.isArray(json.records)) return undefined;
  const records: ProviderSettlementRecord[] = [];
  for (const entry of json.records) {
    const record = recordOf(entry);
    if (!record) return undefined;
    records.push(record);
  }
  const pages = typeof json.pages === 'number' && Number.isInteger(json.pages) && json.pages >= 0 ? json.pages : 1;
  return { records, pages };
}
