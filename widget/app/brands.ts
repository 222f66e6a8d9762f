import { brandsMatching, CARD_BRANDS as BRAND_TABLE, type CardBrand } from '../shared/cards.ts';

/** The card brands by code (label, rules), from the table the gateway checks cards against. */
export const CARD_BRANDS: Readonly<Record<string, CardBrand>> = Object.fromEntries(BRAND_TABLE.map((brand) => [brand.code, brand]));

/**
 * The offered brands whose own ranges the card number's first digits fit, most specific first (a local brand before
 * the network it is co-badged on), ordered by the merchant's brandDetectionPriority where it names them. Brands that
 * live on their networks' cards only (FACILYPAY_*, VPAY...) are never detected: the shopper selects them.
 * `matching`, when given, is what the digits fit (the gateway's BIN list: `brandDetectionType: 'binlist'`), most
 * specific first, in place of the brand table's ranges.
 */
export function detectBrands(bin: string, offered: readonly string[], priority: readonly string[], matching?: readonly string[]): string[] {
  if (bin === '') return [];
  const detected: readonly string[] = matching ?? brandsMatching(bin).map((brand) => brand.code);
  const rank = (brand: string) => {
    const position = priority.indexOf(brand);
    return position === -1 ? priority.length + detected.indexOf(brand) : position;
  };
  return offered.filter((brand) => detected.includes(brand)).sort((a, b) => rank(a) - rank(b));
}
