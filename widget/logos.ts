import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import * as simpleIcons from 'simple-icons';
import { ASYNC_BRANDS, type AsyncFamily } from './shared/asyncBrands.ts';
import { CARD_BRAND_CODES } from './shared/cardBrandCodes.ts';
import { DIRECT_DEBIT_BRANDS } from './shared/directDebit.ts';

/**
 * The brand logos (build time only: build.ts writes them to img/brands/<BRAND>.svg on the versioned static path; the
 * widget shows them as images, never inlines them). A brand's own logo comes from Simple Icons (CC0-1.0, the logos
 * their owners' trademarks: widget/logos/), where it has one; every other brand of the catalogue gets the neutral icon
 * of its kind from Lucide (ISC). Each is drawn on the same small card-shaped tile, 40 × 26.
 */

const ROOT = new URL('..', import.meta.url).pathname;

/** Brands whose logo Simple Icons has, by its slug. Several codes of one network share its logo. */
const OWN_LOGOS: Readonly<Record<string, string>> = {
  VISA: 'visa',
  VISADEBIT: 'visa',
  VISAELECTRON: 'visa',
  MASTER: 'mastercard',
  MASTERDEBIT: 'mastercard',
  AMEX: 'americanexpress',
  DINERS: 'dinersclub',
  DISCOVER: 'discover',
  JCB: 'jcb',
  PAYPAL: 'paypal',
  ALIPAY: 'alipay',
  QIWI: 'qiwi',
  BITCOIN: 'bitcoin',
  AFTERPAY: 'afterpay',
  KLARNA_INVOICE: 'klarna',
  KLARNA_INSTALLMENTS: 'klarna',
  KLARNA_PAYMENTS_BILLPAY: 'klarna',
  KLARNA_PAYMENTS_PAYLATER: 'klarna',
  KLARNA_PAYMENTS_PAYNOW: 'klarna',
  KLARNA_PAYMENTS_SLICEIT: 'klarna',
  DIRECTDEBIT_SEPA: 'sepa',
};

/** The neutral icon (a Lucide name) of each kind of brand without a logo of its own. */
const NEUTRAL_ICONS: Readonly<Record<AsyncFamily | 'card' | 'directDebit', string>> = {
  card: 'credit-card',
  directDebit: 'landmark',
  onlineTransfer: 'landmark',
  eWallet: 'wallet',
  invoice: 'receipt',
  voucher: 'ticket',
  cashVoucher: 'banknote',
  prepayment: 'landmark',
};

/** Every brand of the catalogue with the kind of brand it is. */
export function catalogueBrands(): [string, keyof typeof NEUTRAL_ICONS][] {
  return [
    ...CARD_BRAND_CODES.map((code): [string, 'card'] => [code, 'card']),
    ...DIRECT_DEBIT_BRANDS.map((code): [string, 'directDebit'] => [code, 'directDebit']),
    ...Object.entries(ASYNC_BRANDS).map(([code, brand]): [string, AsyncFamily] => [code, brand.family]),
  ];
}

const TILE_OPEN = '<svg xmlns="http://www.w3.org/2000/svg" width="40" height="26" viewBox="0 0 40 26"><rect x=".5" y=".5" width="39" height="25" rx="4" fill="#fff" stroke="#d1d5db"/>';

/** A Simple Icons logo (a 24 × 24 path) in its brand colour, 18 px high in the tile. */
function ownLogo(slug: string): string {
  const icon = Object.values(simpleIcons).find((candidate) => typeof candidate === 'object' && candidate.slug === slug);
  if (!icon) throw new Error(`Simple Icons has no ${slug}`);
  return `${TILE_OPEN}<g transform="translate(11 4) scale(.75)"><path fill="#${icon.hex}" d="${icon.path}"/></g></svg>\n`;
}

/** A Lucide icon (24 × 24 strokes) in grey, 18 px high in the tile. */
function neutralIcon(name: string): string {
  const source = readFileSync(join(ROOT, 'node_modules/lucide-static/icons', `${name}.svg`), 'utf8');
  const shapes = /<svg[^>]*>([\s\S]*)<\/svg>/.exec(source)?.[1]?.replace(/\s+/g, ' ').trim();
  if (!shapes) throw new Error(`Lucide has no ${name}`);
  return `${TILE_OPEN}<g transform="translate(11 4) scale(.75)" fill="none" stroke="#4b5563" stroke-width="2" stroke-linecap="round" stroke-linejoin="round">${shapes}</g></svg>\n`;
}

/** Writes img/brands/<BRAND>.svg under `dir` for every brand of the catalogue; returns the brands with a logo of their own. */
export function writeBrandLogos(dir: string): string[] {
  const target = join(dir, 'img', 'brands');
  mkdirSync(target, { recursive: true });
  for (const [code, kind] of catalogueBrands()) {
    const slug = OWN_LOGOS[code];
    writeFileSync(join(target, `${code}.svg`), slug ? ownLogo(slug) : neutralIcon(NEUTRAL_ICONS[kind]));
  }
  return Object.keys(OWN_LOGOS);
}
