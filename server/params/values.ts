/**
 * Reading parameter values the catalogue has checked. Booleans arrive as true/false from most clients and as 1/0
 * from PHP clients (http_build_query turns PHP's true into 1): both mean the same.
 */
export function isTrue(value: string | undefined): boolean {
  return value === 'true' || value === '1';
}

/** paymentBrand as clients spell it, mapped to the brand codes of the API (COMPAT §10: ActiveMerchant upper-cases its own names). */
const BRAND_ALIASES: Readonly<Record<string, string>> = { AMERICAN_EXPRESS: 'AMEX', DINERS_CLUB: 'DINERS' };

export function brandCode(brand: string | undefined): string | undefined {
  return brand === undefined ? undefined : (BRAND_ALIASES[brand] ?? brand);
}

/** Whether any parameter's name starts with `prefix` (a group of the spec used: `bankAccount.`, `tokenAccount.`). */
export function anyWithPrefix(params: ReadonlyMap<string, string>, prefix: string): boolean {
  for (const name of params.keys()) if (name.startsWith(prefix)) return true;
  return false;
}
