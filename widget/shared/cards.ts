/**
 * The card brands of the API (`paymentBrand`) and the rules both sides check: the widget to detect a brand while the
 * shopper types and to validate the number and CVV, the gateway before any acquirer sees a card. One table, so the
 * widget never offers a brand the gateway refuses. Issuer ranges follow the `credit-card-type` package (MIT), which
 * the widget used before this table, with the gateway's 13-digit Visa numbers.
 */

import { BIN_DIGITS } from './protocol.ts';

export { passesLuhn } from './luhn.ts';

/** A prefix, or a range of prefixes of the same length: [low, high]. */
export type IssuerPattern = number | readonly [number, number];

export interface CardBrand {
  /** The API's paymentBrand. */
  readonly code: string;
  /** The name a shopper knows (the logo's accessible name, the brand list). */
  readonly label: string;
  readonly patterns: readonly IssuerPattern[];
  readonly lengths: readonly number[];
  readonly cvvLength: number;
}

export const CARD_BRANDS: readonly CardBrand[] = [
  { code: 'VISA', label: 'Visa', patterns: [4], lengths: [13, 16, 18, 19], cvvLength: 3 },
  {
    code: 'MASTER',
    label: 'Mastercard',
    patterns: [[51, 55], [2221, 2229], [223, 229], [23, 26], [270, 271], 2720],
    lengths: [16],
    cvvLength: 3,
  },
  { code: 'AMEX', label: 'American Express', patterns: [34, 37], lengths: [15], cvvLength: 4 },
  { code: 'DINERS', label: 'Diners Club', patterns: [[300, 305], 36, 38, 39], lengths: [14, 15, 16, 17, 18, 19], cvvLength: 3 },
  { code: 'DISCOVER', label: 'Discover', patterns: [6011, [644, 649], 65], lengths: [16, 17, 18, 19], cvvLength: 3 },
  { code: 'JCB', label: 'JCB', patterns: [2131, 1800, [3528, 3589]], lengths: [16, 17, 18, 19], cvvLength: 3 },
  {
    code: 'UNIONPAY',
    label: 'UnionPay',
    patterns: [
      620, [62100, 62182], [62184, 62187], [62185, 62197], [62200, 62205], [622010, 622999], 622018, [62207, 62209],
      [623, 626], 6270, 6272, 6276, [627700, 627779], [627781, 627799], [6282, 6289], 6291, 6292, 810, [8110, 8131],
      [8132, 8151], [8152, 8163], [8164, 8171],
    ],
    lengths: [14, 15, 16, 17, 18, 19],
    cvvLength: 3,
  },
  {
    code: 'MAESTRO',
    label: 'Maestro',
    patterns: [493698, [500000, 504174], [504176, 506698], [506779, 508999], [56, 59], 63, 67, 6],
    lengths: [12, 13, 14, 15, 16, 17, 18, 19],
    cvvLength: 3,
  },
  {
    code: 'ELO',
    label: 'Elo',
    patterns: [
      401178, 401179, 438935, 457631, 457632, 431274, 451416, 457393, 504175, [506699, 506778], [509000, 509999], 627780,
      636297, 636368, [650031, 650033], [650035, 650051], [650405, 650439], [650485, 650538], [650541, 650598],
      [650700, 650718], [650720, 650727], [650901, 650978], [651652, 651679], [655000, 655019], [655021, 655058],
    ],
    lengths: [16],
    cvvLength: 3,
  },
  { code: 'MIR', label: 'Mir', patterns: [[2200, 2204]], lengths: [16, 17, 18, 19], cvvLength: 3 },
  { code: 'HIPERCARD', label: 'Hipercard', patterns: [606282], lengths: [16], cvvLength: 3 },
];

const BY_CODE: ReadonlyMap<string, CardBrand> = new Map(CARD_BRANDS.map((brand) => [brand.code, brand]));

export function cardBrand(code: string): CardBrand | undefined {
  return BY_CODE.get(code);
}

export function isCardBrand(code: string): boolean {
  return BY_CODE.has(code);
}

export function cvvLengthOf(code: string): number | undefined {
  return BY_CODE.get(code)?.cvvLength;
}


/**
 * How specifically `digits` (a whole number, or the first digits typed so far) fits a pattern: the pattern's
 * length in digits, or 0 when it does not fit. Fewer digits than the pattern fit when they could still become it.
 */
function fit(digits: string, pattern: IssuerPattern): number {
  if (typeof pattern === 'number') {
    const prefix = String(pattern);
    return prefix.startsWith(digits.slice(0, prefix.length)) ? prefix.length : 0;
  }
  const [low, high] = pattern.map(String) as [string, string];
  const head = digits.slice(0, low.length);
  const value = Number(head);
  return value >= Number(low.slice(0, head.length)) && value <= Number(high.slice(0, head.length)) ? low.length : 0;
}

function specificity(digits: string, brand: CardBrand): number {
  return Math.max(0, ...brand.patterns.map((pattern) => fit(digits, pattern)));
}

/** The brands `digits` (the first digits of a number) may belong to, most specific first (ties in table order). */
export function brandsMatching(digits: string): CardBrand[] {
  if (!/^[0-9]+$/.test(digits)) return [];
  return CARD_BRANDS.map((brand) => ({ brand, strength: specificity(digits, brand) }))
    .filter(({ strength }) => strength > 0)
    .sort((a, b) => b.strength - a.strength)
    .map(({ brand }) => brand);
}

/**
 * The brand of a card number of `length` digits beginning with `bin` (its first BIN_DIGITS digits): the most specific
 * issuer range among brands issuing numbers of that length.
 */
export function brandOfBinAndLength(bin: string, length: number): string | undefined {
  return brandsMatching(bin).find((brand) => brand.lengths.includes(length))?.code;
}

/** The brand of a whole card number. */
export function brandOfNumber(number: string): string | undefined {
  return brandOfBinAndLength(number.slice(0, BIN_DIGITS), number.length);
}
