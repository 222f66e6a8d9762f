import type { PaymentRecord } from '../domain/payment.ts';
import { RESULTS } from '../domain/resultCodes.ts';
import { formatTimestamp } from '../domain/timestamps.ts';
import { paymentSnapshot, shortIdOf } from '../payments/view.ts';
import type { RegistrationRecord } from '../registrations/repository.ts';
import { registrationBody, registrationResult } from '../registrations/storedCards.ts';
import type { ScheduleRecord } from '../schedules/repository.ts';
import { scheduleBody } from '../schedules/view.ts';

/**
 * The transactions a query answers with (COMPAT §14), each with its original result and time: a payment as its
 * notification carries it (the API's answer plus shortId, paymentMethod, source, ...); a schedule's creation (SD) or
 * cancellation (DS) as its SCHEDULE notification does; a registration (RG) and its deletion (DR) as their answers.
 */

export type QueriedRecord =
  | { readonly kind: 'payment'; readonly payment: PaymentRecord }
  | { readonly kind: 'SD' | 'DS'; readonly schedule: ScheduleRecord }
  | { readonly kind: 'RG' | 'DR'; readonly registration: RegistrationRecord };

function scheduleRecordView(schedule: ScheduleRecord, kind: 'SD' | 'DS'): Record<string, unknown> {
  const { code, description } = RESULTS.succeeded;
  const at = kind === 'SD' ? schedule.createdAt : (schedule.cancelledAt ?? schedule.createdAt);
  return {
    ...scheduleBody(schedule),
    paymentType: kind,
    shortId: shortIdOf(schedule.id),
    authentication: { entityId: schedule.entityId },
    result: { code, description },
    timestamp: formatTimestamp(at),
  };
}

function registrationRecordView(registration: RegistrationRecord, kind: 'RG' | 'DR'): Record<string, unknown> {
  const { code, description } = registrationResult(registration);
  const result = { code, description };
  if (kind === 'RG') {
    return {
      ...registrationBody(registration),
      paymentType: 'RG',
      shortId: shortIdOf(registration.id),
      authentication: { entityId: registration.entityId },
      result,
      timestamp: formatTimestamp(registration.createdAt),
    };
  }
  const id = registration.deregistrationId ?? registration.id;
  return {
    id,
    referencedId: registration.id,
    paymentType: 'DR',
    paymentBrand: registration.paymentBrand,
    shortId: shortIdOf(id),
    authentication: { entityId: registration.entityId },
    result,
    timestamp: formatTimestamp(registration.deletedAt ?? registration.createdAt),
  };
}

/**
 * The record as the by-id answer shows it: a payment with its own ndc (its checkout's id for a checkout's payment,
 * which receivers of notifications look payments up by); the other records have none of their own.
 */
export function recordView(record: QueriedRecord): Record<string, unknown> {
  switch (record.kind) {
    case 'payment':
      return paymentSnapshot(record.payment, record.payment.createdAt);
    case 'SD':
    case 'DS':
      return scheduleRecordView(record.schedule, record.kind);
    case 'RG':
    case 'DR':
      return registrationRecordView(record.registration, record.kind);
  }
}

/** The record as a query's list shows it: without the envelope's buildNumber and ndc. */
export function listedView(record: QueriedRecord): Record<string, unknown> {
  const { ndc: _ndc, ...view } = recordView(record);
  return view;
}
