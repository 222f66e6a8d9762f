import { csvRow } from '../domain/csv.ts';
import type { SettlementRecord } from '../reports/settlementRecords.ts';

/**
 * The reconciliation file's format (COMPAT §14, spec doc 3 §2.17), pure: one line per settlement record, its 36
 * columns in the spec's order (TransactionId and InvoiceId are the API's only until the spec settles them), `;`
 * between fields, a header row of the column names, lines ended by CRLF (RFC 4180). A field is quoted when it holds a
 * `;`, a `"` (doubled inside) or a line break (CR or LF); no other field is. UTF-8 without a byte-order mark: a BOM
 * would become part of the first column's name for every importer that does not strip it.
 *
 * Values as the API shows them: amounts in its money format (a dot and exactly two decimals, for every currency, as
 * the merchant sent them: the gateway keeps amounts in hundredths whatever the currency, so a JPY amount reads
 * "1500.00" and no currency has a third decimal to lose), the FX rate as the acquirer quoted it ("1", "0.9134"),
 * dates yyyy-MM-dd, TxRequestTime `yyyy-MM-dd HH:mm:ss` in UTC (the simulated clearing institutes' time zone), empty
 * fields for what a record does not have. A field that a spreadsheet would run as a formula (it begins with `=`, `+`,
 * `-`, `@`, a tab or a CR: a card holder or a descriptor as a shopper or merchant typed it) is written with a leading
 * `'` (domain/csv.ts, OWASP's rule); numbers, negative ones too, are written as they are.
 */

export const RECONCILIATION_COLUMNS = [
  'ReconciliationType',
  'PaymentType',
  'Cashflow',
  'ClearingInstituteMerchantId',
  'MerchantAccountId',
  'MerchantAccountName',
  'PspId',
  'DivisionId',
  'MerchantId',
  'SettlementTxId',
  'UniqueID',
  'ShortId',
  'ConnectorTxId1',
  'ConnectorTxId2',
  'ConnectorTxId3',
  'Amount',
  'Currency',
  'Brand',
  'TxRequestTime',
  'SettlementAmount',
  'SettlementCurrency',
  'SettlementFee',
  'SettlementFxRate',
  'SettlementDate',
  'SettlementStatus',
  'Descriptor',
  'AccountNumberLast4',
  'BankCode',
  'AccountHolder',
  'ReasonCode',
  'ReasonDesc',
  'SettlementFileFormat',
  // The spec's own spelling: merchants' importers look the column up by this name.
  'ClearingInsitituteName',
  'MatchingStatus',
  'MatchedTransactions',
  'ChargebackId',
] as const;

export const LINE_END = '\r\n';

/** What a file shows beside its records: who it is for, and what the batches say that records do not. */
export interface FileContext {
  /** The merchant entity: MerchantId, and MerchantAccountId (the id notifications give as merchantAccountId). */
  readonly entityId: string;
  /** The entity's name: MerchantAccountName (at most 32 characters, as the spec allows). */
  readonly entityName: string;
  /** The gateway's own id: PspId. */
  readonly pspId: string;
  /** Per batch id: the clearing institute (ClearingInsitituteName) and when its records were read (TxRequestTime's fallback). */
  readonly batches: ReadonlyMap<string, { readonly clearingInstitute: string; readonly createdAt: Date }>;
}

/** `<merchantEntityId>_<yyyyMMdd>.csv` for the settlement day `date` (yyyy-MM-dd). */
export function reconciliationFileName(entityId: string, date: string): string {
  return `${entityId}_${date.replaceAll('-', '')}.csv`;
}

/** The file's separator between fields. */
export const SEPARATOR = ';';

/** Hundredths as the API's money: "92.00", "-0.05", "1500.00". */
export function formatMoney(minorUnits: number): string {
  const sign = minorUnits < 0 ? '-' : '';
  const units = Math.abs(minorUnits);
  return `${sign}${Math.floor(units / 100)}.${String(units % 100).padStart(2, '0')}`;
}

const pad = (value: number) => String(value).padStart(2, '0');

/** `yyyy-MM-dd HH:mm:ss`, UTC. */
export function formatTime(date: Date): string {
  return (
    `${date.getUTCFullYear()}-${pad(date.getUTCMonth() + 1)}-${pad(date.getUTCDate())} ` +
    `${pad(date.getUTCHours())}:${pad(date.getUTCMinutes())}:${pad(date.getUTCSeconds())}`
  );
}

export const HEADER_LINE = csvRow(RECONCILIATION_COLUMNS, SEPARATOR) + LINE_END;

/** The record's fields in RECONCILIATION_COLUMNS' order, as the record has them: neither quoted nor made spreadsheet-safe. */
export function recordFields(record: SettlementRecord, context: FileContext): string[] {
  const batch = context.batches.get(record.batchId);
  const text = (value: string | null) => value ?? '';
  const requestTime = record.presentmentAt ?? batch?.createdAt;
  return [
    record.recordType,
    record.transactionType,
    record.cashflow,
    record.clearingMerchantId,
    context.entityId,
    context.entityName.slice(0, 32),
    context.pspId,
    // The gateway has no divisions between itself and its merchants (the column is optional).
    '',
    context.entityId,
    text(record.settlementTxId),
    text(record.paymentId),
    text(record.shortId),
    text(record.connectorTxIds[0]),
    text(record.connectorTxIds[1]),
    text(record.connectorTxIds[2]),
    formatMoney(record.amountMinor),
    record.currency,
    text(record.brand),
    requestTime ? formatTime(requestTime) : '',
    formatMoney(record.settlementAmountMinor),
    record.settlementCurrency,
    record.settlementFeeMinor === null ? '' : formatMoney(record.settlementFeeMinor),
    record.fxRate,
    record.settlementDate,
    record.settlementStatus,
    text(record.descriptor),
    text(record.accountLast4),
    text(record.bankCode),
    text(record.accountHolder),
    text(record.reasonCode),
    text(record.reasonDesc),
    record.settlementFormat,
    batch?.clearingInstitute ?? '',
    text(record.matchingStatus),
    // Several matched payments in one field, comma-separated (the file's separator is the semicolon).
    record.matchedPaymentIds.join(','),
    text(record.chargebackId),
  ];
}

/** The record's line: its fields made spreadsheet-safe, quoted where RFC 4180 needs it, `;` between them, CRLF. */
export function recordLine(record: SettlementRecord, context: FileContext): string {
  return csvRow(recordFields(record, context), SEPARATOR) + LINE_END;
}

/** Characters of lines gathered before a chunk is handed on: few hand-overs, a bounded amount of memory. */
const CHUNK_CHARACTERS = 64 * 1024;

/**
 * The file as text chunks of about 64 KiB: the header, then a line per record in the order given. Reads `records`
 * as it goes, so memory stays flat whatever the day's size; `counted.records` says how many were written.
 */
export async function* reconciliationCsv(
  records: AsyncIterable<SettlementRecord>,
  context: FileContext,
  counted: { records: number } = { records: 0 },
): AsyncGenerator<string> {
  let chunk = HEADER_LINE;
  for await (const record of records) {
    chunk += recordLine(record, context);
    counted.records += 1;
    if (chunk.length >= CHUNK_CHARACTERS) {
      yield chunk;
      chunk = '';
    }
  }
  if (chunk !== '') yield chunk;
}
