/**
 * The brands of the instruments other than cards and asynchronous brands (COMPAT §16), as pure data: SEPA direct
 * debit, the three mobile wallets and their token parameters, the virtual accounts paid without a redirect. Kept apart
 * from instruments.ts (which checks the instruments and refuses them) so the parameter rules and the brand index read
 * them without the refusals.
 */

/** The brand of a SEPA direct debit. */
export const SEPA_BRAND = 'DIRECTDEBIT_SEPA';

/** The three mobile wallets (doc 2 §2.5: walletA, walletB, walletC), by brand, with their parameter prefix. */
export const WALLETS = {
  APPLEPAY: { prefix: 'applePay' },
  GOOGLEPAY: { prefix: 'googlePay' },
  SAMSUNGPAY: { prefix: 'samsungPay' },
} as const;

export type WalletBrand = keyof typeof WALLETS;

/** The parameter a wallet's encrypted token comes in (`applePay.paymentToken`, ...). */
export function walletTokenParameter(brand: WalletBrand): string {
  return `${WALLETS[brand].prefix}.paymentToken`;
}

/** Every wallet's own token parameter. */
export const WALLET_TOKEN_PARAMETERS: readonly string[] = (Object.keys(WALLETS) as WalletBrand[]).map(walletTokenParameter);

export function isWalletBrand(brand: string | undefined): brand is WalletBrand {
  return brand !== undefined && Object.prototype.hasOwnProperty.call(WALLETS, brand);
}

/** The generic name of a wallet's token (COMPAT §16), accepted for any wallet brand. */
export const GENERIC_WALLET_TOKEN = 'virtualAccount.paymentToken';

/**
 * Virtual-account brands paid with `virtualAccount.accountId` alone (no redirect): the account id's format, and
 * whether the brand needs `virtualAccount.password`. (PAYPAL is a redirect brand: the shopper logs in on its page.)
 */
export const VIRTUAL_ACCOUNT_BRANDS: Readonly<Record<string, { readonly accountId: RegExp; readonly format: string; readonly password: boolean }>> = {
  /** COMPAT §16: `<country code>#<number>`, the shopper's phone number. */
  MBWAY: { accountId: /^[0-9]{1,3}#[0-9]{6,15}$/, format: '<country code>#<phone number>, e.g. 351#912345678', password: false },
};
