import { isChargebackCode, isPendingCode, isSuccessfulCode, RESULT_CLASSES } from '../../widget/shared/resultCodes.ts';
import type { PaymentStatus } from './payment.ts';

/**
 * A payment's state, decided here and nowhere else. A transaction is written with the state its result puts it in,
 * and changes state at most once, from pending to final:
 *
 *   (new) ──result: success or success-review──▶ approved      PAYMENT CREATED
 *         ├─result: pending or long pending────▶ pending       PAYMENT CREATED
 *         └─any other result──────────────────▶ declined      PAYMENT CREATED
 *   pending ──the shopper's page or its timeout, the acquirer's final word──▶ approved | declined   PAYMENT UPDATED
 *
 * What happened to a payment afterwards (captured, refunded, reversed) is not a state of its own row: it is the sum of
 * its approved children (domain/backOffice.ts), so it can never disagree with them.
 */

/** The state a result code puts a transaction in (COMPAT §8 classes, widget/shared/resultCodes.ts). */
export function statusOfResult(code: string): PaymentStatus {
  // A chargeback (000.100.2xx, its reason) is a recorded fact, like an approved operation (COMPAT §15).
  if (isSuccessfulCode(code) || isChargebackCode(code)) return 'approved';
  // A provider's "waiting for a non-instant payment" (COMPAT §8 long pending) is no decline: its final word follows.
  if (isPendingCode(code) || RESULT_CLASSES.longPending.test(code)) return 'pending';
  return 'declined';
}

/** The only transitions there are: a pending payment becomes final. */
export function canBecome(from: PaymentStatus, to: PaymentStatus): boolean {
  return from === 'pending' && to !== 'pending';
}

/** The event a payment's change emits: CREATED when it is written, UPDATED when it becomes final (diagram above). */
export type PaymentEventAction = 'CREATED' | 'UPDATED';

/** A payment with the result that decides it, and the state that result puts it in. */
export function withResult<P extends { readonly resultCode: string; readonly resultDescription: string; readonly status: PaymentStatus }>(
  payment: P,
  result: { readonly code: string; readonly description: string },
): P {
  return { ...payment, resultCode: result.code, resultDescription: result.description, status: statusOfResult(result.code) };
}
