import { cvvLengthOf as brandCvvLength, isCardBrand } from '../../shared/cards.ts';

/**
 * The stored cards a checkout offers for one-click payment: `wpwl.checkout.config.registrations`, written
 * by paymentWidgets.js from the checkout's `registrations[n].id` (in index order) as
 * `{id, brand, last4Digits, expiryMonth, expiryYear, holder?}`. The widget shows only what passes these
 * checks; an entry without a usable id is left out, other bad values are shown as unknown.
 */

export interface StoredCard {
  readonly id: string;
  /** A card brand code (VISA, MASTER...), or '' when unknown. */
  readonly brand: string;
  /** Four digits, or ''. */
  readonly last4: string;
  /** Two digits, 01-12, or ''. */
  readonly expiryMonth: string;
  /** Four digits, or ''. */
  readonly expiryYear: string;
  readonly holder: string;
}

const isObject = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null && !Array.isArray(value);
const matching = (value: unknown, pattern: RegExp): string => (typeof value === 'string' && pattern.test(value) ? value : '');

export function storedCardsOf(registrations: unknown): StoredCard[] {
  if (!Array.isArray(registrations)) return [];
  const cards: StoredCard[] = [];
  for (const entry of registrations) {
    // Older bootstraps listed the ids only.
    const item: Record<string, unknown> = isObject(entry) ? entry : { id: entry };
    const id = matching(item.id, /^[0-9A-Za-z]{1,64}$/);
    if (id === '' || cards.some((card) => card.id === id)) continue;
    const brand = typeof item.brand === 'string' ? item.brand.toUpperCase() : '';
    cards.push({
      id,
      brand: isCardBrand(brand) ? brand : '',
      last4: matching(item.last4Digits, /^\d{4}$/),
      expiryMonth: matching(item.expiryMonth, /^(0[1-9]|1[0-2])$/),
      expiryYear: matching(item.expiryYear, /^\d{4}$/),
      holder: typeof item.holder === 'string' ? item.holder.trim().slice(0, 128) : '',
    });
  }
  return cards;
}

/** MM/YY, as on the card; '' when the expiry is unknown. */
export function expiryOf(card: StoredCard): string {
  return card.expiryMonth && card.expiryYear ? `${card.expiryMonth}/${card.expiryYear.slice(2)}` : '';
}

/** How many digits the card's CVV has (4 for American Express). */
export function cvvLengthOf(card: StoredCard): number {
  return brandCvvLength(card.brand) ?? 3;
}
