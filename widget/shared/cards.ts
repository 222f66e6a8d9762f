/**
 * The platform's card-brand catalogue (COMPAT §7) and the rules both sides check: the widget to detect a brand while
 * the shopper types and to validate the number and CVV, the gateway before any acquirer sees a card. One table, so
 * the widget never offers a brand the gateway refuses. A brand's record mirrors the platform's per-brand validation
 * record (issuer ranges, lengths, Luhn flag, CVV length and whether a CVV is asked), plus the networks it lives on.
 * Ranges: the `credit-card-type` package (MIT) for the schemes, scheme and acquirer publications for the local brands
 * (research: card-brands.md of issue 20). The test numbers are in cardTestNumbers.ts (the widget does not ship them).
 */

import type { CardBrandCode } from './cardBrandCodes.ts';
import { passesLuhn } from './luhn.ts';

export { isCardBrand } from './cardBrandCodes.ts';
export type { CardBrandCode } from './cardBrandCodes.ts';
export { passesLuhn };

/** A prefix, or a range of prefixes of the same length: [low, high]. */
export type IssuerPattern = number | readonly [number, number];

/** Whether a payment asks for the CVV: the platform's REQUIRED, OPTIONAL (optionalCvv) and NONE (noCvv). */
export type CvvMode = 'required' | 'optional' | 'none';

/** How a brand's numbers are written and checked. Unset: 16 digits, Luhn, a 3-digit CVV that is required. */
interface NumberFormat {
  /** The issuer ranges of the brand's own cards; none for a brand that lives on its networks' cards only. */
  readonly patterns?: readonly IssuerPattern[];
  readonly lengths?: readonly number[];
  readonly luhn?: false;
  readonly cvvLength?: number;
  readonly cvv?: 'optional' | 'none';
}

interface BrandRecord extends NumberFormat {
  /** The name a shopper knows, where it is not the code in title case (Dankort). */
  readonly label?: string;
  /**
   * The networks whose cards also carry the brand (a co-badged local brand, a bank's programme, a product): named by
   * the merchant or the shopper, the brand accepts any number of theirs, in their format. Its own ranges inside
   * theirs (issuer BINs) are detected among the brands a form offers, where the shopper or brandDetectionPriority
   * chooses; a number nobody names a brand for is paid as the network.
   */
  readonly networks?: readonly CardBrandCode[];
  /** A second kind of card of the brand, with its own format (shorter legacy numbers without Luhn or CVV). */
  readonly also?: NumberFormat;
}

export interface CardBrand extends BrandRecord {
  /** The API's paymentBrand. */
  readonly code: CardBrandCode;
  /** The name a shopper knows (the logo's accessible name, the brand list). */
  readonly label: string;
}

/** The rules a number follows under a brand. */
export interface NumberRules {
  readonly lengths: readonly number[];
  readonly luhn: boolean;
  readonly cvvLength: number;
  readonly cvv: CvvMode;
}

const VISA_MASTER: readonly CardBrandCode[] = ['VISA', 'MASTER'];
/** Oney's instalment products on an ordinary card: chosen by the shopper, never found from a number. */
const FACILYPAY: BrandRecord = { label: 'Oney', networks: VISA_MASTER };

/** In table order, which decides between equally specific ranges: local brands, products, closed schemes, networks. */
const TABLE: Readonly<Record<CardBrandCode, BrandRecord>> = {
  // Saudi domestic scheme, co-badged on Visa and Mastercard: Amazon Payment Services' MADA_BINS (four of 8 digits).
  MADA: {
    label: 'mada',
    patterns: [
      403024, 406136, 406996, 407197, 407395, 407520, 409201, 410621, 410685, 410834, 412565, 417633, 419593, 420132, 421141,
      [422817, 422819], 428331, [428671, 428673], 431361, 432328, 434107, 439954, 440533, 440647, 440795, 442463, 445564,
      446393, 446404, 446672, 455036, 455708, 457865, 457997, 458456, 462220, [468540, 468543], 474491, [483010, 483012],
      484783, [486094, 486096], [489318, 489319], 504300, 513213, 520058, 521076, 524130, 524514, 529415, 529741, 530060,
      531196, 535825, 535989, 536023, 537767, 543085, 543357, 549760, 554180, 558563, 588845, 588848, 588850, 589206,
      604906, 605141, 636120, [968201, 968209], 968211, 242030, 22337902, 22337986, 22402030, 42689700,
    ],
    networks: VISA_MASTER,
  },
  // French domestic scheme on Visa and Mastercard cards of French issuers (a few issuer BINs as seeds).
  CARTEBANCAIRE: { label: 'Carte Bancaire', patterns: [403550, 436000, 497010], networks: VISA_MASTER },
  // Its historic Visa brand; the platform's own SDK tests it with a Mastercard number.
  CARTEBLEUE: { label: 'Carte Bleue', networks: VISA_MASTER },
  // Danish debit; 4571 is Visa/Dankort. 5019 is written as 6 digits to be as specific as Maestro's 500000-504174.
  DANKORT: { patterns: [[501900, 501999], 4571] },
  // Bancontact: no CVV; also co-badged on Visa and Mastercard debit cards.
  BCMC: { label: 'Bancontact', patterns: [6703, 479658, 606005], lengths: [16, 17, 18, 19], cvv: 'none', networks: VISA_MASTER },
  ELO: {
    patterns: [
      401178, 401179, 438935, 457631, 457632, 431274, 451416, 457393, 504175, [506699, 506778], [509000, 509999], 627780,
      636297, 636368, [650031, 650033], [650035, 650051], [650405, 650439], [650485, 650538], [650541, 650598],
      [650700, 650718], [650720, 650727], [650901, 650978], [651652, 651679], [655000, 655019], [655021, 655058],
    ],
  },
  HIPERCARD: { patterns: [606282] },
  // Argentina (Mercado Pago's payment methods): Naranja numbers have no check digit.
  NARANJA: { patterns: [589562], luhn: false },
  CABAL: { patterns: [627170, 589657, 603522, [604201, 604400]] },
  CENCOSUD: { patterns: [603493, 519767] },
  TARJETASHOPPING: { label: 'Tarjeta Shopping', patterns: [603488], also: { patterns: [27995], lengths: [13], luhn: false, cvv: 'none' } },
  ARGENCARD: { patterns: [501105] },
  NATIVA: { patterns: [520053, 546553, 554472, 531847, 527601, 487017] },
  // Mexico (Prosa): one known issuer BIN.
  CARNET: { patterns: [506221] },
  // Turkish banks' card programmes on Visa, Mastercard (and Amex) cards: the banks' test BINs as seeds.
  AXESS: { patterns: [435508, 557113], networks: VISA_MASTER },
  BONUS: { patterns: [409070, 428220, 472915], networks: ['VISA', 'MASTER', 'AMEX'] },
  WORLD: { patterns: [450634], networks: VISA_MASTER },
  MAXIMUM: { patterns: [450803, 540667], networks: VISA_MASTER },
  CARDFINANS: { label: 'CardFinans', patterns: [402277, 545616], networks: VISA_MASTER },
  ASYACARD: { label: 'Asya Card', patterns: [402275], networks: VISA_MASTER },
  // Visa and Mastercard products: Electron's classic prefixes; the others are told apart by a BIN list only.
  VISAELECTRON: { label: 'Visa Electron', patterns: [4026, 417500, 4405, 4508, 4844, 4913, 4917], networks: ['VISA'] },
  VPAY: { label: 'V PAY', cvv: 'optional', networks: ['VISA'] },
  VISADEBIT: { label: 'Visa Debit', networks: ['VISA'] },
  MASTERDEBIT: { label: 'Debit Mastercard', networks: ['MASTER'] },
  AMEX: { label: 'American Express', patterns: [34, 37], lengths: [15], cvvLength: 4 },
  DINERS: { label: 'Diners Club', patterns: [[300, 305], 3095, 36, 38, 39], lengths: [14, 15, 16, 17, 18, 19] },
  JCB: { label: 'JCB', patterns: [[3528, 3589]], lengths: [16, 17, 18, 19], also: { patterns: [2131, 1800], lengths: [15] } },
  // China UnionPay (Adyen's ranges; 622126-622925 as specific as Discover's): numbers without a check digit exist
  // (the platform's SDK skips Luhn for it).
  UNIONPAY: { label: 'UnionPay', patterns: [62, 81, [622126, 622925]], lengths: [14, 15, 16, 17, 18, 19], luhn: false },
  // 622126-622925: UnionPay cards Discover also accepts.
  DISCOVER: { patterns: [6011, [644, 649], 65, [622126, 622925]], lengths: [16, 17, 18, 19] },
  MIR: { patterns: [[2200, 2204]], lengths: [16, 17, 18, 19] },
  // Lufthansa AirPlus: UATP accounts, 15 digits, no CVV.
  AIRPLUS: { label: 'AirPlus', patterns: [1], lengths: [15], cvv: 'none' },
  MASTER: { label: 'Mastercard', patterns: [[51, 55], [2221, 2229], [223, 229], [23, 26], [270, 271], 2720] },
  VISA: { patterns: [4], lengths: [13, 16, 18, 19] },
  // Everything else from 5 and 6 that no scheme above claims; chip-and-PIN cards often have no CVV.
  MAESTRO: { patterns: [493698, [500000, 504174], [504176, 506698], [506779, 508999], [56, 59], 63, 67, 6], lengths: [12, 13, 14, 15, 16, 17, 18, 19], cvv: 'optional' },
  FACILYPAY_3X: { ...FACILYPAY, label: 'Oney 3x' },
  FACILYPAY_3XSANSFRAIS: { ...FACILYPAY, label: 'Oney 3x sans frais' },
  FACILYPAY_4X: { ...FACILYPAY, label: 'Oney 4x' },
  FACILYPAY_4XSANSFRAIS: { ...FACILYPAY, label: 'Oney 4x sans frais' },
  // Brands whose ranges are not published: their networks' cards, named by the merchant (Spain; Brazil; Ecuador; …).
  SERVIRED: { label: 'ServiRed', networks: VISA_MASTER },
  MERCADOLIVRE: { label: 'Mercado Livre', networks: ['MASTER'] },
  ALIA: { networks: VISA_MASTER },
  ALIADEBIT: { label: 'Alia Débito', networks: VISA_MASTER },
  TCARD: { label: 'TCard', networks: VISA_MASTER },
  TCARDDEBIT: { label: 'TCard Debit', networks: VISA_MASTER },
};

export const CARD_BRANDS: readonly CardBrand[] = Object.entries(TABLE).map(([code, record]) => ({
  ...record,
  code: code as CardBrandCode,
  label: record.label ?? code[0] + code.slice(1).toLowerCase(),
}));

const BY_CODE: ReadonlyMap<string, CardBrand> = new Map(CARD_BRANDS.map((brand) => [brand.code, brand]));

export function cardBrand(code: string): CardBrand | undefined {
  return BY_CODE.get(code);
}

/** The CVV length of the brand's cards (0: they have none). */
export function cvvLengthOf(code: string): number | undefined {
  const brand = BY_CODE.get(code);
  return brand && (brand.cvv === 'none' ? 0 : (brand.cvvLength ?? 3));
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

function specificity(digits: string, format: NumberFormat): number {
  return Math.max(0, ...(format.patterns ?? []).map((pattern) => fit(digits, pattern)));
}

/** The brand's own format `digits` fit (its cards or its second kind), and how specifically. */
function ownFormat(brand: CardBrand, digits: string): { format: NumberFormat; strength: number } | undefined {
  const fits = [brand, ...(brand.also ? [brand.also] : [])].map((format) => ({ format, strength: specificity(digits, format) }));
  const best = fits.reduce((a, b) => (b.strength > a.strength ? b : a));
  return best.strength > 0 ? best : undefined;
}

function rulesOf(format: NumberFormat, cvv: CvvMode | undefined): NumberRules {
  return { lengths: format.lengths ?? [16], luhn: format.luhn ?? true, cvvLength: format.cvvLength ?? 3, cvv: cvv ?? format.cvv ?? 'required' };
}

/**
 * The rules a number beginning with `digits` follows when paid as `code`: the brand's own where its ranges fit, else
 * those of a network carrying it (a co-badged or programme card keeps its network's length, Luhn and CVV length;
 * whether a CVV is asked stays the brand's). Undefined when the brand issues no such number. The first digits
 * decide: no brand has two formats for one prefix.
 */
export function rulesFor(code: string, digits: string): NumberRules | undefined {
  const brand = BY_CODE.get(code);
  if (!brand || !/^[0-9]*$/.test(digits)) return undefined;
  const own = ownFormat(brand, digits);
  if (own) return rulesOf(own.format, undefined);
  for (const network of brand.networks ?? []) {
    const carried = ownFormat(BY_CODE.get(network) as CardBrand, digits);
    if (carried) return rulesOf(carried.format, brand.cvv ?? carried.format.cvv);
  }
  return undefined;
}

/** Whether a whole card number is well formed under these rules: its length, and its check digit where it has one. */
export function followsRules(rules: NumberRules, number: string): boolean {
  return rules.lengths.includes(number.length) && (!rules.luhn || passesLuhn(number));
}

/**
 * The brands whose own ranges `digits` (the first digits of a number) fit, most specific first (ties in table
 * order). Brands living on their networks' cards only are never among them.
 */
export function brandsMatching(digits: string): CardBrand[] {
  if (!/^[0-9]+$/.test(digits)) return [];
  return CARD_BRANDS.map((brand) => ({ brand, strength: ownFormat(brand, digits)?.strength ?? 0 }))
    .filter(({ strength }) => strength > 0)
    .sort((a, b) => b.strength - a.strength)
    .map(({ brand }) => brand);
}

/**
 * The brand of a whole card number nobody named a brand for: the most specific brand whose own cards it is, except
 * that a brand living on networks yields to one of them that issues the number too (mada on a Visa card is VISA,
 * on a domestic-only card MADA).
 */
export function brandOfNumber(number: string): CardBrandCode | undefined {
  const issuing = brandsMatching(number).filter((brand) => {
    const own = ownFormat(brand, number);
    return own !== undefined && followsRules(rulesOf(own.format, undefined), number);
  });
  const codes = issuing.map((brand) => brand.code);
  return issuing.find((brand) => !brand.networks?.some((network) => codes.includes(network)))?.code;
}
