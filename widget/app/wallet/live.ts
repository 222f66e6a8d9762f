import type { WalletBrand } from '../../shared/walletSheet.ts';
import { reportError } from '../callbacks.ts';
import { readOptions } from '../options.ts';
import { loadScript } from '../scriptLoader.ts';
import { APPLE_NETWORKS, GOOGLE_NETWORKS, type WalletSettings } from './walletOptions.ts';

/**
 * The wallets' own browser APIs, in the live environment: Apple's ApplePaySession (Safari) with the merchant validated
 * through the gateway (POST /v1/wallets/applepay/session), and Google's pay.js (PaymentsClient: isReadyToPay,
 * createButton, loadPaymentData with this gateway's name and the merchant's gatewayMerchantId). Each makes the wallet's
 * token in the merchant's page, which the widget posts with the payment (COMPAT §16). A page paying with them allows
 * their origins in its Content-Security-Policy (docs/widget.md).
 */

export interface LiveApproval {
  /** The token's parameters for the checkout's submit. */
  readonly fields: [string, string][];
  /** What the wallet tells of the shopper (contact, shipping), for a fast checkout's createCheckout(json). */
  readonly json: Record<string, unknown>;
  /** Closes the wallet's sheet: Apple's shows success or failure. */
  finish(success: boolean): void;
}

export interface LivePayment {
  readonly approved: Promise<LiveApproval | undefined>;
  abort(): void;
}

export interface LiveWallet {
  /** Opens the wallet's sheet: call it in the shopper's click, before anything is awaited. */
  start(settings: WalletSettings): LivePayment;
  /** The wallet's own button (Google's createButton), for wallets that draw it themselves. */
  button(settings: WalletSettings, onClick: () => void): HTMLElement;
}

export const GOOGLE_PAY_JS = 'https://pay.google.com/gp/p/js/pay.js';

type Json = Record<string, unknown>;

interface ApplePaySessionClass {
  new (version: number, request: Json): ApplePaySessionInstance;
  canMakePayments(): boolean;
  readonly STATUS_SUCCESS: number;
  readonly STATUS_FAILURE: number;
}

interface ApplePaySessionInstance {
  onvalidatemerchant: ((event: { validationURL: string }) => void) | null;
  onpaymentmethodselected: ((event: { paymentMethod: unknown }) => void) | null;
  onshippingcontactselected: ((event: { shippingContact: unknown }) => void) | null;
  onshippingmethodselected: ((event: { shippingMethod: unknown }) => void) | null;
  onpaymentauthorized: ((event: { payment: { token: unknown; shippingContact?: unknown; billingContact?: unknown } }) => void) | null;
  oncancel: (() => void) | null;
  begin(): void;
  abort(): void;
  completeMerchantValidation(session: unknown): void;
  completePaymentMethodSelection(update: Json): void;
  completeShippingContactSelection(update: Json): void;
  completeShippingMethodSelection(update: Json): void;
  completePayment(status: number): void;
}

/**
 * The merchant's answer to a choice the shopper made in the wallet's sheet (applePay.onShippingContactSelected …,
 * googlePay.onPaymentDataChanged): the callback's update, or a promise (any thenable) of it, handed to the wallet;
 * `fallback` when it gives none, throws or rejects (the sheet must always be answered, or the wallet ends it), the
 * failure told to onError.
 */
function answerSheet(brand: WalletBrand, callback: unknown, argument: unknown, fallback: Json): Promise<Json> {
  const failed = (error: unknown) => {
    reportError(readOptions(), { name: 'WidgetError', message: `the ${brand === 'APPLEPAY' ? 'Apple' : 'Google'} Pay sheet callback failed: ${error instanceof Error ? error.message : String(error)}`, brand });
    return fallback;
  };
  let update: unknown;
  try {
    update = (callback as (argument: unknown) => unknown)(argument);
  } catch (error) {
    return Promise.resolve(failed(error));
  }
  return Promise.resolve(update).then((value) => (typeof value === 'object' && value !== null ? (value as Json) : fallback), failed);
}

/**
 * Apple's sheet events the platform's `applePay` options answer (onPaymentMethodSelected, onShippingContactSelected,
 * onShippingMethodSelected), each with the event's object; set only for the callbacks the page gives (a handler set
 * must be completed, one not set lets Safari go on by itself). Without an update the total stays.
 */
function answerAppleSheet(session: ApplePaySessionInstance, given: Json, total: Json): void {
  const events = [
    [given.onPaymentMethodSelected, 'onpaymentmethodselected', 'paymentMethod', 'completePaymentMethodSelection'],
    [given.onShippingContactSelected, 'onshippingcontactselected', 'shippingContact', 'completeShippingContactSelection'],
    [given.onShippingMethodSelected, 'onshippingmethodselected', 'shippingMethod', 'completeShippingMethodSelection'],
  ] as const;
  for (const [callback, handler, field, complete] of events) {
    if (typeof callback !== 'function') continue;
    session[handler] = (event: Record<string, unknown>) => void answerSheet('APPLEPAY', callback, event[field], { newTotal: total }).then((update) => session[complete](update));
  }
}

interface GooglePaymentsClient {
  isReadyToPay(request: Json): Promise<{ result: boolean }>;
  createButton(options: Json): HTMLElement;
  loadPaymentData(request: Json): Promise<{ paymentMethodData: { tokenizationData: { token: string } }; email?: string; shippingAddress?: unknown; shippingOptionData?: unknown }>;
}

type GooglePayments = { payments: { api: { PaymentsClient: new (options: Json) => GooglePaymentsClient } } };

const bootstrap = () => (window as { wpwl?: { url?: string; checkout?: { id?: string } | null } }).wpwl ?? {};

/** pay.js, loaded once per page unless the page has it already (a failed load is tried again next time). */
async function loadGooglePay(): Promise<GooglePayments> {
  if (!(window as { google?: GooglePayments }).google?.payments?.api) await loadScript(GOOGLE_PAY_JS);
  const google = (window as { google?: GooglePayments }).google;
  if (!google?.payments?.api) throw new Error('pay.js defined no google.payments.api');
  return google;
}

const strings = (value: unknown): string[] | undefined =>
  Array.isArray(value) && value.every((item) => typeof item === 'string') && value.length > 0 ? (value as string[]) : undefined;

function appleRequest(settings: WalletSettings): Json {
  const given = settings.given;
  const total = typeof given.total === 'object' && given.total !== null ? (given.total as Json) : {};
  const passed = ['requiredShippingContactFields', 'requiredBillingContactFields', 'shippingMethods', 'shippingType', 'supportedTypes', 'lineItems'];
  return {
    ...Object.fromEntries(passed.filter((name) => given[name] !== undefined).map((name) => [name, given[name]])),
    countryCode: settings.countryCode ?? 'US',
    currencyCode: settings.currency,
    supportedNetworks: strings(given.supportedNetworks) ?? Object.values(APPLE_NETWORKS),
    merchantCapabilities: strings(given.merchantCapabilities) ?? ['supports3DS'],
    total: { label: typeof total.label === 'string' ? total.label : settings.merchantName, amount: settings.amount },
  };
}

function appleWallet(): LiveWallet | undefined {
  const Session = (window as { ApplePaySession?: ApplePaySessionClass }).ApplePaySession;
  try {
    if (!Session || !Session.canMakePayments()) return undefined;
  } catch {
    // canMakePayments throws outside a secure context or in a frame Apple Pay may not run in.
    return undefined;
  }
  return {
    button: () => document.createElement('span'),
    start(settings) {
      const version = typeof settings.given.version === 'number' ? settings.given.version : 3;
      const request = appleRequest(settings);
      const session = new Session(version, request);
      answerAppleSheet(session, settings.given, request.total as Json);
      let settle: (approval: LiveApproval | undefined) => void = () => undefined;
      const approved = new Promise<LiveApproval | undefined>((resolve) => (settle = resolve));
      session.onvalidatemerchant = (event) => {
        const { url = '', checkout } = bootstrap();
        fetch(`${url}/v1/wallets/applepay/session`, {
          method: 'POST',
          headers: { 'Content-Type': 'application/json' },
          credentials: 'omit',
          body: JSON.stringify({
            validationUrl: event.validationURL,
            domain: location.hostname,
            displayName: settings.merchantName,
            merchantIdentifier: typeof settings.given.merchantIdentifier === 'string' ? settings.given.merchantIdentifier : undefined,
            checkoutId: checkout?.id,
          }),
        })
          .then(async (response) => {
            if (!response.ok) throw new Error(`the gateway answered HTTP ${response.status}`);
            session.completeMerchantValidation(await response.json());
          })
          .catch((error: unknown) => {
            reportError(readOptions(), { name: 'WidgetError', message: `Apple Pay merchant validation failed: ${String(error)}`, brand: 'APPLEPAY' });
            session.abort();
            settle(undefined);
          });
      };
      session.onpaymentauthorized = (event) =>
        settle({
          fields: [
            ['applePay.paymentToken', JSON.stringify(event.payment.token)],
            ['applePay.source', 'web'],
          ],
          json: { shippingContact: event.payment.shippingContact, billingContact: event.payment.billingContact },
          finish: (success) => session.completePayment(success ? Session.STATUS_SUCCESS : Session.STATUS_FAILURE),
        });
      session.oncancel = () => {
        if (typeof settings.given.onCancel === 'function') void answerSheet('APPLEPAY', settings.given.onCancel, undefined, {});
        settle(undefined);
      };
      session.begin();
      return {
        approved,
        abort() {
          session.abort();
          settle(undefined);
        },
      };
    },
  };
}

async function googleWallet(settings: WalletSettings, gateway: string): Promise<LiveWallet | undefined> {
  const given = settings.given;
  const google = await loadGooglePay();
  // The platform's googlePay.onPaymentDataChanged answers the shopper's address and shipping option in Google's sheet
  // (Google's paymentDataCallbacks; the request names the intents: googlePay.callbackIntents, or the shipping ones).
  const onPaymentDataChanged = given.onPaymentDataChanged;
  const client = new google.payments.api.PaymentsClient({
    environment: given.environment === 'TEST' ? 'TEST' : 'PRODUCTION',
    ...(typeof onPaymentDataChanged === 'function' ? { paymentDataCallbacks: { onPaymentDataChanged: (data: unknown) => answerSheet('GOOGLEPAY', onPaymentDataChanged, data, {}) } } : {}),
  });
  const parameters = {
    allowedAuthMethods: settings.authMethods.length > 0 ? settings.authMethods : ['PAN_ONLY', 'CRYPTOGRAM_3DS'],
    allowedCardNetworks: settings.networks.length > 0 ? settings.networks.map((network) => GOOGLE_NETWORKS[network]) : Object.values(GOOGLE_NETWORKS),
  };
  const ready = await client.isReadyToPay({ apiVersion: 2, apiVersionMinor: 0, allowedPaymentMethods: [{ type: 'CARD', parameters }] });
  if (!ready.result) return undefined;
  return {
    button: (current, onClick) =>
      client.createButton({ onClick, buttonColor: current.buttonStyle, buttonType: current.buttonType, buttonSizeMode: 'fill', buttonLocale: readOptions().locale.slice(0, 2) }),
    start(current) {
      const request = {
        apiVersion: 2,
        apiVersionMinor: 0,
        merchantInfo: { merchantName: current.merchantName, ...(typeof given.merchantId === 'string' ? { merchantId: given.merchantId } : {}) },
        allowedPaymentMethods: [
          {
            type: 'CARD',
            parameters,
            tokenizationSpecification: { type: 'PAYMENT_GATEWAY', parameters: { gateway, gatewayMerchantId: typeof given.gatewayMerchantId === 'string' ? given.gatewayMerchantId : '' } },
          },
        ],
        transactionInfo: {
          totalPriceStatus: 'FINAL',
          totalPrice: current.amount,
          currencyCode: current.currency,
          ...(current.countryCode ? { countryCode: current.countryCode } : {}),
          ...(Array.isArray(given.displayItems) ? { displayItems: given.displayItems } : {}),
        },
        emailRequired: given.emailRequired === true,
        shippingAddressRequired: given.shippingAddressRequired === true,
        ...(given.shippingAddressParameters !== undefined ? { shippingAddressParameters: given.shippingAddressParameters } : {}),
        ...(given.shippingOptionRequired === true ? { shippingOptionRequired: true, shippingOptionParameters: given.shippingOptionParameters } : {}),
        ...(typeof onPaymentDataChanged === 'function'
          ? { callbackIntents: strings(given.callbackIntents) ?? ['SHIPPING_ADDRESS', ...(given.shippingOptionRequired === true ? ['SHIPPING_OPTION'] : [])] }
          : {}),
      };
      const approved = client.loadPaymentData(request).then(
        (data): LiveApproval => ({
          fields: [
            ['googlePay.paymentToken', data.paymentMethodData.tokenizationData.token],
            ['googlePay.source', 'web'],
          ],
          json: { email: data.email, shippingAddress: data.shippingAddress, ...(data.shippingOptionData ? { shippingOptionData: data.shippingOptionData } : {}) },
          finish: () => undefined,
        }),
        (error: { statusCode?: string }) => {
          if (error?.statusCode !== 'CANCELED') reportError(readOptions(), { name: 'WidgetError', message: `Google Pay: ${String(error?.statusCode ?? error)}`, brand: 'GOOGLEPAY' });
          return undefined;
        },
      );
      return { approved, abort: () => undefined };
    },
  };
}

/** The wallet's live API where this browser can pay with it, else undefined (no button, as on the platform). */
export async function liveWallet(brand: WalletBrand, settings: WalletSettings, gateway: string): Promise<LiveWallet | undefined> {
  return brand === 'APPLEPAY' ? appleWallet() : googleWallet(settings, gateway);
}
