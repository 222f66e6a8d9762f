/**
 * Payments that await their acquirer's final word (issue 33) while their attempt stays open: the acquirer answered
 * pending (its 3-D Secure challenge, its provider's page, money to come), or its answer was lost after the request was
 * sent. Either way the payment is recorded pending (authorize.ts awaitingWrite), the merchant is told so, and the
 * recovery (recovery.ts) asks the acquirer on the schedule below until it knows — the shopper's return and the
 * provider's notification (providerWord.ts) usually tell it sooner. Nothing is ever sent again for such an attempt.
 */

/** The first inquiry after a pending answer: by then a shopper who went to the acquirer's page is back or gone. */
const PENDING_FIRST_INQUIRY_MS = 15 * 60_000;
/** Pending answers are asked about again at most this far apart (a voucher paid days later, a transfer). */
const PENDING_MAX_INTERVAL_MS = 6 * 60 * 60_000;
/** The first inquiry after a lost answer: the recovery's next round. */
const UNKNOWN_FIRST_INQUIRY_MS = 60_000;
/** Lost answers are asked about again at most this far apart. */
const UNKNOWN_MAX_INTERVAL_MS = 30 * 60_000;

/** Why an attempt awaits: its acquirer answered pending, or its answer is unknown. */
export type AwaitReason = 'pending' | 'unknown';

/** When to ask about an awaiting attempt next, after `inquiries` inquiries: doubling from the first, up to the cap. */
export function nextInquiryAt(now: Date, reason: AwaitReason, inquiries: number): Date {
  const [first, cap] = reason === 'pending' ? [PENDING_FIRST_INQUIRY_MS, PENDING_MAX_INTERVAL_MS] : [UNKNOWN_FIRST_INQUIRY_MS, UNKNOWN_MAX_INTERVAL_MS];
  return new Date(now.getTime() + Math.min(cap, first * 2 ** Math.min(inquiries, 16)));
}
