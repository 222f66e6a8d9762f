import { GatewayError, invalidParameters } from '../domain/errors.ts';
import { isCalendarDate } from '../domain/instruments.ts';
import { RESULTS } from '../domain/resultCodes.ts';
import type { GatewayEnvironment } from '../config.ts';
import type { ParameterError } from '../domain/errors.ts';
import { resolveTestMode } from '../params/testMode.ts';
import type { Queryable } from '../store/index.ts';
import { findSettlementBatch, findSettlementBatches, type RecordType, type SettlementBatch } from './settlementRecords.ts';

/**
 * The settlement reports' use-cases (COMPAT §14, spec doc 3 §2.10): the parameters of the summary and the detail
 * reports, checked once (every problem at once, 400 200.300.404 with parameterErrors), and the batches they read. The
 * reports show the batches of the gateway's mode: in the test environment the simulated acquirers' settlements of
 * the entity's test payments (written by the daily run), in live those of live payments; testMode is checked as on
 * payments (INTERNAL or EXTERNAL in test, refused in live with 600.200.701).
 */

/** The longest span a summary report covers (date.from to date.to, both included). */
export const MAX_REPORT_DAYS = 31;
/** Records per page of the paged detail report (v2). */
export const RECORDS_PER_PAGE = 100;

export const RECORD_TYPES: readonly RecordType[] = ['SETTLED', 'FEE', 'CHARGEBACK', 'CHARGEBACK REVERSAL'];
const SORT_VALUE = 'SettlementTxDate';
const SORT_ORDERS = ['ASC', 'DESC', 'asc', 'desc'];
/** `yyyy-MM-dd`, optionally with a time (`yyyy-MM-dd HH:mm:ss`, as the query API's dates): the day is what counts. */
const REPORT_DATE = /^(\d{4}-\d{2}-\d{2})(?: \d{2}:\d{2}:\d{2})?$/;

type Params = ReadonlyMap<string, string>;

export interface SummaryQuery {
  readonly from: string;
  readonly to: string;
  readonly currency: string | undefined;
}

export interface DetailQuery {
  readonly descending: boolean;
  readonly recordType: RecordType | undefined;
  readonly pageNo: number;
}

function reportDate(params: Params, name: string, problems: ParameterError[]): string | undefined {
  const value = params.get(name);
  if (value === undefined) {
    problems.push({ name, value: '', message: 'is required (yyyy-MM-dd)' });
    return undefined;
  }
  const day = REPORT_DATE.exec(value)?.[1];
  if (day === undefined || !isCalendarDate(day)) {
    problems.push({ name, value, message: 'must be a date yyyy-MM-dd' });
    return undefined;
  }
  return day;
}

const DAY_MS = 86_400_000;

/** The summary report's parameters (testMode checked too). */
export function summaryQueryOf(params: Params, environment: GatewayEnvironment): SummaryQuery {
  resolveTestMode(params, environment);
  const problems: ParameterError[] = [];
  const from = reportDate(params, 'date.from', problems);
  const to = reportDate(params, 'date.to', problems);
  if (from !== undefined && to !== undefined) {
    const days = (Date.parse(to) - Date.parse(from)) / DAY_MS + 1;
    if (days < 1) problems.push({ name: 'date.to', value: params.get('date.to') ?? '', message: 'must not be before date.from' });
    else if (days > MAX_REPORT_DAYS) problems.push({ name: 'date.to', value: params.get('date.to') ?? '', message: `must be at most ${MAX_REPORT_DAYS} days after date.from (both included)` });
  }
  const currency = params.get('currency');
  if (currency !== undefined && !/^[A-Z]{3}$/.test(currency)) problems.push({ name: 'currency', value: currency, message: 'must be a currency code of three capital letters' });
  if (problems.length > 0 || from === undefined || to === undefined) throw invalidParameters(problems);
  return { from, to, currency };
}

/** The detail report's parameters: sorting (both versions), and the record type and page (v2). */
export function detailQueryOf(params: Params, environment: GatewayEnvironment, paged: boolean): DetailQuery {
  resolveTestMode(params, environment);
  const problems: ParameterError[] = [];
  const sortValue = params.get('sortValue');
  if (sortValue !== undefined && sortValue !== SORT_VALUE) problems.push({ name: 'sortValue', value: sortValue, message: `must be ${SORT_VALUE}` });
  const sortOrder = params.get('sortOrder');
  if (sortOrder !== undefined && !SORT_ORDERS.includes(sortOrder)) problems.push({ name: 'sortOrder', value: sortOrder, message: `must be one of ${SORT_ORDERS.join(', ')}` });
  let recordType: RecordType | undefined;
  let pageNo = 1;
  if (paged) {
    const type = params.get('reconciliationType');
    recordType = RECORD_TYPES.find((known) => known === type);
    if (type !== undefined && recordType === undefined) problems.push({ name: 'reconciliationType', value: type, message: `must be one of ${RECORD_TYPES.join(', ')}` });
    const page = params.get('pageNo');
    if (page !== undefined) {
      if (/^[1-9][0-9]{0,8}$/.test(page)) pageNo = Number(page);
      else problems.push({ name: 'pageNo', value: page, message: 'must be a page number from 1' });
    }
  }
  if (problems.length > 0) throw invalidParameters(problems);
  return { descending: sortOrder?.toUpperCase() === 'DESC', recordType, pageNo };
}

/** The entity's batches of the summary's days, in the gateway's mode. */
export function findAggregations(db: Queryable, entityId: string, query: SummaryQuery, environment: GatewayEnvironment): Promise<SettlementBatch[]> {
  return findSettlementBatches(db, entityId, { from: query.from, to: query.to, ...(query.currency ? { currency: query.currency } : {}), test: environment === 'test' });
}

/** 400 700.400.580, as an unknown transaction (COMPAT §14): another entity's aggregation is as unknown as none. */
export const unknownAggregation = (): GatewayError => new GatewayError(RESULTS.transactionNotFound, 400);

/** The entity's batch `id` of the gateway's mode, or the unknown-aggregation answer. */
export async function findAggregation(db: Queryable, entityId: string, id: string, environment: GatewayEnvironment): Promise<SettlementBatch> {
  const batch = await findSettlementBatch(db, entityId, id);
  if (!batch || batch.test !== (environment === 'test')) throw unknownAggregation();
  return batch;
}
