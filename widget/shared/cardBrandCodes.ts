/**
 * The card brands of the API (`paymentBrand`), by code only: what the widget's entry needs to tell a card brand of
 * `data-brands` from other methods. Their rules (issuer ranges, lengths, Luhn, CVV) are in cards.ts, which only the
 * card form's chunk and the gateway load. The platform's card-account brands (COMPAT §7), the Turkish card
 * programmes older integrations send, and MIR.
 */
export const CARD_BRAND_CODES = [
  'AIRPLUS', 'ALIA', 'ALIADEBIT', 'AMEX', 'ARGENCARD', 'ASYACARD', 'AXESS', 'BCMC', 'BONUS', 'CABAL', 'CARDFINANS',
  'CARNET', 'CARTEBANCAIRE', 'CARTEBLEUE', 'CENCOSUD', 'DANKORT', 'DINERS', 'DISCOVER', 'ELO', 'FACILYPAY_3X',
  'FACILYPAY_3XSANSFRAIS', 'FACILYPAY_4X', 'FACILYPAY_4XSANSFRAIS', 'HIPERCARD', 'JCB', 'MADA', 'MAESTRO', 'MASTER',
  'MASTERDEBIT', 'MAXIMUM', 'MERCADOLIVRE', 'MIR', 'NARANJA', 'NATIVA', 'SERVIRED', 'TARJETASHOPPING', 'TCARD',
  'TCARDDEBIT', 'UNIONPAY', 'VISA', 'VISADEBIT', 'VISAELECTRON', 'VPAY', 'WORLD',
] as const;

export type CardBrandCode = (typeof CARD_BRAND_CODES)[number];

const CODES: ReadonlySet<string> = new Set(CARD_BRAND_CODES);

export function isCardBrand(code: string | undefined): code is CardBrandCode {
  return code !== undefined && CODES.has(code);
}
