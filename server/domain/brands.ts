import { ASYNC_BRANDS } from '../../widget/shared/asyncBrands.ts';
import { CARD_BRANDS } from '../../widget/shared/cards.ts';
import { DIRECT_DEBIT_BRANDS } from '../../widget/shared/directDebit.ts';
import { VIRTUAL_ACCOUNT_BRANDS, WALLETS } from './instrumentBrands.ts';

/**
 * Every paymentBrand the gateway knows (COMPAT §7): the card brands, the asynchronous brands, SEPA direct debit, the
 * wallets and the virtual accounts paid without a redirect. A brand outside it is not a payment method at all
 * (600.200.100); one inside it that an entity does not offer is not configured for it (600.200.201).
 */
export const KNOWN_BRANDS: readonly string[] = [
  ...CARD_BRANDS.map((brand) => brand.code),
  ...Object.keys(ASYNC_BRANDS),
  ...DIRECT_DEBIT_BRANDS,
  ...Object.keys(WALLETS),
  ...Object.keys(VIRTUAL_ACCOUNT_BRANDS),
];

const KNOWN: ReadonlySet<string> = new Set(KNOWN_BRANDS);

export function isKnownBrand(brand: string): boolean {
  return KNOWN.has(brand);
}

/**
 * What an entity offers when the operator has not said: every brand the gateway knows — in test the simulators stand
 * in for every provider, in live the connectors' providers run them (and refuse, with their own code, a brand they do
 * not run for the merchant).
 */
export function defaultOfferedBrands(): readonly string[] {
  return KNOWN_BRANDS;
}
