import type { Outbox } from '../events/outbox.ts';
import type { Queryable } from '../store/index.ts';
import { lockActiveSchedulesOf, markScheduleCancelled, type ScheduleCancelReason, type ScheduleRecord } from './repository.ts';
import { scheduleEvent } from './view.ts';

/**
 * Cancelling a schedule (DS) in the caller's transaction, with its SCHEDULE DELETED event: the merchant's DELETE, or
 * the registration it pays with deleted or expired (COMPAT §10, §12). Kept apart from the use-cases so the
 * registrations code can cancel a deleted registration's schedules in its own transaction.
 */

export async function cancelLockedSchedule(tx: Queryable, outbox: Outbox, schedule: ScheduleRecord, reason: ScheduleCancelReason, now: Date): Promise<ScheduleRecord> {
  await markScheduleCancelled(tx, schedule.id, reason, now);
  const cancelled: ScheduleRecord = { ...schedule, status: 'cancelled', nextFireAt: null, cancelledAt: now, cancelReason: reason };
  await outbox.append(tx, [scheduleEvent(cancelled, 'DELETED', now)]);
  return cancelled;
}

/** Cancels every active schedule of a registration that was deleted or expired; returns how many. */
export async function cancelSchedulesOfRegistration(
  tx: Queryable,
  outbox: Outbox,
  registrationId: string,
  reason: Extract<ScheduleCancelReason, 'registration deleted' | 'registration expired'>,
  now: Date,
): Promise<number> {
  const schedules = await lockActiveSchedulesOf(tx, registrationId);
  for (const schedule of schedules) await cancelLockedSchedule(tx, outbox, schedule, reason, now);
  return schedules.length;
}
