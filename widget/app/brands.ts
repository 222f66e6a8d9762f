import { brandsMatching, CARD_BRANDS as BRAND_TABLE, type CardBrand } from '../shared/cards.ts';

/** The card brands by code (label, CVV length), from the table the gateway checks cards against. */
export const CARD_BRANDS: Readonly<Record<string, CardBrand>> = Object.fromEntries(BRAND_TABLE.map((brand) => [brand.code, brand]));

/**
 * The offered brands that match the card number's first digits, most likely first, ordered by the
 * merchant's brandDetectionPriority where it names them.
 */
export function detectBrands(bin: string, offered: readonly string[], priority: readonly string[]): string[] {
  if (bin === '') return [];
  const detected = brandsMatching(bin).map((brand) => brand.code);
  const rank = (brand: string) => {
    const position = priority.indexOf(brand);
    return position === -1 ? priority.length + detected.indexOf(brand) : position;
  };
  return offered.filter((brand) => detected.includes(brand)).sort((a, b) => rank(a) - rank(b));
}
