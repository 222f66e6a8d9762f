/**
 * IBAN rules both sides check (ISO 13616): the widget while the shopper types a SEPA account, the gateway before an
 * acquirer sees it (COMPAT §16: a checksum failure answers 400 `100.100.101`). Pure, no dependencies.
 *
 * An IBAN is a country code (2 letters), 2 check digits and the country's BBAN, its total length fixed per country
 * (SWIFT's IBAN registry). The check: move the first 4 characters to the end, replace every letter by its number
 * (A = 10 … Z = 35), and the resulting integer mod 97 must be 1.
 */

/** Total IBAN length per country of the SWIFT IBAN registry (SEPA countries and the others that issue IBANs). */
export const IBAN_LENGTHS: Readonly<Record<string, number>> = {
  AD: 24, AE: 23, AL: 28, AT: 20, AZ: 28, BA: 20, BE: 16, BG: 22, BH: 22, BI: 27, BR: 29, BY: 28, CH: 21, CR: 22,
  CY: 28, CZ: 24, DE: 22, DJ: 27, DK: 18, DO: 28, EE: 20, EG: 29, ES: 24, FI: 18, FK: 18, FO: 18, FR: 27, GB: 22,
  GE: 22, GI: 23, GL: 18, GR: 27, GT: 28, HR: 21, HU: 28, IE: 22, IL: 23, IQ: 23, IS: 26, IT: 27, JO: 30, KW: 30,
  KZ: 20, LB: 28, LC: 32, LI: 21, LT: 20, LU: 20, LV: 21, LY: 25, MC: 27, MD: 24, ME: 22, MK: 19, MN: 20, MR: 27,
  MT: 31, MU: 30, NI: 28, NL: 18, NO: 15, OM: 23, PK: 24, PL: 28, PS: 29, PT: 25, QA: 29, RO: 24, RS: 22, RU: 33,
  SA: 24, SC: 31, SD: 18, SE: 24, SI: 19, SK: 24, SM: 27, SO: 23, ST: 25, SV: 28, TL: 23, TN: 24, TR: 26, UA: 29,
  VA: 22, VG: 24, XK: 20, YE: 30,
};

/** What a shopper typed, as the IBAN is sent: spaces (and other separators people type) removed, letters uppercase. */
export function normalizeIban(input: string): string {
  return input.replace(/[\s\-.]+/g, '').toUpperCase();
}

/** The country code of a normalized IBAN, or undefined when it does not start with two letters. */
export function ibanCountry(iban: string): string | undefined {
  return /^[A-Z]{2}/.test(iban) ? iban.slice(0, 2) : undefined;
}

/** The expected total length for a normalized IBAN's country, or undefined for a country that issues no IBAN. */
export function ibanLength(iban: string): number | undefined {
  const country = ibanCountry(iban);
  return country !== undefined && Object.prototype.hasOwnProperty.call(IBAN_LENGTHS, country) ? IBAN_LENGTHS[country] : undefined;
}

/** ISO 7064 MOD 97-10 over the rearranged IBAN, computed in chunks so no number exceeds 2^53. */
function mod97(iban: string): number {
  const rearranged = iban.slice(4) + iban.slice(0, 4);
  let remainder = 0;
  for (const char of rearranged) {
    const code = char.charCodeAt(0);
    // '0'..'9' → 0..9, 'A'..'Z' → 10..35 (two digits, so the remainder is shifted by 100).
    if (code >= 48 && code <= 57) remainder = (remainder * 10 + (code - 48)) % 97;
    else remainder = (remainder * 100 + (code - 55)) % 97;
  }
  return remainder;
}

/**
 * True when `iban` (already normalized: uppercase, no spaces) is a valid IBAN: a known country, that country's
 * length, only letters and digits, and the mod-97 checksum.
 */
export function isValidIban(iban: string): boolean {
  if (!/^[A-Z]{2}[0-9]{2}[A-Z0-9]+$/.test(iban)) return false;
  if (ibanLength(iban) !== iban.length) return false;
  return mod97(iban) === 1;
}
