import type { ContactField, WalletBrand, WalletNetwork } from '../../shared/walletSheet.ts';
import { isObject, type WidgetOptions } from '../options.ts';

/**
 * The platform's wallet options (wpwlOptions.applePay{...}, wpwlOptions.googlePay{...}) as the wallet buttons use
 * them; anything of the wrong type is ignored, as for every option.
 */

export interface WalletSettings {
  readonly brand: WalletBrand;
  /** The option object as the merchant gave it, for what goes to the wallet's own API unchanged. */
  readonly given: Readonly<Record<string, unknown>>;
  /** The merchant's name in the sheet: applePay.displayName or total.label; googlePay.merchantName; else the host. */
  readonly merchantName: string;
  /** The amount and currency: the checkout's, or (fast checkout, no checkout yet) the wallet options'. */
  readonly amount: string;
  readonly currency: string;
  readonly countryCode: string | undefined;
  /** Networks the merchant accepts, as card brand codes (applePay.supportedNetworks, googlePay.allowedCardNetworks). */
  readonly networks: readonly WalletNetwork[];
  /** Google Pay's allowedAuthMethods (both by default). */
  readonly authMethods: readonly string[];
  /** Apple Pay's buttonStyle / buttonType, Google Pay's buttonColor / buttonType. */
  readonly buttonStyle: string;
  readonly buttonType: string;
  /** The shopper's data the merchant asks the wallet for (Apple's required*ContactFields, Google's emailRequired...). */
  readonly contact: readonly ContactField[];
}

/** Apple Pay's contact field names, as the sheet's. */
const APPLE_CONTACT: Readonly<Record<string, ContactField>> = { email: 'email', name: 'name', phone: 'phone', postalAddress: 'address' };

function contactOf(apple: boolean, settings: Readonly<Record<string, unknown>>): ContactField[] {
  if (apple) {
    const named = [...strings(settings.requiredShippingContactFields), ...strings(settings.requiredBillingContactFields)];
    return [...new Set(named.flatMap((name) => APPLE_CONTACT[name] ?? []))];
  }
  const address = isObject(settings.shippingAddressParameters) ? settings.shippingAddressParameters : {};
  return [
    ...(settings.emailRequired === true ? (['email'] as const) : []),
    ...(settings.shippingAddressRequired === true ? (['name', 'address'] as const) : []),
    ...(settings.shippingAddressRequired === true && address.phoneNumberRequired === true ? (['phone'] as const) : []),
  ];
}

const text = (value: unknown): string | undefined => (typeof value === 'string' && value.trim() !== '' ? value.trim() : typeof value === 'number' ? String(value) : undefined);

const strings = (value: unknown): string[] => (Array.isArray(value) ? value.filter((item): item is string => typeof item === 'string') : []);

/** Apple's and Google's network names, as card brand codes. */
const NETWORK_CODES: Readonly<Record<string, WalletNetwork>> = { VISA: 'VISA', MASTERCARD: 'MASTER', MASTER: 'MASTER', AMEX: 'AMEX' };

export const APPLE_NETWORKS: Readonly<Record<WalletNetwork, string>> = { VISA: 'visa', MASTER: 'masterCard', AMEX: 'amex' };
export const GOOGLE_NETWORKS: Readonly<Record<WalletNetwork, string>> = { VISA: 'VISA', MASTER: 'MASTERCARD', AMEX: 'AMEX' };

/** What the bootstrap says of the checkout (paymentWidgets.js), when there is one. */
interface BootstrapCheckout {
  readonly amount?: string | null;
  readonly currency?: string | null;
}

export function walletSettings(brand: WalletBrand, options: WidgetOptions, checkout: BootstrapCheckout | null | undefined): WalletSettings {
  const raw = brand === 'APPLEPAY' ? options.raw.applePay : options.raw.googlePay;
  const settings = isObject(raw) ? raw : {};
  const total = isObject(settings.total) ? settings.total : {};
  const transaction = isObject(settings.transactionInfo) ? settings.transactionInfo : {};
  const apple = brand === 'APPLEPAY';
  const named = apple ? strings(settings.supportedNetworks) : strings(settings.allowedCardNetworks);
  const networks = [...new Set(named.flatMap((name) => NETWORK_CODES[name.toUpperCase()] ?? []))];
  const amount = text(checkout?.amount) ?? (apple ? text(total.amount) : (text(settings.totalPrice) ?? text(transaction.totalPrice))) ?? '0.00';
  const currency = text(checkout?.currency) ?? (apple ? text(settings.currencyCode) : (text(settings.currencyCode) ?? text(transaction.currencyCode))) ?? 'EUR';
  return {
    brand,
    given: settings,
    merchantName: (apple ? (text(settings.displayName) ?? text(total.label)) : text(settings.merchantName)) ?? location.hostname,
    amount,
    currency: currency.toUpperCase(),
    countryCode: text(settings.countryCode) ?? (apple ? undefined : text(transaction.countryCode)),
    networks,
    authMethods: apple ? [] : strings(settings.allowedAuthMethods).filter((method) => method === 'PAN_ONLY' || method === 'CRYPTOGRAM_3DS'),
    buttonStyle: (apple ? text(settings.buttonStyle) : text(settings.buttonColor)) ?? (apple ? 'black' : 'default'),
    buttonType: text(settings.buttonType) ?? (apple ? 'plain' : 'buy'),
    contact: contactOf(apple, settings),
  };
}
