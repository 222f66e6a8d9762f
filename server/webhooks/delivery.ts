import { WEBHOOK_DELIVERY_JOB } from '../events/outbox.ts';
import { PermanentJobError, type JobContext, type JobHandler } from '../jobs/registry.ts';
import type { ClaimedJob } from '../jobs/repository.ts';
import type { Queryable } from '../store/index.ts';
import {
  findDeliveriesToSend,
  findWebhook,
  recordDeliveryOutcomes,
  updateWebhook,
  type DeliveryOutcome,
  type DeliveryToSend,
  type WebhookRecord,
} from './repository.ts';
import { notificationPlaintext } from './notification.ts';
import { secretOf, sendToWebhook, WEBHOOK_TIMEOUT_MS, type WebhookServices } from './service.ts';

/**
 * Sending a delivery (COMPAT §13): the event's notification, encrypted afresh for every attempt (a new IV), POSTed to
 * the webhook; any 2xx within 30 s delivers it. Otherwise it is tried again 1, 2, 4, 8, 15, 30 minutes and 1 hour
 * after each failure, then once a day until 30 days after the delivery was created. Every attempt is logged (time,
 * status, latency, error; never the plaintext). A webhook whose deliveries have failed for 5 days is switched off.
 *
 * Deliveries are sent a claimed batch at a time (JobHandler.runBatch), because on the embedded store every statement
 * is one the payments wait for: one statement reads the batch's deliveries with their events and webhooks, one
 * records all its attempts, deliveries and give-ups, the worker marks all its jobs in one more, and a webhook's
 * failing-since state is written only when it changes. A batch of 32 costs 4 statements instead of 97.
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
 * thus held at most twice that (60 s), within its lease (WEBHOOK_DELIVERY_LEASE_MS), and a slot freed is handed to
 * the oldest waiter.
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

/**
 * After failed attempts: since when the webhook fails, and whether that is long enough to switch it off. Resolves
 * with when it has been failing since (null: it is not active any more).
 */
async function recordFailure(services: WebhookServices, webhookId: string): Promise<Date | null> {
  const now = services.now();
  return services.store.transaction(async (tx) => {
    const current = await findWebhook(tx, webhookId, { forUpdate: true });
    if (!current || current.status !== 'active') return null;
    const failingSince = current.failingSince ?? now;
    const switchOff = now.getTime() - failingSince.getTime() >= FAILING_WEBHOOK_CUTOFF_MS;
    await updateWebhook(tx, {
      ...current,
      failingSince,
      ...(switchOff ? { status: 'inactive' as const, statusReason: `deliveries failed for 5 days (since ${failingSince.toISOString()})` } : {}),
      updatedAt: now,
    });
    if (switchOff) services.logger.warn('webhook switched off: its deliveries failed for 5 days', { webhookId: current.id, failingSince: failingSince.toISOString() });
    return switchOff ? null : failingSince;
  });
}

async function recordSuccess(services: WebhookServices, webhookId: string): Promise<void> {
  await services.store.transaction(async (tx) => {
    const current = await findWebhook(tx, webhookId, { forUpdate: true });
    if (current && current.failingSince !== null) await updateWebhook(tx, { ...current, failingSince: null, updatedAt: services.now() });
  });
}

/** Opened secrets by their vault id (a sealed secret never changes: a new one gets a new id), per process. */
const OPENED_SECRETS_KEPT = 1000;

/**
 * The outcomes of a batch's finished sends are recorded once all its sends are done, or at the latest this long after
 * the first of them: sends to healthy receivers (even four at a time to one receiver) end within a few milliseconds
 * of each other and are recorded in one statement, while one that takes its 30 s holds up no other's record (nor
 * the slot its job takes in the worker) for more than this.
 */
const BATCH_RECORD_WAIT_MS = 500;

/** One delivery's turn, before it is recorded: what to log, and what the job then comes to. */
interface Turn {
  /** Nothing to record when the delivery was done with or cannot be sent yet. */
  readonly outcome?: DeliveryOutcome;
  /** A send's result, for the webhook's failing-since state. */
  readonly sent?: { readonly webhook: WebhookRecord; readonly delivered: boolean };
  /** Thrown once recorded: the job is retried on the schedule, or given up (PermanentJobError). */
  readonly failure?: Error;
}

/**
 * The record of one batch's turns: outcomes are written together (recordDeliveryOutcomes) once every job of the
 * batch has its turn, or BATCH_RECORD_WAIT_MS after the first outcome waiting; then the webhooks' failing-since
 * state is updated, once per webhook whose state changes, not per delivery.
 */
function batchRecord(services: WebhookServices, store: Queryable, jobCount: number) {
  let turnsLeft = jobCount;
  let waiting: { turn: Turn; recorded: () => void; failed: (error: unknown) => void }[] = [];
  let timer: NodeJS.Timeout | undefined;
  /** What this batch knows of each webhook's failing-since (from its read, then from its own updates). */
  const failingSince = new Map<string, Date | null>();

  async function updateWebhookStates(turns: readonly Turn[]): Promise<void> {
    const results = new Map<string, { webhook: WebhookRecord; delivered: boolean }>();
    for (const { sent } of turns) {
      if (!sent) continue;
      const known = results.get(sent.webhook.id);
      results.set(sent.webhook.id, { webhook: sent.webhook, delivered: (known?.delivered ?? false) || sent.delivered });
    }
    for (const { webhook, delivered } of results.values()) {
      const since = failingSince.has(webhook.id) ? (failingSince.get(webhook.id) ?? null) : webhook.failingSince;
      try {
        // A delivery got through: the webhook is not failing (whatever else failed in the batch).
        if (delivered && since !== null) {
          await recordSuccess(services, webhook.id);
          failingSince.set(webhook.id, null);
        }
        // Only a first failure, or one that may switch the webhook off, changes its state.
        if (!delivered && (since === null || services.now().getTime() - since.getTime() >= FAILING_WEBHOOK_CUTOFF_MS)) {
          failingSince.set(webhook.id, await recordFailure(services, webhook.id));
        }
      } catch (error) {
        // The next attempt's outcome tries again; the deliveries' own record stands.
        services.logger.error('webhook state not recorded', { webhookId: webhook.id, error: (error as Error).message });
      }
    }
  }

  async function flush(): Promise<void> {
    clearTimeout(timer);
    timer = undefined;
    const flushed = waiting;
    waiting = [];
    try {
      await recordDeliveryOutcomes(store, flushed.flatMap(({ turn }) => (turn.outcome ? [turn.outcome] : [])));
    } catch (error) {
      for (const entry of flushed) entry.failed(error);
      return;
    }
    await updateWebhookStates(flushed.map((entry) => entry.turn));
    for (const entry of flushed) entry.recorded();
  }

  function turnTaken(): void {
    turnsLeft -= 1;
    if (waiting.length === 0) return;
    if (turnsLeft === 0) void flush();
    else timer ??= setTimeout(() => void flush(), BATCH_RECORD_WAIT_MS);
  }

  return {
    /** Records the turn with the batch's others; resolves once it is recorded, rejects when it could not be. */
    async record(turn: Turn): Promise<void> {
      if (!turn.outcome && !turn.sent) return turnTaken();
      const recorded = new Promise<void>((resolve, reject) => waiting.push({ turn, recorded: resolve, failed: reject }));
      turnTaken();
      return recorded;
    },
    /** A job whose turn ended in an error of its own: nothing of it to record. */
    skip: turnTaken,
  };
}

/**
 * How long a delivery worker's claim lasts: the most a claimed delivery takes (a wait for its receiver's slot, then
 * the send, each at most WEBHOOK_TIMEOUT_MS) and half a minute more. What an instance that died had claimed is sent
 * by another within a minute and a half, not the five minutes of the other jobs. (A test's shorter send timeout keeps
 * this lease.)
 */
export const WEBHOOK_DELIVERY_LEASE_MS = 2 * WEBHOOK_TIMEOUT_MS + 30_000;

export function webhookJobHandlers(services: WebhookServices): JobHandler[] {
  // The opening itself is kept, so a batch's deliveries to one new webhook read its secret once.
  const opened = new Map<string, Promise<string>>();
  const openedSecret = (webhook: WebhookRecord): Promise<string> => {
    const known = opened.get(webhook.secretId);
    if (known !== undefined) return known;
    if (opened.size >= OPENED_SECRETS_KEPT) opened.clear();
    const opening = secretOf(services, webhook);
    opened.set(webhook.secretId, opening);
    opening.catch(() => opened.delete(webhook.secretId));
    return opening;
  };

  /** One delivery's turn: what its job found, and the send when there is one to make. Records nothing itself. */
  async function takeTurn(job: ClaimedJob, found: DeliveryToSend | undefined, signal: AbortSignal): Promise<Turn> {
    const resend = job.payload.resend === true;
    // Deleted with its webhook, or delivered meanwhile (an operator's re-send goes again anyway).
    if (!found || (found.delivery.deliveredAt !== null && !resend)) return {};
    const { delivery, webhook } = found;
    const now = services.now();
    // Pending again (a new URL waits for its activation's 2xx): tried again on the schedule, not given up.
    if (webhook?.status === 'pending') return { failure: new Error(`webhook ${webhook.id} is waiting for its activation`) };
    if (!webhook || webhook.status !== 'active') {
      const failure = new PermanentJobError(`webhook ${delivery.webhookId} is not active`);
      return { outcome: { deliveryId: delivery.id, attempt: null, deliveredAt: null, givenUpAt: now }, failure };
    }
    if (!resend && now.getTime() - delivery.createdAt.getTime() > DELIVERY_LIFETIME_MS) {
      return { outcome: { deliveryId: delivery.id, attempt: null, deliveredAt: null, givenUpAt: now }, failure: new PermanentJobError('not delivered within 30 days') };
    }
    const secret = await openedSecret(webhook);
    const release = await acquireReceiverSlot(new URL(webhook.url).origin, services.timeoutMs, signal);
    if (!release) {
      const error = `not sent: ${RECEIVER_CONCURRENCY} deliveries to this receiver were open for ${services.timeoutMs} ms`;
      const attempt = { attemptedAt: now, httpStatus: null, latencyMs: 0, error };
      return { outcome: { deliveryId: delivery.id, attempt, deliveredAt: null, givenUpAt: null }, failure: new Error(error) };
    }
    let sent: Awaited<ReturnType<typeof sendToWebhook>>;
    try {
      sent = await sendToWebhook(services, webhook, secret, notificationPlaintext(delivery.event, webhook.fields), signal);
    } finally {
      release();
    }
    const attempt = { attemptedAt: now, httpStatus: sent.httpStatus, latencyMs: sent.latencyMs, error: sent.error };
    return {
      outcome: { deliveryId: delivery.id, attempt, deliveredAt: sent.delivered ? services.now() : null, givenUpAt: null },
      sent: { webhook, delivered: sent.delivered },
      ...(sent.delivered ? {} : { failure: new Error(sent.error ?? 'not delivered') }),
    };
  }

  /** A batch: one read for all its deliveries, the sends at once, their outcomes recorded together. */
  function deliverBatch(jobs: readonly ClaimedJob[], context: JobContext): Promise<void>[] {
    const ids = jobs.map((job) => job.payload.deliveryId);
    const found = findDeliveriesToSend(context.store, [...new Set(ids.filter((id): id is string => typeof id === 'string'))]);
    // Every job with an id awaits the read and fails with it; none unhandled when none has.
    found.catch(() => undefined);
    const record = batchRecord(services, context.store, jobs.length);
    return jobs.map(async (job, index) => {
      const deliveryId = ids[index];
      let turn: Turn;
      try {
        if (typeof deliveryId !== 'string') throw new PermanentJobError('malformed webhook delivery payload');
        turn = await takeTurn(job, (await found).get(deliveryId), context.signal);
      } catch (error) {
        record.skip();
        throw error;
      }
      await record.record(turn);
      if (turn.failure) throw turn.failure;
    });
  }

  return [
    {
      kind: WEBHOOK_DELIVERY_JOB,
      maxAttempts: MAX_ATTEMPTS,
      retryDelayMs: webhookRetryDelayMs,
      runBatch: deliverBatch,
      run: (job, context) => deliverBatch([job], context)[0] as Promise<void>,
    },
  ];
}
