/**
 * Asynchronous payment methods the gateway offers through the simulator: the shopper approves the payment on
 * the provider's page, so the first answer is pending with a redirect (doc 1 §3 rule 1). The family names
 * the widget's form (`wpwl-form-<family>-<BRAND>`, COMPAT §4).
 */

export interface RedirectBrand {
  readonly family: 'virtualAccount' | 'onlineTransfer';
  readonly label: string;
}

export const REDIRECT_BRANDS: Readonly<Record<string, RedirectBrand>> = {
  /** Wallet style: the shopper logs in to the wallet and approves. */
  PAYPAL: { family: 'virtualAccount', label: 'PayPal' },
  /** Bank-transfer style: the shopper approves a transfer in online banking. */
  SOFORTUEBERWEISUNG: { family: 'onlineTransfer', label: 'Sofort' },
};

export function isRedirectBrand(brand: string | undefined): brand is string {
  return brand !== undefined && Object.hasOwn(REDIRECT_BRANDS, brand);
}
