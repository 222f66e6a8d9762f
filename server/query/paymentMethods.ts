import { ASYNC_BRANDS } from '../../widget/shared/asyncBrands.ts';
import { SEPA_BRAND, VIRTUAL_ACCOUNT_BRANDS, WALLETS } from '../domain/instruments.ts';
import { paymentMethodOf } from '../payments/view.ts';

/**
 * The query's paymentMethods filter (doc 3 §2.16) as brands: a payment's method is derived from its brand by
 * paymentMethodOf (payments/view.ts, what notifications carry), so the filter asks for the brands whose method was
 * asked for. Every brand that is not a card's is listed by its catalogue; a card is any other brand (or none), so CC
 * is "not one of those".
 */

const NON_CARD_CANDIDATES = [SEPA_BRAND, ...Object.keys(WALLETS), ...Object.keys(VIRTUAL_ACCOUNT_BRANDS), ...Object.keys(ASYNC_BRANDS)];
const CARD_METHOD = paymentMethodOf(null);

/** The brands of each method other than cards' (CC). */
const BRANDS_BY_METHOD: ReadonlyMap<string, readonly string[]> = (() => {
  const byMethod = new Map<string, string[]>();
  for (const brand of new Set(NON_CARD_CANDIDATES)) {
    const method = paymentMethodOf(brand);
    if (method === CARD_METHOD) continue;
    byMethod.set(method, [...(byMethod.get(method) ?? []), brand]);
  }
  return byMethod;
})();

const NON_CARD_BRANDS: readonly string[] = [...BRANDS_BY_METHOD.values()].flat();

export interface BrandFilter {
  /** Brands of the methods asked for. */
  readonly brands: readonly string[];
  /** Cards asked for too: also any brand not in `nonCardBrands`, and no brand. */
  readonly cards: boolean;
  readonly nonCardBrands: readonly string[];
}

export function brandFilterOf(methods: readonly string[]): BrandFilter {
  return {
    brands: methods.flatMap((method) => BRANDS_BY_METHOD.get(method) ?? []),
    cards: methods.includes(CARD_METHOD),
    nonCardBrands: NON_CARD_BRANDS,
  };
}
