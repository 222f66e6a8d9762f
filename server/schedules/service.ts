import { GatewayError, invalidParameters, withReason } from '../domain/errors.ts';
import { newResourceId, RESOURCE_ID } from '../domain/ids.ts';
import { RESULTS } from '../domain/resultCodes.ts';
import type { PaymentServices } from '../payments/services.ts';
import { findRegistration } from '../registrations/repository.ts';
import { requireUsable } from '../registrations/storedCards.ts';
import { cancelLockedSchedule } from './cancellation.ts';
import { findSchedule, insertSchedule, type ScheduleRecord } from './repository.ts';
import type { CreateScheduleCommand } from './request.ts';
import { scheduleEvent } from './view.ts';

/**
 * Schedules (COMPAT §12, spec doc 1 §4 "Subscription flow"): a merchant stores a card, then asks the gateway to
 * charge it at the fire times of a Quartz cron job, until it cancels the schedule. Executions are made by
 * firing.ts and execution.ts; this file has the merchant's use-cases.
 *
 *   active ──DELETE, or its registration deleted or expired──▶ cancelled (DS)
 *   active ──no fire time left before its end──▶ ended
 *
 * Creation (SD) and cancellation (DS) each append their SCHEDULE event in the transaction that makes them.
 */

/** The first fire time at or after `from` (fire times are whole seconds). */
function firstFireAtOrAfter(command: Pick<CreateScheduleCommand, 'quartz'>, from: Date): Date | undefined {
  return command.quartz.next(new Date(from.getTime() - 1));
}

/** COMPAT §12: an unknown (or malformed, or another entity's) schedule id is 400 700.400.580. */
export function unknownSchedule(): GatewayError {
  return new GatewayError(RESULTS.transactionNotFound, 400);
}

/**
 * POST /scheduling/v1/schedules: the registration must be the entity's and usable, its card-on-file agreement known
 * (the executions are merchant-initiated payments that name it; a SEPA account's is its mandate), and the job must
 * fire at least once between its start and its end.
 */
export async function createSchedule(services: PaymentServices, command: CreateScheduleCommand, id: string = newResourceId()): Promise<ScheduleRecord> {
  const now = services.now();
  const startAt = command.startAt ?? now;
  // A start in the past does not make the fire times before the schedule existed due.
  const first = firstFireAtOrAfter(command, new Date(Math.max(startAt.getTime(), now.getTime())));
  if (first === undefined || (command.endAt !== undefined && first.getTime() > command.endAt.getTime())) {
    const why = first === undefined ? 'the job never fires' : 'the job does not fire between job.startDate and its end';
    throw new GatewayError(withReason(RESULTS.jobWithoutExecution, why), 400, [{ name: 'job.expression', value: command.quartz.expression, message: why }]);
  }
  if (!RESOURCE_ID.test(command.registrationId)) {
    throw new GatewayError(RESULTS.invalidRegistrationId, 400, [{ name: 'registrationId', value: command.registrationId, message: RESULTS.invalidRegistrationId.description }]);
  }
  return services.store.transaction(async (tx) => {
    // Locked: a delete of the registration waits for the schedule, then cancels it.
    const found = await findRegistration(tx, command.entityId, command.registrationId, { forUpdate: true });
    const registration = requireUsable(found, command.registrationId, services.registrationLifetimeMonths, now, 'registrationId');
    // A SEPA account's mandate is its agreement for every debit (COMPAT §16); it collects money, never pays it out.
    if (registration.bankAccount !== null && command.paymentType === 'CD') {
      throw invalidParameters([{ name: 'paymentType', value: 'CD', message: 'must be DB or PA for a registered bank account: a direct debit collects money' }]);
    }
    if (registration.card !== null && command.initialTransactionId === undefined && registration.initialTransactionId === null) {
      throw new GatewayError(
        withReason(
          RESULTS.invalidRecurringData,
          "a schedule's payments are merchant-initiated: the registration needs an approved INITIAL (CIT) payment, or send standingInstruction.initialTransactionId",
        ),
        400,
        [{ name: 'standingInstruction.initialTransactionId', value: '', message: 'is required: no approved INITIAL payment is known for this registration' }],
      );
    }
    const { quartz } = command;
    const schedule: ScheduleRecord = {
      id,
      entityId: command.entityId,
      registrationId: registration.id,
      paymentType: command.paymentType,
      amountMinor: command.amountMinor,
      currency: command.currency,
      testMode: command.testMode ?? null,
      requestEcho: command.echo,
      job: { ...quartz.fields, expression: quartz.expression, extra: command.jobExtra },
      expression: quartz.expression,
      startAt,
      endAt: command.endAt ?? null,
      nextFireAt: first,
      status: 'active',
      createdAt: now,
      cancelledAt: null,
      cancelReason: null,
      endedAt: null,
    };
    await insertSchedule(tx, schedule);
    await services.outbox.append(tx, [scheduleEvent(schedule, 'CREATED', now)]);
    return schedule;
  });
}

/** GET /scheduling/v1/schedules/{id}: the entity's schedule (another entity's is unknown). */
export async function readSchedule(services: PaymentServices, entityId: string, id: string): Promise<ScheduleRecord> {
  const schedule = RESOURCE_ID.test(id) ? await findSchedule(services.store, entityId, id) : undefined;
  if (!schedule) throw unknownSchedule();
  return schedule;
}

/**
 * DELETE /scheduling/v1/schedules/{id}: cancels (DS); a cancelled or ended schedule is closed (100.350.101). `by`: the
 * merchant (its API, its back-office users) unless an operator cancelled it in the back office.
 */
export async function cancelSchedule(services: PaymentServices, entityId: string, id: string, by: 'merchant' | 'operator' = 'merchant'): Promise<ScheduleRecord> {
  if (!RESOURCE_ID.test(id)) throw unknownSchedule();
  return services.store.transaction(async (tx) => {
    const schedule = await findSchedule(tx, entityId, id, { forUpdate: true });
    if (!schedule) throw unknownSchedule();
    if (schedule.status !== 'active') {
      throw new GatewayError(withReason(RESULTS.scheduleClosed, schedule.status === 'ended' ? 'the schedule has ended' : 'the schedule is already cancelled'), 400);
    }
    return cancelLockedSchedule(tx, services.outbox, schedule, by, services.now());
  });
}
