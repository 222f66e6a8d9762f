import { randomUUID } from 'node:crypto';
import type { GatewayEnvironment } from '../config.ts';
import type { PaymentStatus } from '../domain/payment.ts';

/**
 * What a checkout is at a given moment, derived from its row, its attempts and the clock (pure: no I/O).
 *
 *   open ──submit──▶ in progress ──declined──▶ open (the shopper may retry)
 *                              └──approved──▶ paid
 *   open / paid ──merchant reads a final result──▶ result read      (one-shot, COMPAT §2)
 *   any ──30 minutes after creation──▶ expired;  any ──DELETE──▶ gone (as if unknown)
 */

export const CHECKOUT_LIFETIME_MS = 30 * 60_000;
/** Doc 1 §3 rule 3: the gateway's own call to shopperResultUrl, counted from creation. */
export const SHOPPER_RESULT_CALL_AFTER_MS = 29 * 60_000;
/**
 * How long a submit whose payment is not recorded yet counts as in progress, when nothing says whether the
 * instance making it is still alive (service.ts releases the attempt of a dead instance at once). Past it the
 * attempt is ignored, so the shopper is not locked out for the checkout's whole life.
 */
export const ATTEMPT_LEASE_MS = 2 * 60_000;

/** The suffix names the cluster, as the platform's ids do; merchants match only the overall shape. */
export function newCheckoutId(environment: GatewayEnvironment): string {
  const suffix = environment === 'live' ? 'prod01-gw01' : 'sbx01-gw01';
  return `${randomUUID().replace(/-/g, '').toUpperCase()}.${suffix}`;
}

/**
 * What a checkout makes, fixed when it is created: a payment, or (created with createRegistration=true and no
 * paymentType, COMPAT §10) a registration of the shopper's card. Its widget, submit and result use the kind's path.
 */
export type CheckoutKind = 'payment' | 'registration';

/** The kind a checkout was created as: its widget snapshot has no payment type when it is registration-only. */
export function checkoutKindOf(checkout: { readonly bootstrap: { readonly paymentType: string | null } }): CheckoutKind {
  return checkout.bootstrap.paymentType === null ? 'registration' : 'payment';
}

/** `/v1/checkouts/<id>/payment` or `/v1/checkouts/<id>/registration`: where its submit goes and its result is read. */
export function resultPathOf(checkoutId: string, kind: CheckoutKind): string {
  return `/v1/checkouts/${checkoutId}/${kind}`;
}

export interface CheckoutTimes {
  readonly expiresAt: Date;
  readonly deletedAt: Date | null;
  readonly resultReadAt: Date | null;
}

/** One shopper submit: its payment once recorded (recorded false while it is being made). */
export interface CheckoutAttempt {
  readonly attempt: number;
  readonly paymentId: string;
  readonly startedAt: Date;
  /** The gateway instance making the payment (null for attempts recorded before instances were). */
  readonly instanceId: string | null;
  readonly recorded: boolean;
  /** The state of its payment, once recorded. */
  readonly status: PaymentStatus | null;
}

export type CheckoutState =
  | { readonly kind: 'gone' }
  | { readonly kind: 'expired' }
  | { readonly kind: 'resultRead' }
  | { readonly kind: 'paid'; readonly paymentId: string }
  /** A submit is being processed, or its payment is pending (e.g. awaiting 3-D Secure). */
  | { readonly kind: 'inProgress'; readonly pendingPaymentId: string | undefined }
  /** Payable; `lastResultPaymentId` is the latest declined attempt, if any, of `declinedPayments` so far. */
  | { readonly kind: 'open'; readonly lastResultPaymentId: string | undefined; readonly declinedPayments: number };

/** `attempts` newest first. */
export function checkoutState(checkout: CheckoutTimes, attempts: readonly CheckoutAttempt[], now: Date): CheckoutState {
  if (checkout.deletedAt) return { kind: 'gone' };
  if (checkout.resultReadAt) return { kind: 'resultRead' };
  if (now.getTime() >= checkout.expiresAt.getTime()) return { kind: 'expired' };
  const approved = attempts.find((attempt) => attempt.status === 'approved');
  if (approved) return { kind: 'paid', paymentId: approved.paymentId };
  const live = attempts.filter((attempt) => attempt.recorded || now.getTime() - attempt.startedAt.getTime() < ATTEMPT_LEASE_MS);
  const latest = live[0];
  if (latest && !latest.recorded) return { kind: 'inProgress', pendingPaymentId: undefined };
  if (latest && latest.status === 'pending') {
    return { kind: 'inProgress', pendingPaymentId: latest.paymentId };
  }
  const declinedPayments = attempts.filter((attempt) => attempt.status === 'declined').length;
  return { kind: 'open', lastResultPaymentId: latest?.paymentId, declinedPayments };
}
