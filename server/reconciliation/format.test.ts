import { describe, expect, it } from 'vitest';
import { csvRow } from '../domain/csv.ts';
import type { SettlementRecord } from '../reports/settlementRecords.ts';
import {
  formatMoney,
  formatTime,
  HEADER_LINE,
  RECONCILIATION_COLUMNS,
  reconciliationCsv,
  reconciliationFileName,
  recordFields,
  recordLine,
  type FileContext,
} from './format.ts';
import { readCsv } from '../testing/csvReader.ts';

/** The reconciliation file's format (spec doc 3 §2.17), pure: columns, order, every field, quoting, money, chunks. */

const ENTITY = '8ac7a4c79394bdc801939736f17e063d';
const PSP = 'ffeeddccbbaa99887766554433221100';
const BATCH = 'b'.repeat(32);

const context: FileContext = {
  entityId: ENTITY,
  entityName: 'Shop; the "best" one, and a very long name',
  pspId: PSP,
  batches: new Map([[BATCH, { clearingInstitute: 'simulator', createdAt: new Date('2026-11-26T23:00:05.000Z') }]]),
};

function record(overrides: Partial<SettlementRecord> = {}): SettlementRecord {
  return {
    id: 'r'.repeat(32),
    batchId: BATCH,
    position: 1,
    recordType: 'SETTLED',
    transactionType: 'DEBIT',
    cashflow: 'POS',
    clearingMerchantId: 'SIM-000123',
    settlementTxId: 'STX-1',
    paymentId: '0123456789abcdef0123456789abcdef',
    shortId: '1234.5678.9012',
    connectorTxIds: ['C1', 'C2', 'C3'],
    merchantTransactionId: 'order-0001',
    merchantInvoiceId: 'invoice-0001',
    amountMinor: 9200,
    currency: 'EUR',
    brand: 'VISA',
    presentmentAt: new Date('2026-11-25T10:04:05.678Z'),
    settlementAmountMinor: 8404,
    settlementCurrency: 'USD',
    settlementFeeMinor: 25,
    fxRate: '0.9134567',
    settlementDate: '2026-11-26',
    settlementStatus: 'SUCCESS',
    descriptor: '1234.5678.9012 Shop',
    accountLast4: '0000',
    bankCode: 'DEUTDEFF',
    accountHolder: 'Jane Jones',
    reasonCode: null,
    reasonDesc: null,
    settlementFormat: 'SIMULATOR',
    matchingStatus: 'MULTIPLE_MATCHES',
    matchedPaymentIds: ['0123456789abcdef0123456789abcdef', 'fedcba9876543210fedcba9876543210'],
    chargebackId: null,
    ...overrides,
  };
}

async function* iterate<T>(items: readonly T[]): AsyncGenerator<T> {
  yield* items;
}

async function fileOf(records: readonly SettlementRecord[]): Promise<{ text: string; chunks: string[]; records: number }> {
  const counted = { records: 0 };
  const chunks: string[] = [];
  for await (const chunk of reconciliationCsv(iterate(records), context, counted)) chunks.push(chunk);
  return { text: chunks.join(''), chunks, records: counted.records };
}

describe('the reconciliation file format', () => {
  it("has the spec's 36 columns in its order, its own spelling kept, as a header row", () => {
    expect(RECONCILIATION_COLUMNS).toHaveLength(36);
    expect(HEADER_LINE).toBe(
      'ReconciliationType;PaymentType;Cashflow;ClearingInstituteMerchantId;MerchantAccountId;MerchantAccountName;PspId;DivisionId;' +
        'MerchantId;SettlementTxId;UniqueID;ShortId;ConnectorTxId1;ConnectorTxId2;ConnectorTxId3;Amount;Currency;Brand;TxRequestTime;' +
        'SettlementAmount;SettlementCurrency;SettlementFee;SettlementFxRate;SettlementDate;SettlementStatus;Descriptor;AccountNumberLast4;' +
        'BankCode;AccountHolder;ReasonCode;ReasonDesc;SettlementFileFormat;ClearingInsitituteName;MatchingStatus;MatchedTransactions;ChargebackId\r\n',
    );
    expect(RECONCILIATION_COLUMNS).not.toContain('TransactionId');
    expect(RECONCILIATION_COLUMNS).not.toContain('InvoiceId');
  });

  it('writes every column of a record from its source', () => {
    const fields = Object.fromEntries(RECONCILIATION_COLUMNS.map((column, index) => [column, recordFields(record(), context)[index]]));
    expect(fields).toEqual({
      ReconciliationType: 'SETTLED',
      PaymentType: 'DEBIT',
      Cashflow: 'POS',
      ClearingInstituteMerchantId: 'SIM-000123',
      MerchantAccountId: ENTITY,
      MerchantAccountName: 'Shop; the "best" one, and a very',
      PspId: PSP,
      DivisionId: '',
      MerchantId: ENTITY,
      SettlementTxId: 'STX-1',
      UniqueID: '0123456789abcdef0123456789abcdef',
      ShortId: '1234.5678.9012',
      ConnectorTxId1: 'C1',
      ConnectorTxId2: 'C2',
      ConnectorTxId3: 'C3',
      Amount: '92.00',
      Currency: 'EUR',
      Brand: 'VISA',
      TxRequestTime: '2026-11-25 10:04:05',
      SettlementAmount: '84.04',
      SettlementCurrency: 'USD',
      SettlementFee: '0.25',
      SettlementFxRate: '0.9134567',
      SettlementDate: '2026-11-26',
      SettlementStatus: 'SUCCESS',
      Descriptor: '1234.5678.9012 Shop',
      AccountNumberLast4: '0000',
      BankCode: 'DEUTDEFF',
      AccountHolder: 'Jane Jones',
      ReasonCode: '',
      ReasonDesc: '',
      SettlementFileFormat: 'SIMULATOR',
      ClearingInsitituteName: 'simulator',
      MatchingStatus: 'MULTIPLE_MATCHES',
      MatchedTransactions: '0123456789abcdef0123456789abcdef,fedcba9876543210fedcba9876543210',
      ChargebackId: '',
    });
  });

  it("leaves out what a record lacks, and takes the batch's reading time for a record without a presentment date", () => {
    const chargeback = record({
      recordType: 'CHARGEBACK',
      transactionType: 'DEBIT',
      cashflow: 'NEG',
      settlementTxId: null,
      paymentId: null,
      shortId: null,
      connectorTxIds: [null, null, null],
      brand: null,
      presentmentAt: null,
      settlementFeeMinor: null,
      descriptor: null,
      accountLast4: null,
      bankCode: null,
      accountHolder: null,
      reasonCode: '4837',
      reasonDesc: 'No cardholder authorization',
      matchingStatus: 'NOT_MATCHED',
      matchedPaymentIds: [],
      chargebackId: 'c'.repeat(32),
    });
    const fields = recordFields(chargeback, context);
    const at = (column: (typeof RECONCILIATION_COLUMNS)[number]) => fields[RECONCILIATION_COLUMNS.indexOf(column)];
    expect(at('TxRequestTime')).toBe('2026-11-26 23:00:05');
    for (const column of ['SettlementTxId', 'UniqueID', 'ShortId', 'ConnectorTxId1', 'Brand', 'SettlementFee', 'Descriptor', 'AccountHolder', 'MatchedTransactions'] as const) {
      expect(at(column), column).toBe('');
    }
    expect([at('ReasonCode'), at('ReasonDesc'), at('MatchingStatus'), at('ChargebackId')]).toEqual(['4837', 'No cardholder authorization', 'NOT_MATCHED', 'c'.repeat(32)]);
    // A record of a batch the file was not told of has no institute to name (and no time to fall back on).
    const orphan = recordFields(record({ batchId: 'x'.repeat(32), presentmentAt: null }), context);
    expect([orphan[RECONCILIATION_COLUMNS.indexOf('ClearingInsitituteName')], orphan[RECONCILIATION_COLUMNS.indexOf('TxRequestTime')]]).toEqual(['', '']);
  });

  it('writes money with a dot and two decimals for every currency, as the API does', () => {
    expect([0, 5, 99, 100, 9200, 123_456_789_012, -150, -5].map(formatMoney)).toEqual(['0.00', '0.05', '0.99', '1.00', '92.00', '1234567890.12', '-1.50', '-0.05']);
    const yen = recordFields(record({ amountMinor: 150_000, currency: 'JPY', settlementAmountMinor: 150_000, settlementCurrency: 'JPY' }), context);
    expect(yen[RECONCILIATION_COLUMNS.indexOf('Amount')]).toBe('1500.00');
    expect(formatTime(new Date('2027-01-02T03:04:05.999Z'))).toBe('2027-01-02 03:04:05');
  });

  it('quotes exactly the fields with a separator, a quote or a line break, quotes doubled', () => {
    const csvField = (value: string) => csvRow([value], ';');
    expect(csvField('plain text, with commas')).toBe('plain text, with commas');
    expect(csvField('')).toBe('');
    expect(csvField('a;b')).toBe('"a;b"');
    expect(csvField('say "hi"')).toBe('"say ""hi"""');
    expect(csvField('line\nbreak')).toBe('"line\nbreak"');
    expect(csvField('carriage\rreturn')).toBe('"carriage\rreturn"');
    expect(csvField('both\r\nends;"')).toBe('"both\r\nends;"""');
    expect(csvField('Zoë Ångström 日本')).toBe('Zoë Ångström 日本');

    const tricky = record({ accountHolder: 'Jane "J" Jones; Sr.', descriptor: 'two\r\nlines', reasonDesc: 'a "quoted"\nreason;' });
    const line = recordLine(tricky, context);
    expect(line).toContain(';"Jane ""J"" Jones; Sr.";');
    expect(line.endsWith('\r\n')).toBe(true);
    const [parsed] = readCsv(line);
    expect(parsed).toHaveLength(36);
    expect(parsed).toEqual(recordFields(tricky, context));
  });

  it('writes a field a spreadsheet would run as a formula with a leading quote, and numbers as numbers (issue 34 §4)', () => {
    const formulas = record({ accountHolder: '=HYPERLINK("http://x","y")', descriptor: "+cmd|' /C calc'!A0", reasonDesc: '@SUM(A1)' });
    const [parsed] = readCsv(recordLine(formulas, context));
    const field = (name: (typeof RECONCILIATION_COLUMNS)[number]) => parsed?.[RECONCILIATION_COLUMNS.indexOf(name)];
    expect(field('AccountHolder')).toBe(`'=HYPERLINK("http://x","y")`);
    expect(field('Descriptor')).toBe(`'+cmd|' /C calc'!A0`);
    expect(field('ReasonDesc')).toBe(`'@SUM(A1)`);
    const negative = record({ amountMinor: -1250, settlementAmountMinor: -1250, settlementFeeMinor: -5 });
    const [numbers] = readCsv(recordLine(negative, context));
    expect([numbers?.[RECONCILIATION_COLUMNS.indexOf('Amount')], numbers?.[RECONCILIATION_COLUMNS.indexOf('SettlementAmount')], numbers?.[RECONCILIATION_COLUMNS.indexOf('SettlementFee')]]).toEqual(['-12.50', '-12.50', '-0.05']);
  });

  it('streams the header and a line per record, in order, in bounded chunks; an empty day is the header alone', async () => {
    const empty = await fileOf([]);
    expect(empty).toEqual({ text: HEADER_LINE, chunks: [HEADER_LINE], records: 0 });

    const many = Array.from({ length: 2_000 }, (_, index) => record({ position: index + 1, amountMinor: index + 1, accountHolder: index % 7 === 0 ? 'x;"y"\nz' : 'Jane' }));
    const written = await fileOf(many);
    expect(written.records).toBe(2_000);
    expect(written.chunks.length).toBeGreaterThan(5);
    for (const chunk of written.chunks) expect(chunk.length).toBeLessThan(70 * 1024);
    const rows = readCsv(written.text);
    expect(rows[0]).toEqual([...RECONCILIATION_COLUMNS]);
    expect(rows.slice(1).map((row) => row[RECONCILIATION_COLUMNS.indexOf('Amount')])).toEqual(many.map((entry) => formatMoney(entry.amountMinor)));
    expect(rows.slice(1).every((row) => row.length === 36)).toBe(true);
  });

  it('names the file <merchantEntityId>_<yyyyMMdd>.csv', () => {
    expect(reconciliationFileName(ENTITY, '2026-11-26')).toBe(`${ENTITY}_20261126.csv`);
  });
});
