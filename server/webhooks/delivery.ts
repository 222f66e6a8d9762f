import { WEBHOOK_DELIVERY_JOB } from '../events/outbox.ts';
import { PermanentJobError, type JobHandler } from '../jobs/registry.ts';
import { findDeliveryToSend, findWebhook, markGivenUp, recordDeliveryAttempt, updateWebhook, type WebhookRecord } from './repository.ts';
import { notificationPlaintext } from './notification.ts';
import { secretOf, sendToWebhook, type WebhookServices } from './service.ts';

/**
 * Sending a delivery (COMPAT §13): the event's notification, encrypted afresh for every attempt (a new IV), POSTed to
 * the webhook; any 2xx within 30 s delivers it. Otherwise it is tried again 1, 2, 4, 8, 15, 30 minutes and 1 hour
 * after each failure, then once a day until 30 days after the delivery was created. Every attempt is logged (time,
 * status, latency, error; never the plaintext). A webhook whose deliveries have failed for 5 days is switched off.
 */

const MINUTE_MS = 60_000;
const DAY_MS = 24 * 60 * MINUTE_MS;
/** The waits after the first failures; after those, one a day. */
const FIRST_RETRY_DELAYS_MS = [1, 2, 4, 8, 15, 30, 60].map((minutes) => minutes * MINUTE_MS);
/** How long a delivery is tried, from its creation. */
export const DELIVERY_LIFETIME_MS = 30 * DAY_MS;
/** How long a webhook may fail before it is switched off. */
export const FAILING_WEBHOOK_CUTOFF_MS = 5 * DAY_MS;

export function webhookRetryDelayMs(attempts: number): number {
  return FIRST_RETRY_DELAYS_MS[attempts - 1] ?? DAY_MS;
}

/** Enough attempts for 30 days of the schedule above (the lifetime check gives up first). */
const MAX_ATTEMPTS = FIRST_RETRY_DELAYS_MS.length + 31;

/** Requests one process has open to one receiver (URL origin) at most. */
export const RECEIVER_CONCURRENCY = 4;

interface ReceiverSlots {
  active: number;
  readonly waiting: (() => void)[];
}

/**
 * A semaphore per receiver origin, per process: a receiver that hangs holds at most RECEIVER_CONCURRENCY sends
 * (and their 30 s timeouts) at a time, whatever else the delivery worker claimed for it. A delivery that finds its
 * receiver busy waits for a slot, at most as long as one send may take (the outbound timeout): the job's claim is
 * thus held at most twice that (60 s), well within its lease, and a slot freed is handed to the oldest waiter.
 * A delivery that got no slot in time is logged as an attempt that was not sent, and retried on the schedule.
 * Entries exist only while a receiver has sends open or waiting. (Several instances each have their own limit.)
 */
const receiverSlots = new Map<string, ReceiverSlots>();

/**
 * Resolves with a release function once a slot is free, or with undefined after `waitMs` (or when `signal` was
 * aborted meanwhile: the worker stopping aborts the open sends, so slots free up at once).
 */
export function acquireReceiverSlot(origin: string, waitMs: number, signal?: AbortSignal): Promise<(() => void) | undefined> {
  let slots = receiverSlots.get(origin);
  if (!slots) {
    slots = { active: 0, waiting: [] };
    receiverSlots.set(origin, slots);
  }
  const entry = slots;
  let released = false;
  const release = () => {
    if (released) return;
    released = true;
    const next = entry.waiting.shift();
    // Handed over: the slot stays taken, by the oldest waiter.
    if (next) return next();
    entry.active -= 1;
    if (entry.active === 0 && receiverSlots.get(origin) === entry) receiverSlots.delete(origin);
  };
  if (entry.active < RECEIVER_CONCURRENCY) {
    entry.active += 1;
    return Promise.resolve(release);
  }
  return new Promise((resolve) => {
    const granted = () => {
      clearTimeout(timer);
      if (!signal?.aborted) return resolve(release);
      release();
      resolve(undefined);
    };
    const timer = setTimeout(() => {
      const index = entry.waiting.indexOf(granted);
      if (index >= 0) entry.waiting.splice(index, 1);
      resolve(undefined);
    }, waitMs);
    entry.waiting.push(granted);
  });
}

/** How many sends are open to `origin` in this process (tests). */
export function openSendsTo(origin: string): number {
  return receiverSlots.get(origin)?.active ?? 0;
}

/** After a failed attempt: since when the webhook fails, and whether that is long enough to switch it off. */
async function recordFailure(services: WebhookServices, webhook: WebhookRecord): Promise<void> {
  const now = services.now();
  await services.store.transaction(async (tx) => {
    const current = await findWebhook(tx, webhook.id, { forUpdate: true });
    if (!current || current.status !== 'active') return;
    const failingSince = current.failingSince ?? now;
    const switchOff = now.getTime() - failingSince.getTime() >= FAILING_WEBHOOK_CUTOFF_MS;
    await updateWebhook(tx, {
      ...current,
      failingSince,
      ...(switchOff ? { status: 'inactive' as const, statusReason: `deliveries failed for 5 days (since ${failingSince.toISOString()})` } : {}),
      updatedAt: now,
    });
    if (switchOff) services.logger.warn('webhook switched off: its deliveries failed for 5 days', { webhookId: current.id, failingSince: failingSince.toISOString() });
  });
}

async function recordSuccess(services: WebhookServices, webhook: WebhookRecord): Promise<void> {
  if (webhook.failingSince === null) return;
  await services.store.transaction(async (tx) => {
    const current = await findWebhook(tx, webhook.id, { forUpdate: true });
    if (current && current.failingSince !== null) await updateWebhook(tx, { ...current, failingSince: null, updatedAt: services.now() });
  });
}

/** Opened secrets by their vault id (a sealed secret never changes: a new one gets a new id), per process. */
const OPENED_SECRETS_KEPT = 1000;

export function webhookJobHandlers(services: WebhookServices): JobHandler[] {
  const opened = new Map<string, string>();
  const openedSecret = async (webhook: WebhookRecord): Promise<string> => {
    const known = opened.get(webhook.secretId);
    if (known !== undefined) return known;
    const secret = await secretOf(services, webhook);
    if (opened.size >= OPENED_SECRETS_KEPT) opened.clear();
    opened.set(webhook.secretId, secret);
    return secret;
  };
  return [
    {
      kind: WEBHOOK_DELIVERY_JOB,
      maxAttempts: MAX_ATTEMPTS,
      retryDelayMs: webhookRetryDelayMs,
      run: async (job, context) => {
        const deliveryId = job.payload.deliveryId;
        if (typeof deliveryId !== 'string') throw new PermanentJobError('malformed webhook delivery payload');
        const resend = job.payload.resend === true;
        const found = await findDeliveryToSend(context.store, deliveryId);
        // Deleted with its webhook, or delivered meanwhile (an operator's re-send goes again anyway).
        if (!found || (found.delivery.deliveredAt !== null && !resend)) return;
        const { delivery, webhook } = found;
        // Pending again (a new URL waits for its activation's 2xx): tried again on the schedule, not given up.
        if (webhook?.status === 'pending') throw new Error(`webhook ${webhook.id} is waiting for its activation`);
        if (!webhook || webhook.status !== 'active') {
          await markGivenUp(context.store, delivery.id, context.now());
          throw new PermanentJobError(`webhook ${delivery.webhookId} is not active`);
        }
        const now = context.now();
        if (!resend && now.getTime() - delivery.createdAt.getTime() > DELIVERY_LIFETIME_MS) {
          await markGivenUp(context.store, delivery.id, now);
          throw new PermanentJobError('not delivered within 30 days');
        }
        const secret = await openedSecret(webhook);
        const origin = new URL(webhook.url).origin;
        const release = await acquireReceiverSlot(origin, services.timeoutMs, context.signal);
        if (!release) {
          const error = `not sent: ${RECEIVER_CONCURRENCY} deliveries to this receiver were open for ${services.timeoutMs} ms`;
          await recordDeliveryAttempt(context.store, { deliveryId: delivery.id, attemptedAt: now, httpStatus: null, latencyMs: 0, error }, null);
          throw new Error(error);
        }
        let outcome: Awaited<ReturnType<typeof sendToWebhook>>;
        try {
          outcome = await sendToWebhook(services, webhook, secret, notificationPlaintext(delivery.event, webhook.fields), context.signal);
        } finally {
          release();
        }
        const attempt = { deliveryId: delivery.id, attemptedAt: now, httpStatus: outcome.httpStatus, latencyMs: outcome.latencyMs, error: outcome.error };
        await recordDeliveryAttempt(context.store, attempt, outcome.delivered ? context.now() : null);
        if (outcome.delivered) {
          await recordSuccess(services, webhook);
          return;
        }
        await recordFailure(services, webhook);
        throw new Error(outcome.error ?? 'not delivered');
      },
    },
  ];
}
