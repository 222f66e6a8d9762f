import { randomBytes } from 'node:crypto';

/**
 * The simulated SRC system (Secure Remote Commerce, the EMVCo standard behind Click to Pay) of the test environment:
 * a fixed, documented set of shoppers' profiles (docs/widget.md, "Click to Pay"), found by their e-mail address, each
 * with where its one-time code goes and its enrolled cards. What a real SRC system keeps — the cards' numbers, their
 * network tokens (DPANs) — stays here: the gateway's rows name a profile and a card by their keys, and a payment gets
 * the token and a fresh cryptogram only when the checkout's submit redeems the shopper's choice (service.ts).
 *
 * The DPANs are test cards of COMPAT §7, so the simulated acquirer answers them as it answers those cards.
 */

/** The one-time code that validates every profile's identity in the simulator. */
export const SIMULATED_OTP = '123456';

/** Wrong codes in a row that lock the profile for the session (the SRC systems allow three tries). */
export const OTP_ATTEMPTS = 3;

export type ValidationChannel = 'EMAIL' | 'SMS';

/** An enrolled card as the shopper sees it in the card list: never its number. */
export interface MaskedCard {
  /** The SRC system's id of the card (EMVCo `srcDigitalCardId`). */
  readonly id: string;
  /** The card network, as a paymentBrand. */
  readonly brand: 'VISA' | 'MASTER' | 'AMEX';
  /** What the issuer calls the card (EMVCo `digitalCardData.descriptorName`). */
  readonly descriptor: string;
  /** The last four digits of the card's own number (not of its token), as printed on the card. */
  readonly last4: string;
  readonly expiryMonth: string;
  readonly expiryYear: string;
}

interface EnrolledCard extends MaskedCard {
  /** The card's network token for this merchant (a DPAN): what the payment is made with. */
  readonly token: string;
}

interface Profile {
  readonly key: string;
  /** Where the code is sent, masked as the SRC system shows it; none: the profile has no channel that can take one. */
  readonly channel?: { readonly type: ValidationChannel; readonly masked: string };
  readonly cards: readonly EnrolledCard[];
}

const PROFILES: Readonly<Record<string, Profile>> = {
  'jane.jones@example.com': {
    key: 'jane',
    channel: { type: 'EMAIL', masked: 'ja•••••••@example.com' },
    cards: [
      { id: 'src-jane-visa', brand: 'VISA', descriptor: 'Visa Classic', last4: '1111', expiryMonth: '12', expiryYear: '2034', token: '4200000000000000' },
      { id: 'src-jane-master', brand: 'MASTER', descriptor: 'Mastercard Gold', last4: '4444', expiryMonth: '05', expiryYear: '2033', token: '5454545454545454' },
    ],
  },
  'max.mustermann@example.com': {
    key: 'max',
    channel: { type: 'SMS', masked: '+49 ••• •••• 42' },
    cards: [{ id: 'src-max-amex', brand: 'AMEX', descriptor: 'American Express Green', last4: '0005', expiryMonth: '08', expiryYear: '2032', token: '377777777777770' }],
  },
  'no.channel@example.com': { key: 'nochannel', cards: [] },
};

const PROFILES_BY_KEY = new Map(Object.values(PROFILES).map((profile) => [profile.key, profile]));

/** What an e-mail address finds (EMVCo `identityLookup`): a profile's key, or nothing (not enrolled). */
export function lookUpProfile(email: string): { readonly key: string; readonly channel: Profile['channel'] } | undefined {
  const profile = PROFILES[email.trim().toLowerCase()];
  return profile && { key: profile.key, channel: profile.channel };
}

/** Whether the code validates the identity (EMVCo `completeIdentityValidation`). */
export function isValidOtp(otp: string): boolean {
  return otp === SIMULATED_OTP;
}

/** The profile's cards as the card list shows them. */
export function maskedCardsOf(profileKey: string): MaskedCard[] {
  return (PROFILES_BY_KEY.get(profileKey)?.cards ?? []).map(({ token: _token, ...masked }) => masked);
}

/** A card of the profile, by its SRC id. */
export function hasCard(profileKey: string, cardId: string): boolean {
  return PROFILES_BY_KEY.get(profileKey)?.cards.some((card) => card.id === cardId) ?? false;
}

/** What the SRC system hands the payment for the chosen card (EMVCo `checkout`): the network token and its cryptogram. */
export interface NetworkTokenPayload {
  readonly brand: MaskedCard['brand'];
  readonly token: string;
  readonly expiryMonth: string;
  readonly expiryYear: string;
  /** A one-time cryptogram (base64, 28 characters): a new one for every payment, as the networks make them. */
  readonly cryptogram: string;
}

export function networkTokenOf(profileKey: string, cardId: string): NetworkTokenPayload | undefined {
  const card = PROFILES_BY_KEY.get(profileKey)?.cards.find((candidate) => candidate.id === cardId);
  if (!card) return undefined;
  return { brand: card.brand, token: card.token, expiryMonth: card.expiryMonth, expiryYear: card.expiryYear, cryptogram: randomBytes(20).toString('base64') };
}
