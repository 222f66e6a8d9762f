import type { EventSubscriber, Outbox } from '../events/outbox.ts';
import type { Queryable } from '../store/index.ts';
import { lockActiveSchedulesOf, markScheduleCancelled, type ScheduleCancelReason, type ScheduleRecord } from './repository.ts';
import { scheduleEvent } from './view.ts';

/**
 * Cancelling a schedule (DS) in the caller's transaction, with its SCHEDULE DELETED event: the merchant's DELETE, or
 * the registration it pays with deleted or expired (COMPAT §10, §12).
 */

export async function cancelLockedSchedule(tx: Queryable, outbox: Outbox, schedule: ScheduleRecord, reason: ScheduleCancelReason, now: Date): Promise<ScheduleRecord> {
  await markScheduleCancelled(tx, schedule.id, reason, now);
  const cancelled: ScheduleRecord = { ...schedule, status: 'cancelled', nextFireAt: null, cancelledAt: now, cancelReason: reason };
  await outbox.append(tx, [scheduleEvent(cancelled, 'DELETED', now)]);
  return cancelled;
}

/**
 * The outbox subscriber (registered by gateway.ts) that cancels a deleted registration's active schedules (COMPAT
 * §10) in the transaction that deletes it, on its REGISTRATION DELETED event: registrations announce the deletion and
 * know nothing of schedules. A cancellation that fails rolls the deletion back with it.
 */
export const cancelSchedulesOfDeletedRegistrations: EventSubscriber = async (tx, events, outbox) => {
  for (const event of events) {
    if (event.type !== 'REGISTRATION' || event.action !== 'DELETED') continue;
    const schedules = await lockActiveSchedulesOf(tx, event.resourceId);
    for (const schedule of schedules) await cancelLockedSchedule(tx, outbox, schedule, 'registration deleted', event.createdAt);
  }
};
