import { isCheckoutId } from '../domain/ids.ts';
import { GatewayError, withReason } from '../domain/errors.ts';
import { RESOURCE_ID } from '../domain/ids.ts';
import { RESULTS } from '../domain/resultCodes.ts';
import { findPayment, findPaymentsById } from '../payments/store/payments.ts';
import { findRegistrationsOfRecords } from '../registrations/repository.ts';
import { findSchedulesOf } from '../schedules/repository.ts';
import type { Queryable } from '../store/index.ts';
import {
  findCheckoutPaymentId,
  findLinkedPayments,
  findMatches,
  findOtherRecord,
  findRegistrationLinks,
  findScheduleLinks,
  type RecordRef,
} from './repository.ts';
import type { ByIdQuery, ListQuery, QueryPage } from './request.ts';
import type { QueriedRecord } from './view.ts';

/**
 * The query use-cases (COMPAT §14): a transaction by its id (or its checkout's), with or without its linked
 * transactions, and the list forms. Only the entity's own transactions exist for it: another entity's id is as
 * unknown as an id nobody made (700.400.580), whatever it names.
 */

/** 400 700.400.580: nothing the entity made matches. */
export function nothingFound(reason?: string): GatewayError {
  return new GatewayError(reason ? withReason(RESULTS.transactionNotFound, reason) : RESULTS.transactionNotFound, 400);
}

/** A page of records: the records in answer order and how many pages there are. */
export interface RecordPage {
  readonly records: readonly QueriedRecord[];
  readonly pages: number;
}

/** The records `refs` name, in that order (a record gone meanwhile is left out). */
async function loadRecords(db: Queryable, entityId: string, refs: readonly RecordRef[]): Promise<QueriedRecord[]> {
  const idsOf = (...kinds: RecordRef['kind'][]) => [...new Set(refs.filter((ref) => kinds.includes(ref.kind)).map((ref) => ref.id))];
  const [payments, schedules, registrations] = await Promise.all([
    findPaymentsById(db, idsOf('payment')),
    findSchedulesOf(db, entityId, idsOf('SD', 'DS')),
    findRegistrationsOfRecords(db, entityId, idsOf('RG', 'DR')),
  ]);
  const paymentById = new Map(payments.filter((payment) => payment.entityId === entityId).map((payment) => [payment.id, payment]));
  const scheduleById = new Map(schedules.map((schedule) => [schedule.id, schedule]));
  const registrationById = new Map(registrations.map((registration) => [registration.id, registration]));
  const registrationByDeregistration = new Map(registrations.flatMap((registration) => (registration.deregistrationId ? [[registration.deregistrationId, registration] as const] : [])));
  return refs.flatMap((ref): QueriedRecord[] => {
    switch (ref.kind) {
      case 'payment': {
        const payment = paymentById.get(ref.id);
        return payment ? [{ kind: 'payment', payment }] : [];
      }
      case 'SD':
      case 'DS': {
        const schedule = scheduleById.get(ref.id);
        return schedule ? [{ kind: ref.kind, schedule }] : [];
      }
      case 'RG':
      case 'DR': {
        const registration = (ref.kind === 'RG' ? registrationById : registrationByDeregistration).get(ref.id);
        return registration ? [{ kind: ref.kind, registration }] : [];
      }
    }
  });
}

const pagesOf = (total: number, page: QueryPage) => Math.ceil(total / page.limit);

/** A page beyond the last is answered as no match: clients that page until they are refused stop there. */
function beyondLast(page: QueryPage, pages: number): GatewayError {
  return nothingFound(`page ${page.pageNo} is beyond the last page (${pages})`);
}

/**
 * What `id` names for the entity: a payment (read at once: the common case costs one lookup), a checkout's payment,
 * a schedule (SD), a registration (RG) or a deregistration (DR).
 */
async function resolve(db: Queryable, entityId: string, id: string): Promise<{ readonly ref: RecordRef; readonly record?: QueriedRecord } | undefined> {
  if (isCheckoutId(id)) {
    const paymentId = await findCheckoutPaymentId(db, entityId, id);
    return paymentId === undefined ? undefined : { ref: { kind: 'payment', id: paymentId } };
  }
  if (!RESOURCE_ID.test(id)) return undefined;
  const payment = await findPayment(db, entityId, id);
  if (payment) return { ref: { kind: 'payment', id }, record: { kind: 'payment', payment } };
  const ref = await findOtherRecord(db, entityId, id);
  return ref ? { ref } : undefined;
}

/** The record `id` names; throws 700.400.580 when the entity has none. */
export async function queryRecord(db: Queryable, entityId: string, id: string): Promise<QueriedRecord> {
  const resolved = await resolve(db, entityId, id);
  const [record] = resolved?.record ? [resolved.record] : resolved ? await loadRecords(db, entityId, [resolved.ref]) : [];
  if (!record) throw nothingFound();
  return record;
}

/** The transactions linked to a record, it among them, oldest first. */
function linksOf(db: Queryable, entityId: string, ref: RecordRef): Promise<RecordRef[]> {
  switch (ref.kind) {
    case 'payment':
      return findLinkedPayments(db, entityId, ref.id);
    case 'SD':
    case 'DS':
      return findScheduleLinks(db, entityId, ref.id);
    case 'RG':
    case 'DR':
      return findRegistrationLinks(db, entityId, ref.id);
  }
}

/** The record `id` names and its linked transactions: it first, then the others oldest first, a page at a time. */
export async function queryLinked(db: Queryable, entityId: string, id: string, query: ByIdQuery): Promise<RecordPage> {
  const ref = (await resolve(db, entityId, id))?.ref;
  if (!ref) throw nothingFound();
  const links = await linksOf(db, entityId, ref);
  const queried = links.find((link) => link.kind === ref.kind && link.id === ref.id) ?? ref;
  const ordered = [queried, ...links.filter((link) => link !== queried)];
  const pages = pagesOf(ordered.length, query.page);
  if (query.page.pageNo > pages) throw beyondLast(query.page, pages);
  const start = (query.page.pageNo - 1) * query.page.limit;
  return { records: await loadRecords(db, entityId, ordered.slice(start, start + query.page.limit)), pages };
}

/** GET /v1/query: the matching records, a page at a time; 700.400.580 when none match (or the page is past the last). */
export async function queryList(db: Queryable, entityId: string, query: ListQuery): Promise<RecordPage> {
  const { total, refs } = await findMatches(db, entityId, query.criteria, query.page);
  if (total === 0) throw nothingFound();
  const pages = pagesOf(total, query.page);
  if (query.page.pageNo > pages) throw beyondLast(query.page, pages);
  return { records: await loadRecords(db, entityId, refs), pages };
}
