import { formatAmount } from '../domain/money.ts';
import { RESULTS } from '../domain/resultCodes.ts';
import type { DomainEvent, EventAction } from '../events/outbox.ts';
import type { ScheduleRecord } from './repository.ts';

/** The schedule's job as it was sent: its cron fields and expression, and whatever else the merchant named. */
export function jobFields(job: ScheduleRecord['job']): Record<string, unknown> {
  return {
    ...job.extra,
    second: job.second,
    minute: job.minute,
    hour: job.hour,
    dayOfMonth: job.dayOfMonth,
    month: job.month,
    dayOfWeek: job.dayOfWeek,
    year: job.year,
    expression: job.expression,
  };
}

/**
 * A schedule as answers and SCHEDULE notifications show it (COMPAT §12): the payment definition, the standing
 * instruction, and the job with its fields, its expression and, as epoch milliseconds, the next execution
 * (`startDate`) and the end (`endDate`).
 */
export function scheduleBody(schedule: ScheduleRecord): Record<string, unknown> {
  const { job } = schedule;
  return {
    id: schedule.id,
    registrationId: schedule.registrationId,
    paymentType: schedule.paymentType,
    amount: formatAmount(schedule.amountMinor),
    currency: schedule.currency,
    ...schedule.requestEcho,
    job: {
      ...jobFields(job),
      ...(schedule.nextFireAt ? { startDate: schedule.nextFireAt.getTime() } : {}),
      ...(schedule.endAt ? { endDate: schedule.endAt.getTime() } : {}),
    },
  };
}

/** The records a creation and a cancellation make (COMPAT §12); an end makes none. */
const RECORD_TYPES: Partial<Record<EventAction, 'SD' | 'DS'>> = { CREATED: 'SD', DELETED: 'DS' };

/**
 * The SCHEDULE event of a state change: CREATED (SD), DELETED (a cancellation, DS), or UPDATED when the schedule ends
 * after its last fire time (no record of its own: the schedule's own paymentType, and no job.startDate). The payload
 * is the schedule object with the result every schedule answer carries (000.000.000 in every mode: executions carry
 * the test-mode codes).
 */
export function scheduleEvent(schedule: ScheduleRecord, action: EventAction, at: Date): DomainEvent {
  const { code, description } = RESULTS.succeeded;
  return {
    type: 'SCHEDULE',
    action,
    entityId: schedule.entityId,
    resourceId: schedule.id,
    payload: {
      ...scheduleBody(schedule),
      paymentType: RECORD_TYPES[action] ?? schedule.paymentType,
      authentication: { entityId: schedule.entityId },
      result: { code, description },
    },
    createdAt: at,
  };
}
