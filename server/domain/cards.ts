import { brandOfNumber, cvvLengthOf, passesLuhn } from '../../widget/shared/cards.ts';
import { invalidParameters } from './errors.ts';
import type { CardSummary } from './payment.ts';
import { RESULTS, type Result } from './resultCodes.ts';

/** Card number facts the gateway checks itself, whatever acquirer processes the payment (shared with the widget). */
export { brandOfNumber as detectBrand, cvvLengthOf, isCardBrand, passesLuhn } from '../../widget/shared/cards.ts';

/** A card is valid through the last day of its expiry month (UTC). */
export function isExpired(expiryMonth: number, expiryYear: number, now: Date): boolean {
  const firstDayAfterExpiry = Date.UTC(expiryYear, expiryMonth, 1);
  return now.getTime() >= firstDayAfterExpiry;
}

/** What the gateway's own checks look at: the number, the expiry and the holder a card is kept and shown with. */
export interface CardData {
  readonly number: string;
  readonly expiryMonth: number;
  readonly expiryYear: number;
  readonly holder: string | undefined;
}

export interface CardCheck {
  /** The brand the card is paid or stored under: the one the merchant named, else the one its number shows. */
  readonly brand: string | undefined;
  readonly refusal: Result | undefined;
}

/**
 * The gateway's own card checks, before any acquirer sees the card (COMPAT §7): the number (Luhn, a known brand),
 * the brand the merchant named, the CVV's length (a parameter error) and the expiry.
 */
export function checkCard(card: CardData, cvv: string | undefined, requested: string | undefined, now: Date): CardCheck {
  const detected = brandOfNumber(card.number);
  const brand = requested ?? detected;
  if (!passesLuhn(card.number) || detected === undefined) return { brand, refusal: RESULTS.invalidCard };
  if (requested !== undefined && requested !== detected) return { brand, refusal: RESULTS.cardBrandMismatch };
  const cvvLength = cvvLengthOf(detected);
  if (cvv !== undefined && cvvLength !== undefined && cvv.length !== cvvLength) {
    throw invalidParameters([{ name: 'card.cvv', value: cvv, message: `must be ${cvvLength} digits for ${detected}` }]);
  }
  return { brand, refusal: isExpired(card.expiryMonth, card.expiryYear, now) ? RESULTS.cardExpired : undefined };
}

/** What is kept and shown of a card: the first six and last four digits, the holder and the expiry. */
export function summaryOf(card: CardData): CardSummary {
  return {
    bin: card.number.slice(0, 6),
    last4Digits: card.number.slice(-4),
    ...(card.holder !== undefined ? { holder: card.holder } : {}),
    expiryMonth: String(card.expiryMonth).padStart(2, '0'),
    expiryYear: String(card.expiryYear),
  };
}
