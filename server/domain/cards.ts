/** Card number facts the gateway checks itself, whatever acquirer processes the payment. */

export function passesLuhn(number: string): boolean {
  if (!/^[0-9]{8,32}$/.test(number)) return false;
  let sum = 0;
  for (let i = 0; i < number.length; i++) {
    let digit = number.charCodeAt(number.length - 1 - i) - 48;
    if (i % 2 === 1) {
      digit *= 2;
      if (digit > 9) digit -= 9;
    }
    sum += digit;
  }
  return sum % 10 === 0;
}

interface BrandRule {
  readonly brand: string;
  readonly prefix: RegExp;
  readonly lengths: readonly number[];
  readonly cvvLength: number;
}

/** Issuer identification ranges of the card brands the simulator accepts; most specific first. */
const BRAND_RULES: readonly BrandRule[] = [
  { brand: 'AMEX', prefix: /^3[47]/, lengths: [15], cvvLength: 4 },
  { brand: 'DINERS', prefix: /^3(0[0-5]|[689])/, lengths: [14, 15, 16, 17, 18, 19], cvvLength: 3 },
  { brand: 'JCB', prefix: /^35(2[89]|[3-8])/, lengths: [16, 17, 18, 19], cvvLength: 3 },
  { brand: 'DISCOVER', prefix: /^(6011|64[4-9]|65)/, lengths: [16, 17, 18, 19], cvvLength: 3 },
  { brand: 'MAESTRO', prefix: /^(5018|5020|5038|5893|6304|6759|676[1-3])/, lengths: [12, 13, 14, 15, 16, 17, 18, 19], cvvLength: 3 },
  { brand: 'MASTER', prefix: /^(5[1-5]|2(2[2-9]|[3-6][0-9]|7[01]|720))/, lengths: [16], cvvLength: 3 },
  { brand: 'VISA', prefix: /^4/, lengths: [13, 16, 19], cvvLength: 3 },
];

/** The brand whose number range and length fit the card number, or undefined. */
export function detectBrand(number: string): string | undefined {
  return BRAND_RULES.find((rule) => rule.prefix.test(number) && rule.lengths.includes(number.length))?.brand;
}

export function cvvLengthOf(brand: string): number | undefined {
  return BRAND_RULES.find((rule) => rule.brand === brand)?.cvvLength;
}

/** A card is valid through the last day of its expiry month (UTC). */
export function isExpired(expiryMonth: number, expiryYear: number, now: Date): boolean {
  const firstDayAfterExpiry = Date.UTC(expiryYear, expiryMonth, 1);
  return now.getTime() >= firstDayAfterExpiry;
}
