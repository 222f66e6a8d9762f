import { invalidParameters } from '../domain/errors.ts';
import { isCalendarDate } from '../domain/instruments.ts';
import type { ParameterError } from '../domain/errors.ts';
import { validateParameters } from '../params/validate.ts';
import { isTrue } from '../params/values.ts';

/**
 * The edge of the query API (COMPAT §14, spec doc 3 §2.16, doc 1 §8): a query's parameters, checked by the catalogue
 * (formats, limit 100–500, the two forms exclusive) and here (real dates, the range's order and span, a form given),
 * turned into what the store is asked. Every problem is a 400 200.300.404 naming the parameter.
 */

type Params = ReadonlyMap<string, string>;

/** The longest date range one query may ask for: a month of 31 days, as a monthly reconciliation needs. */
export const MAX_RANGE_DAYS = 31;
const DAY_MS = 86_400_000;
/** doc 1 §8: 100 to 500, default 100. */
export const DEFAULT_LIMIT = 100;

export interface QueryPage {
  readonly limit: number;
  /** From 1. */
  readonly pageNo: number;
}

/** What a list query asks for: one of reference, range or short id (a range may come with a short id), and filters. */
export interface ListCriteria {
  readonly merchantTransactionId?: string;
  /** from inclusive, to exclusive (date.to names the last second, or the last day, it includes). */
  readonly range?: { readonly from: Date; readonly to: Date };
  readonly shortId?: string;
  /** paymentTypes as sent; undefined: every payment (and no schedule or registration records). */
  readonly paymentTypes?: readonly string[];
  readonly paymentMethods?: readonly string[];
}

export interface ListQuery {
  readonly criteria: ListCriteria;
  readonly page: QueryPage;
}

export interface ByIdQuery {
  readonly includeLinkedTransactions: boolean;
  readonly page: QueryPage;
}

function checked(params: Params): void {
  const errors = validateParameters(params, 'query');
  if (errors.length > 0) throw invalidParameters(errors);
}

function pageOf(params: Params): QueryPage {
  return { limit: Number(params.get('limit') ?? DEFAULT_LIMIT), pageNo: Number(params.get('pageNo') ?? 1) };
}

const listOf = (value: string | undefined): readonly string[] | undefined => (value === undefined ? undefined : [...new Set(value.split(','))]);

/**
 * A time the catalogue accepted (`yyyy-MM-dd` or `yyyy-MM-dd HH:mm:ss`, UTC) as the start of what it names, and the
 * moment after its end (the next second, or the next day for a date): undefined for a day that does not exist.
 */
function momentOf(value: string): { readonly start: Date; readonly end: Date } | undefined {
  const [day = '', time] = value.split(' ');
  if (!isCalendarDate(day)) return undefined;
  const start = new Date(`${day}T${time ?? '00:00:00'}Z`);
  return { start, end: new Date(start.getTime() + (time === undefined ? DAY_MS : 1000)) };
}

function rangeOf(params: Params): ListCriteria['range'] {
  const fromText = params.get('date.from');
  const toText = params.get('date.to');
  // The catalogue's pair rule has made sure both or neither are here.
  if (fromText === undefined || toText === undefined) return undefined;
  const from = momentOf(fromText);
  const to = momentOf(toText);
  const errors: ParameterError[] = [];
  if (!from) errors.push({ name: 'date.from', value: fromText, message: 'is not a day of the calendar' });
  if (!to) errors.push({ name: 'date.to', value: toText, message: 'is not a day of the calendar' });
  if (from && to && to.start.getTime() < from.start.getTime()) {
    errors.push({ name: 'date.to', value: toText, message: 'must not be before date.from' });
  } else if (from && to && to.end.getTime() - from.start.getTime() > MAX_RANGE_DAYS * DAY_MS) {
    errors.push({ name: 'date.to', value: toText, message: `must be at most ${MAX_RANGE_DAYS} days after date.from` });
  }
  if (errors.length > 0 || !from || !to) throw invalidParameters(errors);
  return { from: from.start, to: to.end };
}

/** GET /v1/query: the list form. */
export function listQueryOf(params: Params): ListQuery {
  checked(params);
  const range = rangeOf(params);
  const merchantTransactionId = params.get('merchantTransactionId');
  const shortId = params.get('shortId');
  if (!range && merchantTransactionId === undefined && shortId === undefined) {
    throw invalidParameters([{ name: 'merchantTransactionId', value: '', message: 'is required, or date.from and date.to, or shortId' }]);
  }
  const paymentTypes = listOf(params.get('paymentTypes'));
  const paymentMethods = listOf(params.get('paymentMethods'));
  return {
    criteria: {
      ...(merchantTransactionId !== undefined ? { merchantTransactionId } : {}),
      ...(range ? { range } : {}),
      ...(shortId !== undefined ? { shortId } : {}),
      ...(paymentTypes ? { paymentTypes } : {}),
      ...(paymentMethods ? { paymentMethods } : {}),
    },
    page: pageOf(params),
  };
}

/** GET /v1/query/{id}: the transaction, or (includeLinkedTransactions) it and its linked transactions as a list. */
export function byIdQueryOf(params: Params): ByIdQuery {
  checked(params);
  return { includeLinkedTransactions: isTrue(params.get('includeLinkedTransactions')), page: pageOf(params) };
}
