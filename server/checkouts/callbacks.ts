import { checkHttpUrl, describeUrl, isUnderBase, withQuery } from '../domain/urls.ts';
import { exponentialBackoff, PermanentJobError, type JobContext, type JobHandler } from '../jobs/registry.ts';
import { RefusedDestination, sendOutbound, type OutboundPolicy } from '../outbound/http.ts';
import { scheduleJob, type ClaimedJob } from '../jobs/repository.ts';
import type { Queryable } from '../store/index.ts';
import type { EventSubscriber } from '../events/outbox.ts';
import { findCheckout, findCheckoutsById, type CheckoutRecord } from './repository.ts';
import { checkoutKindOf, resultPathOf, SHOPPER_RESULT_CALL_AFTER_MS } from './state.ts';

/**
 * The gateway's own GET calls about a checkout, both `GET <url>?id=<checkoutId>&resourcePath=/v1/checkouts/<id>/payment`
 * (`/registration` for a registration-only checkout, doc 1 §3 rule 3) so the merchant's server fetches the result:
 *
 * - The 29-minute call (doc 1 §3 rule 3, COMPAT §2): scheduled when the pay button is first used, due 29 minutes
 *   after the checkout's creation, sent only if the merchant has not read a final result by then. The URL is
 *   the checkout's own shopperResultUrl (the merchant's server set it), else the one the widget posted (the form
 *   action) if it lies under the base address the merchant registered for its returns: the page is the
 *   shopper's, and the gateway does not call whatever address a shopper names.
 * - notificationUrl (deprecated, doc 1 §6, its behaviour otherwise unspecified): sent once per final payment
 *   result (approved or declined), retried with backoff until the merchant answers 2xx.
 *
 * Both stop once the checkout has expired or was deleted: the resourcePath they point to no longer answers then.
 */

export const SHOPPER_RESULT_CALL = 'checkout.shopperResultCall';
export const CHECKOUT_NOTIFICATION = 'checkout.notification';

/** One-minute window left before expiry: a few quick retries, then the result can no longer be read anyway. */
const SHOPPER_RESULT_CALL_ATTEMPTS = 3;
const SHOPPER_RESULT_CALL_BACKOFF = exponentialBackoff(15_000, 30_000);
/** 30 s, 1, 2, 4 and 8 minutes: six attempts within the checkout's lifetime. */
const NOTIFICATION_ATTEMPTS = 6;
const NOTIFICATION_BACKOFF = exponentialBackoff(30_000, 8 * 60_000);

// A type alias, not an interface: job payloads are plain JSON records.
type CallbackPayload = {
  readonly checkoutId: string;
  readonly url: string;
};

/** Where the 29-minute call goes (see above), or undefined when there is no address the gateway may call. */
export function shopperResultCallTarget(
  checkoutUrl: string | undefined,
  pageUrl: string | undefined,
  registeredBase: string | null,
): string | undefined {
  if (checkoutUrl !== undefined) return checkoutUrl;
  if (pageUrl !== undefined && registeredBase !== null && isUnderBase(pageUrl, registeredBase)) return pageUrl;
  return undefined;
}

/** Idempotent per checkout: a retried submit does not schedule a second call. */
export async function scheduleShopperResultCall(db: Queryable, checkout: CheckoutRecord, url: string, now: Date): Promise<boolean> {
  const payload: CallbackPayload = { checkoutId: checkout.id, url };
  return scheduleJob(
    db,
    {
      kind: SHOPPER_RESULT_CALL,
      uniqueKey: `${SHOPPER_RESULT_CALL}:${checkout.id}`,
      runAt: new Date(checkout.createdAt.getTime() + SHOPPER_RESULT_CALL_AFTER_MS),
      payload,
    },
    now,
  );
}

/** Idempotent per payment: one notification per final result. */
export async function scheduleNotification(
  db: Queryable,
  checkout: CheckoutRecord,
  paymentId: string,
  url: string,
  now: Date,
): Promise<boolean> {
  const payload: CallbackPayload = { checkoutId: checkout.id, url };
  return scheduleJob(db, { kind: CHECKOUT_NOTIFICATION, uniqueKey: `${CHECKOUT_NOTIFICATION}:${paymentId}`, runAt: now, payload }, now);
}

/**
 * The outbox subscriber behind notificationUrl: a checkout's payment that is final (at once, or after its
 * 3-D Secure challenge or provider page) schedules the call, in the transaction that records it.
 */
export const checkoutNotifications: EventSubscriber = async (tx, events) => {
  const final = events.filter((event) => event.type === 'PAYMENT' && event.payment?.checkoutId && event.payment.status !== 'pending');
  if (final.length === 0) return;
  // One read for the checkouts of a group-committed batch, not one per payment.
  const checkouts = new Map((await findCheckoutsById(tx, final.map((event) => event.payment?.checkoutId as string))).map((checkout) => [checkout.id, checkout]));
  for (const event of final) {
    const payment = event.payment as NonNullable<typeof event.payment>;
    const checkout = checkouts.get(payment.checkoutId as string);
    const url = checkout?.parameters.get('notificationUrl');
    if (checkout && url !== undefined) await scheduleNotification(tx, checkout, payment.id, url, event.createdAt);
  }
};

function payloadOf(job: ClaimedJob): CallbackPayload {
  const { checkoutId, url } = job.payload;
  if (typeof checkoutId !== 'string' || typeof url !== 'string') throw new PermanentJobError('malformed callback payload');
  return { checkoutId, url };
}

/** Why the call is no longer useful, or undefined when it should be sent. */
function skipReason(checkout: CheckoutRecord | undefined, kind: string, now: Date): string | undefined {
  if (!checkout || checkout.deletedAt) return 'checkout deleted';
  if (now.getTime() >= checkout.expiresAt.getTime()) return 'checkout expired';
  if (kind === SHOPPER_RESULT_CALL && checkout.resultReadAt) return 'merchant already read the result';
  return undefined;
}

/** Parses a callback URL; a URL no retry could fix is a PermanentJobError. */
function parseCallbackUrl(raw: string): URL {
  const checked = checkHttpUrl(raw);
  if (checked.ok) return checked.url;
  switch (checked.problem) {
    case 'notAbsolute':
      throw new PermanentJobError('the callback URL is not an absolute URL');
    case 'scheme':
      throw new PermanentJobError(`the callback URL must be http or https, not ${checked.scheme}`);
    case 'credentials':
      throw new PermanentJobError('the callback URL must not contain credentials');
  }
}

export interface CallbackOptions {
  readonly outboundTimeoutMs: number;
  readonly outbound: OutboundPolicy;
}

/** GETs the merchant's URL; anything but a 2xx (a redirect too: it is not followed) is a failed attempt. */
async function getMerchantUrl(target: URL, options: CallbackOptions, signal: AbortSignal): Promise<number> {
  let status: number;
  try {
    status = await sendOutbound(target, { method: 'GET', headers: { accept: '*/*' }, timeoutMs: options.outboundTimeoutMs, signal }, options.outbound);
  } catch (error) {
    if (error instanceof RefusedDestination) throw new PermanentJobError(error.message);
    throw error;
  }
  if (status < 200 || status > 299) {
    const redirect = status >= 300 && status < 400 ? ' (redirects are not followed)' : '';
    throw new Error(`GET ${describeUrl(target)} answered HTTP ${status}${redirect}`);
  }
  return status;
}

async function callMerchant(job: ClaimedJob, context: JobContext, options: CallbackOptions): Promise<void> {
  const { checkoutId, url } = payloadOf(job);
  const checkout = await findCheckout(context.store, checkoutId);
  const skipped = skipReason(checkout, job.kind, context.now());
  if (!checkout || skipped) {
    context.logger.info('checkout callback skipped', { kind: job.kind, checkoutId, reason: skipped });
    return;
  }
  const target = withQuery(parseCallbackUrl(url), { id: checkoutId, resourcePath: resultPathOf(checkoutId, checkoutKindOf(checkout)) });
  const status = await getMerchantUrl(target, options, context.signal);
  context.logger.info('checkout callback sent', { kind: job.kind, checkoutId, target: describeUrl(target), status });
}

export function checkoutJobHandlers(options: CallbackOptions): JobHandler[] {
  return [
    {
      kind: SHOPPER_RESULT_CALL,
      maxAttempts: SHOPPER_RESULT_CALL_ATTEMPTS,
      retryDelayMs: SHOPPER_RESULT_CALL_BACKOFF,
      run: (job, context) => callMerchant(job, context, options),
    },
    {
      kind: CHECKOUT_NOTIFICATION,
      maxAttempts: NOTIFICATION_ATTEMPTS,
      retryDelayMs: NOTIFICATION_BACKOFF,
      run: (job, context) => callMerchant(job, context, options),
    },
  ];
}
