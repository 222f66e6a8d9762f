import creditCardType from 'credit-card-type';

/** Brand codes of the API and how the widget shows and checks them. */
export interface BrandInfo {
  readonly label: string;
  readonly cvvLength: number;
  /** credit-card-type's name for the brand, for detection. */
  readonly detectedAs?: string;
}

export const CARD_BRANDS: Readonly<Record<string, BrandInfo>> = {
  VISA: { label: 'Visa', cvvLength: 3, detectedAs: 'visa' },
  MASTER: { label: 'Mastercard', cvvLength: 3, detectedAs: 'mastercard' },
  AMEX: { label: 'American Express', cvvLength: 4, detectedAs: 'american-express' },
  DINERS: { label: 'Diners Club', cvvLength: 3, detectedAs: 'diners-club' },
  DISCOVER: { label: 'Discover', cvvLength: 3, detectedAs: 'discover' },
  JCB: { label: 'JCB', cvvLength: 3, detectedAs: 'jcb' },
  MAESTRO: { label: 'Maestro', cvvLength: 3, detectedAs: 'maestro' },
  UNIONPAY: { label: 'UnionPay', cvvLength: 3, detectedAs: 'unionpay' },
  MIR: { label: 'Mir', cvvLength: 3, detectedAs: 'mir' },
  ELO: { label: 'Elo', cvvLength: 3, detectedAs: 'elo' },
  HIPERCARD: { label: 'Hipercard', cvvLength: 3, detectedAs: 'hipercard' },
};

export function isCardBrand(brand: string): boolean {
  return brand in CARD_BRANDS;
}

/**
 * The offered brands that match the card number's first digits, most likely first, ordered by the
 * merchant's brandDetectionPriority where it names them.
 */
export function detectBrands(bin: string, offered: readonly string[], priority: readonly string[]): string[] {
  if (bin === '') return [];
  const detected = creditCardType(bin).map((type) => type.type);
  const matches = offered.filter((brand) => {
    const name = CARD_BRANDS[brand]?.detectedAs;
    return name !== undefined && detected.includes(name);
  });
  const rank = (brand: string) => {
    const position = priority.indexOf(brand);
    return position === -1 ? priority.length + detected.indexOf(CARD_BRANDS[brand]?.detectedAs ?? '') : position;
  };
  return matches.sort((a, b) => rank(a) - rank(b));
}

/** Method families of the redirect brands, as they appear in class names (`wpwl-form-<family>-<BRAND>`). */
export type RedirectFamily = 'virtualAccount' | 'onlineTransfer';

export interface RedirectBrandInfo {
  /** The provider's name, shown to the shopper and as the logo's accessible name. */
  readonly label: string;
  readonly family: RedirectFamily;
}

/** Brands paid on the provider's page: the shopper is redirected there and back (no card data). */
export const REDIRECT_BRANDS: Readonly<Record<string, RedirectBrandInfo>> = {
  PAYPAL: { label: 'PayPal', family: 'virtualAccount' },
  SOFORTUEBERWEISUNG: { label: 'Sofort', family: 'onlineTransfer' },
};

export function isRedirectBrand(brand: string): boolean {
  return Object.prototype.hasOwnProperty.call(REDIRECT_BRANDS, brand);
}
