/**
 * Asynchronous payment methods: the shopper approves the payment on the provider's page, so the first answer is
 * pending with a redirect (doc 1 §3 rule 1). The family names the widget's form (`wpwl-form-<family>-<BRAND>`,
 * COMPAT §4); the gateway accepts exactly these brands without instrument data.
 */

export type RedirectFamily = 'virtualAccount' | 'onlineTransfer';

export interface RedirectBrand {
  readonly family: RedirectFamily;
  /** The provider's name, shown to the shopper and as the logo's accessible name. */
  readonly label: string;
}

export const REDIRECT_BRANDS: Readonly<Record<string, RedirectBrand>> = {
  /** Wallet style: the shopper logs in to the wallet and approves. */
  PAYPAL: { family: 'virtualAccount', label: 'PayPal' },
  /** Bank-transfer style: the shopper approves a transfer in online banking. */
  SOFORTUEBERWEISUNG: { family: 'onlineTransfer', label: 'Sofort' },
  /** German banks' online transfer (test account TESTDETT421 / DE14940593100000012346, COMPAT §16). */
  GIROPAY: { family: 'onlineTransfer', label: 'giropay' },
  /** Dutch banks' online transfer (test issuer ING_TEST, COMPAT §16). */
  IDEAL: { family: 'onlineTransfer', label: 'iDEAL' },
};

export function isRedirectBrand(brand: string | undefined): brand is string {
  return brand !== undefined && Object.prototype.hasOwnProperty.call(REDIRECT_BRANDS, brand);
}
