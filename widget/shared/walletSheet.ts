/**
 * The simulated wallet sheet of the test environment (issue 35): what the widget's wallet buttons (widget/app/wallet/)
 * and the gateway's sheet page (server/wallets/, its script widget/walletSheet/) share.
 *
 * In test, a wallet button opens the gateway's page `/v1/wallets/sheet` in an overlay frame on the merchant page,
 * standing in for Apple's and Google's own sheets: the tester picks one of the test cards below and approves or
 * cancels. The token the sheet makes stays in the sheet's frame, as a card number stays in the number frame: the widget
 * asks the sheet to post the payment (`submit`, the page's fields), and the sheet adds the wallet's token and posts only
 * to the checkout's submit endpoint on its own origin, answering with the gateway's answer (`result`). So the token never
 * reaches the merchant page; a fast checkout's page creates its checkout between `approved` and `submit`.
 *
 * Transport as the hosted fields' (protocol.ts): postMessage to one exact origin both ways, `event.source` and
 * `event.origin` checked, a random channel per button in the frame URL's hash; `v` is the sheet's own version.
 *
 *   sheet → widget   ready      {}                                 loaded and listening
 *                    approved   {network, authMethod, contact}      the tester approved: the network of the card, how
 *                                                                  Google Pay authenticated it, the shopper's contact
 *                                                                  data the merchant asked for
 *                    cancelled  {}                                 closed without paying
 *                    result     {requestId, status, body}          the gateway's answer to `submit`
 *   widget → sheet   submit     {requestId, action, fields}        post the payment with the token added
 */

export const WALLET_SHEET_VERSION = 1;
export const WALLET_SHEET_SOURCE = 'wpwl-wallet-sheet';

export type WalletBrand = 'APPLEPAY' | 'GOOGLEPAY';

export const isWallet = (brand: string): brand is WalletBrand => brand === 'APPLEPAY' || brand === 'GOOGLEPAY';

/** Card networks by the brand codes of shared/cards.ts. */
export type WalletNetwork = 'VISA' | 'MASTER' | 'AMEX';

/** How Google Pay authenticated a card: a device token with its cryptogram, or a card saved in the Google account. */
export type GoogleAuthMethod = 'PAN_ONLY' | 'CRYPTOGRAM_3DS';

/**
 * The shopper's data a wallet gives when the merchant asks for it (Apple Pay's requiredShippingContactFields, Google
 * Pay's emailRequired / shippingAddressRequired), in the wallet's own shape: Apple's `shippingContact`, Google's `email`
 * and `shippingAddress`. A fast checkout's createCheckout(json) receives it.
 */
export type SheetContact = Readonly<Record<string, unknown>>;

/** What a merchant may ask the sheet for. */
export const CONTACT_FIELDS = ['email', 'name', 'phone', 'address'] as const;
export type ContactField = (typeof CONTACT_FIELDS)[number];

/** The test shopper's data the simulated sheet gives, only what was asked, as the wallet would give it. */
export function testContact(brand: WalletBrand, wanted: readonly ContactField[]): SheetContact {
  if (wanted.length === 0) return {};
  const asked = (field: ContactField) => wanted.includes(field);
  const address = { addressLines: ['Invalidenstraße 117'], locality: 'Berlin', postalCode: '10115', countryCode: 'DE' };
  if (brand === 'APPLEPAY') {
    return {
      shippingContact: {
        ...(asked('email') ? { emailAddress: 'jane.jones@example.com' } : {}),
        ...(asked('name') ? { givenName: 'Jane', familyName: 'Jones' } : {}),
        ...(asked('phone') ? { phoneNumber: '+49 30 1234567' } : {}),
        ...(asked('address') ? address : {}),
      },
    };
  }
  return {
    ...(asked('email') ? { email: 'jane.jones@example.com' } : {}),
    ...(asked('name') || asked('address') || asked('phone')
      ? {
          shippingAddress: {
            ...(asked('name') ? { name: 'Jane Jones' } : {}),
            ...(asked('address') ? { address1: address.addressLines[0], locality: address.locality, postalCode: address.postalCode, countryCode: address.countryCode } : {}),
            ...(asked('phone') ? { phoneNumber: '+49 30 1234567' } : {}),
          },
        }
      : {}),
  };
}

export type SheetMessage =
  | { type: 'ready' }
  | { type: 'approved'; network: WalletNetwork; authMethod: GoogleAuthMethod | undefined; contact: SheetContact }
  | { type: 'cancelled' }
  | { type: 'result'; requestId: string; status: number; body: unknown };

export type SheetRequest = { type: 'submit'; requestId: string; action: string; fields: [string, string][] };

export type SheetEnvelope<M> = M & { source: typeof WALLET_SHEET_SOURCE; v: typeof WALLET_SHEET_VERSION; channel: string };

export function sheetEnvelope<M extends { type: string }>(message: M, channel: string): SheetEnvelope<M> {
  return { ...message, source: WALLET_SHEET_SOURCE, v: WALLET_SHEET_VERSION, channel };
}

/** A message of this version on `channel`. */
export function isSheetEnvelope(data: unknown, channel: string): data is SheetEnvelope<{ type: string }> {
  return (
    typeof data === 'object' &&
    data !== null &&
    (data as { source?: unknown }).source === WALLET_SHEET_SOURCE &&
    (data as { v?: unknown }).v === WALLET_SHEET_VERSION &&
    (data as { channel?: unknown }).channel === channel &&
    typeof (data as { type?: unknown }).type === 'string'
  );
}

/** What the sheet's URL hash carries: its channel and the one origin it talks to. */
export interface SheetLaunch {
  readonly channel: string;
  readonly parentOrigin: string;
}

export function parseSheetLaunch(hash: string): SheetLaunch | undefined {
  try {
    const launch = JSON.parse(decodeURIComponent(hash.replace(/^#/, ''))) as Partial<SheetLaunch> | null;
    if (typeof launch !== 'object' || launch === null) return undefined;
    if (typeof launch.channel !== 'string' || !/^[A-Za-z0-9_-]{8,64}$/.test(launch.channel)) return undefined;
    if (typeof launch.parentOrigin !== 'string' || !/^https?:\/\/[^/]+$/.test(launch.parentOrigin)) return undefined;
    return { channel: launch.channel, parentOrigin: launch.parentOrigin };
  } catch {
    return undefined;
  }
}

/** The sheet posts a payment only to a checkout's payment endpoint on its own (the gateway's) origin. */
export function isSheetPaymentTarget(action: string, sheetOrigin: string): URL | undefined {
  try {
    const target = new URL(action, sheetOrigin);
    return target.origin === sheetOrigin && /^\/v1\/checkouts\/[^/]+\/payment$/.test(target.pathname) ? target : undefined;
  } catch {
    return undefined;
  }
}

/**
 * A card of the simulated sheet: a test card of COMPAT §7 as the wallet holds it. Apple Pay's cards and Google Pay's
 * device tokens carry a cryptogram (no 3-D Secure); Google Pay's cards saved in the account (PAN_ONLY) are paid like a
 * typed card, with the simulated directory's 3-D Secure for an enrolled number (4200000000000042 challenges,
 * 4200000000000091 is frictionless).
 */
export interface WalletTestCard {
  /** Stable id: the radio's value, the test's handle. */
  readonly id: string;
  readonly network: WalletNetwork;
  readonly number: string;
  /** Which wallet holds it, and for Google Pay how it authenticates. */
  readonly wallets: readonly WalletBrand[];
  readonly authMethod?: GoogleAuthMethod;
  /** The answer a test token asks for (COMPAT §16 `testResult`): a decline. */
  readonly testResult?: string;
  /** The sheet's description of the card's outcome (a key of the `wallet` locale group). */
  readonly outcome: 'approved' | 'declined' | 'challenge' | 'frictionless';
}

export const WALLET_TEST_CARDS: readonly WalletTestCard[] = [
  { id: 'visa', network: 'VISA', number: '4200000000000000', wallets: ['APPLEPAY', 'GOOGLEPAY'], authMethod: 'CRYPTOGRAM_3DS', outcome: 'approved' },
  { id: 'master', network: 'MASTER', number: '5454545454545454', wallets: ['APPLEPAY', 'GOOGLEPAY'], authMethod: 'CRYPTOGRAM_3DS', outcome: 'approved' },
  { id: 'amex', network: 'AMEX', number: '377777777777770', wallets: ['APPLEPAY', 'GOOGLEPAY'], authMethod: 'CRYPTOGRAM_3DS', outcome: 'approved' },
  {
    id: 'declined',
    network: 'VISA',
    number: '4200000000000000',
    wallets: ['APPLEPAY', 'GOOGLEPAY'],
    authMethod: 'CRYPTOGRAM_3DS',
    testResult: '800.100.203',
    outcome: 'declined',
  },
  { id: 'panChallenge', network: 'VISA', number: '4200000000000042', wallets: ['GOOGLEPAY'], authMethod: 'PAN_ONLY', outcome: 'challenge' },
  { id: 'panFrictionless', network: 'VISA', number: '4200000000000091', wallets: ['GOOGLEPAY'], authMethod: 'PAN_ONLY', outcome: 'frictionless' },
  { id: 'panMaster', network: 'MASTER', number: '5454545454545454', wallets: ['GOOGLEPAY'], authMethod: 'PAN_ONLY', outcome: 'approved' },
];

/** Network names as each wallet spells them (Apple's paymentMethod.network, Google's cardNetwork). */
export const WALLET_NETWORK_NAMES: Readonly<Record<WalletNetwork, { readonly apple: string; readonly google: string; readonly label: string }>> = {
  VISA: { apple: 'Visa', google: 'VISA', label: 'Visa' },
  MASTER: { apple: 'MasterCard', google: 'MASTERCARD', label: 'Mastercard' },
  AMEX: { apple: 'Amex', google: 'AMEX', label: 'American Express' },
};

/**
 * The sheet's cards for a wallet, narrowed to the networks and Google Pay auth methods the merchant allows
 * (applePay.supportedNetworks, googlePay.allowedCardNetworks / allowedAuthMethods; none given: all).
 */
export function sheetCards(brand: WalletBrand, networks: readonly string[], authMethods: readonly string[]): WalletTestCard[] {
  return WALLET_TEST_CARDS.filter(
    (card) =>
      card.wallets.includes(brand) &&
      (networks.length === 0 || networks.includes(card.network)) &&
      (brand !== 'GOOGLEPAY' || authMethods.length === 0 || authMethods.includes(card.authMethod ?? '')),
  );
}

const hex = (random: () => number, length: number) => Array.from({ length }, () => Math.floor(random() * 16).toString(16)).join('');

/**
 * A test token of the sheet's card, shaped as the wallet's own (Apple's PKPaymentToken, Google's ECv2 token), with what
 * the real token encrypts in clear beside it, as a test entity reads it (COMPAT §16: test entities do not decrypt):
 * Apple's `applicationPrimaryAccountNumber` and `applicationExpirationDate`, Google's `paymentMethodDetails` (`pan`,
 * `expirationMonth`, `expirationYear`, `authMethod`), and `testResult` for a decline.
 */
export function testWalletToken(brand: WalletBrand, card: WalletTestCard, now: Date, random: () => number = Math.random): string {
  const year = now.getUTCFullYear() + 3;
  const last4 = card.number.slice(-4);
  const names = WALLET_NETWORK_NAMES[card.network];
  const result = card.testResult ? { testResult: card.testResult } : {};
  if (brand === 'APPLEPAY') {
    const transactionId = hex(random, 64);
    return JSON.stringify({
      paymentData: { version: 'EC_v1', data: 'TEST', signature: 'TEST', header: { ephemeralPublicKey: 'TEST', publicKeyHash: 'TEST', transactionId } },
      paymentMethod: { displayName: `${names.apple} ${last4}`, network: names.apple, type: 'credit' },
      transactionIdentifier: transactionId.toUpperCase(),
      applicationPrimaryAccountNumber: card.number,
      applicationExpirationDate: `${String(year % 100).padStart(2, '0')}1231`,
      ...result,
    });
  }
  return JSON.stringify({
    protocolVersion: 'ECv2',
    signature: 'TEST',
    intermediateSigningKey: { signedKey: 'TEST', signatures: ['TEST'] },
    signedMessage: 'TEST',
    paymentMethod: 'CARD',
    paymentMethodDetails: { pan: card.number, expirationMonth: 12, expirationYear: year, authMethod: card.authMethod ?? 'CRYPTOGRAM_3DS' },
    ...result,
  });
}

/** The token's parameters in the checkout's submit (COMPAT §16), the page's own wallet fields replaced. */
export function walletTokenFields(brand: WalletBrand, token: string): [string, string][] {
  return brand === 'APPLEPAY'
    ? [
        ['applePay.paymentToken', token],
        ['applePay.source', 'web'],
      ]
    : [
        ['googlePay.paymentToken', token],
        ['googlePay.source', 'web'],
      ];
}
