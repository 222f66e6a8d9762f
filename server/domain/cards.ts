import { brandOfNumber, followsRules, rulesFor, type NumberRules } from '../../widget/shared/cards.ts';
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

export interface NumberCheck extends CardCheck {
  /** The rules the number follows under that brand, when it is one of its numbers. */
  readonly rules: NumberRules | undefined;
}

/**
 * Whether `number` is a card of the brand the merchant named (its own ranges or a network's it lives on), or of the
 * brand its digits show when none is named (COMPAT §7): a number the named brand does not issue but another does
 * is a brand mismatch; one no brand issues (a wrong length, a failed check digit where the brand has one) is invalid.
 */
export function checkNumber(number: string, requested: string | undefined): NumberCheck {
  const brand = requested ?? brandOfNumber(number);
  const rules = brand === undefined ? undefined : rulesFor(brand, number);
  if (rules === undefined) {
    const refusal = brand !== undefined && brandOfNumber(number) !== undefined ? RESULTS.cardBrandMismatch : RESULTS.invalidCard;
    return { brand, rules, refusal };
  }
  return { brand, rules, refusal: followsRules(rules, number) ? undefined : RESULTS.invalidCard };
}

/**
 * Whether a payment with this card must carry card.cvv: not for a brand without a CVV or with an optional one
 * (Bancontact, AirPlus, Maestro, V PAY...). Asked when the brand does not issue the number: that payment is refused.
 */
export function cvvAsked(number: string, requested: string | undefined): boolean {
  return (checkNumber(number, requested).rules?.cvv ?? 'required') === 'required';
}

/**
 * The gateway's own card checks, before any acquirer sees the card (COMPAT §7): the number (its brand's ranges,
 * length and check digit), the CVV's length for that brand (a parameter error; a brand without a CVV ignores one)
 * and the expiry.
 */
export function checkCard(card: CardData, cvv: string | undefined, requested: string | undefined, now: Date): CardCheck {
  const { brand, rules, refusal } = checkNumber(card.number, requested);
  if (refusal || !rules) return { brand, refusal: refusal ?? RESULTS.invalidCard };
  if (cvv !== undefined && rules.cvv !== 'none' && cvv.length !== rules.cvvLength) {
    throw invalidParameters([{ name: 'card.cvv', value: cvv, message: `must be ${rules.cvvLength} digits for ${brand}` }]);
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

/** The card as responses show it, fields in their documented order (jsonb does not keep key order). */
export function cardView(card: CardSummary): CardSummary {
  return {
    bin: card.bin,
    last4Digits: card.last4Digits,
    ...(card.holder !== undefined ? { holder: card.holder } : {}),
    expiryMonth: card.expiryMonth,
    expiryYear: card.expiryYear,
  };
}
