/** Card number facts the gateway checks itself, whatever acquirer processes the payment (shared with the widget). */
export { brandOfNumber as detectBrand, cvvLengthOf, isCardBrand, passesLuhn } from '../../widget/shared/cards.ts';

/** A card is valid through the last day of its expiry month (UTC). */
export function isExpired(expiryMonth: number, expiryYear: number, now: Date): boolean {
  const firstDayAfterExpiry = Date.UTC(expiryYear, expiryMonth, 1);
  return now.getTime() >= firstDayAfterExpiry;
}
