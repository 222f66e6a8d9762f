import { loadScript } from '../scriptLoader.ts';
import type { CheckoutInfo } from '../types.ts';

/**
 * The SRC system (Secure Remote Commerce, EMVCo's standard behind Click to Pay) as the Click to Pay form talks to it:
 * the shopper's e-mail looked up, the one-time code checked, the card list, and the chosen card handed to the gateway,
 * which answers the correlation id the checkout's submit pays with. No card number, token or cryptogram reaches this
 * page: the card list is masked, and what the payment needs stays between the SRC system and the gateway.
 *
 * Two SRC systems: the test environment's, simulated by the gateway (`simulatedSrc`), and in live the networks' own,
 * through their SDKs, which the widget loads into this page and initialises with the session the gateway opens for
 * the checkout (`networksSrc` over `networkSrc`, EMVCo's SRC JavaScript API).
 */

export type LookupResult =
  | { readonly status: 'OTP_SENT'; readonly channel: { readonly type: string; readonly masked: string } }
  | { readonly status: 'NOT_ENROLLED' }
  | { readonly status: 'OTP_CHANNEL_INVALID' };

export interface SrcCard {
  readonly id: string;
  readonly brand: string;
  readonly descriptor: string;
  readonly last4: string;
  readonly expiryMonth: string;
  readonly expiryYear: string;
}

export type ValidationResult =
  | { readonly status: 'VALIDATED'; readonly cards: readonly SrcCard[] }
  | { readonly status: 'OTP_INVALID'; readonly attemptsLeft?: number }
  | { readonly status: 'LOCKED' };

export interface SrcClient {
  lookUp(email: string): Promise<LookupResult>;
  validate(otp: string): Promise<ValidationResult>;
  /** The chosen card, held by the gateway for this checkout: its correlation id. */
  checkout(cardId: string): Promise<string>;
}

/** A step the SRC system or the gateway could not answer (network, a refusal): the form says Click to Pay is unavailable. */
export class SrcUnavailable extends Error {}

async function post(url: string, fields: Record<string, string>): Promise<Record<string, unknown>> {
  let response: Response;
  try {
    response = await fetch(url, {
      method: 'POST',
      headers: { 'Content-Type': 'application/x-www-form-urlencoded;charset=UTF-8' },
      body: new URLSearchParams(fields).toString(),
      credentials: 'omit',
    });
  } catch (error) {
    throw new SrcUnavailable(`the gateway could not be reached: ${String(error)}`);
  }
  const body = (await response.json().catch(() => ({}))) as { clickToPay?: Record<string, unknown>; result?: { description?: string } };
  if (!response.ok || !body.clickToPay) throw new SrcUnavailable(`the gateway answered ${response.status}: ${body.result?.description ?? ''}`);
  return body.clickToPay;
}

/** The test environment's SRC system, simulated by the gateway (server/clickToPay/), for this checkout. */
export function simulatedSrc(checkout: CheckoutInfo): SrcClient {
  const base = `${checkout.gatewayUrl}/v1/checkouts/${encodeURIComponent(checkout.id)}/clickToPay`;
  let sessionId = '';
  return {
    async lookUp(email) {
      const answer = await post(`${base}/lookup`, { email });
      sessionId = typeof answer.sessionId === 'string' ? answer.sessionId : '';
      return answer as unknown as LookupResult;
    },
    validate: async (otp) => (await post(`${base}/validation`, { sessionId, otp })) as unknown as ValidationResult,
    checkout: async (cardId) => String((await post(`${base}/checkout`, { sessionId, cardId })).correlationId),
  };
}

/**
 * A network's SRC SDK as EMVCo's SRC JavaScript API defines it (Mastercard's `SRCSDK_MASTERCARD`, Visa's
 * `vAdapters.VisaSRCI`), the few calls the form makes.
 */
export interface NetworkSrcSdk {
  init(input: {
    srciTransactionId: string;
    srcInitiatorId: string;
    srciDpaId: string;
    dpaTransactionOptions: unknown;
    dpaData?: { dpaName: string };
  }): Promise<unknown>;
  identityLookup(input: { consumerIdentity: { identityProvider: 'SRC'; identityType: 'EMAIL_ADDRESS'; identityValue: string } }): Promise<{ consumerPresent: boolean }>;
  initiateIdentityValidation(input?: Record<string, unknown>): Promise<{ maskedValidationChannel?: string }>;
  completeIdentityValidation(input: { validationData: string }): Promise<{ idToken: string }>;
  getSrcProfile(input: { idTokens: string[] }): Promise<{ profiles?: { maskedCards?: NetworkMaskedCard[] }[] }>;
  checkout(input: { srcDigitalCardId: string; idToken: string }): Promise<{ checkoutResponse?: string; dcfActionCode?: string }>;
}

interface NetworkMaskedCard {
  srcDigitalCardId: string;
  panLastFour: string;
  panExpirationMonth: string;
  panExpirationYear: string;
  paymentCardDescriptor?: string;
  digitalCardData?: { descriptorName?: string };
}

/** EMVCo's error reasons, as the SDKs throw them (`{ reason }`). */
const reasonOf = (error: unknown): string => String((error as { reason?: unknown } | null)?.reason ?? '');

const NETWORK_BRANDS: Readonly<Record<string, string>> = { visa: 'VISA', mastercard: 'MASTER', amex: 'AMEX' };

/**
 * Live: the networks' SRC systems through their SDKs, loaded in this page (docs/widget.md, the CSP). The first
 * network that knows the e-mail validates the shopper; the card list is its profile's masked cards; the chosen card's
 * encrypted checkout payload goes to the gateway (`deliver`), which answers the correlation id.
 */
export function networkSrc(sdks: readonly { readonly network: string; readonly sdk: NetworkSrcSdk }[], deliver: (network: string, checkoutResponse: string) => Promise<string>): SrcClient {
  let chosen: { readonly network: string; readonly sdk: NetworkSrcSdk } | undefined;
  let idToken = '';
  const sdkCall = async <T>(call: () => Promise<T>): Promise<T> => {
    try {
      return await call();
    } catch (error) {
      throw new SrcUnavailable(`the SRC system refused: ${reasonOf(error) || String(error)}`);
    }
  };
  return {
    async lookUp(email) {
      chosen = undefined;
      for (const candidate of sdks) {
        const found = await sdkCall(() => candidate.sdk.identityLookup({ consumerIdentity: { identityProvider: 'SRC', identityType: 'EMAIL_ADDRESS', identityValue: email } }));
        if (found.consumerPresent) {
          chosen = candidate;
          break;
        }
      }
      if (!chosen) return { status: 'NOT_ENROLLED' };
      const sdk = chosen.sdk;
      try {
        const sent = await sdk.initiateIdentityValidation();
        if (!sent.maskedValidationChannel) return { status: 'OTP_CHANNEL_INVALID' };
        return { status: 'OTP_SENT', channel: { type: sent.maskedValidationChannel.includes('@') ? 'EMAIL' : 'SMS', masked: sent.maskedValidationChannel } };
      } catch (error) {
        if (/OTP_SEND_FAILED|CHANNEL/.test(reasonOf(error))) return { status: 'OTP_CHANNEL_INVALID' };
        throw new SrcUnavailable(`the SRC system refused: ${reasonOf(error) || String(error)}`);
      }
    },
    async validate(otp) {
      const sdk = chosen?.sdk;
      if (!sdk) throw new SrcUnavailable('no SRC system knows the shopper');
      try {
        idToken = (await sdk.completeIdentityValidation({ validationData: otp })).idToken;
      } catch (error) {
        const reason = reasonOf(error);
        if (reason === 'CODE_INVALID') return { status: 'OTP_INVALID' };
        if (reason === 'RETRIES_EXCEEDED' || reason === 'ACCT_INACCESSIBLE') return { status: 'LOCKED' };
        throw new SrcUnavailable(`the SRC system refused: ${reason || String(error)}`);
      }
      const profile = await sdkCall(() => sdk.getSrcProfile({ idTokens: [idToken] }));
      const cards = (profile.profiles ?? []).flatMap((entry) => entry.maskedCards ?? []);
      return {
        status: 'VALIDATED',
        cards: cards.map((card) => ({
          id: card.srcDigitalCardId,
          brand: NETWORK_BRANDS[(card.paymentCardDescriptor ?? chosen?.network ?? '').toLowerCase()] ?? (chosen?.network ?? '').toUpperCase(),
          descriptor: card.digitalCardData?.descriptorName ?? '',
          last4: card.panLastFour,
          expiryMonth: card.panExpirationMonth,
          expiryYear: card.panExpirationYear,
        })),
      };
    },
    async checkout(cardId) {
      const current = chosen;
      if (!current) throw new SrcUnavailable('no SRC system knows the shopper');
      const done = await sdkCall(() => current.sdk.checkout({ srcDigitalCardId: cardId, idToken }));
      if (!done.checkoutResponse) throw new SrcUnavailable(`the SRC system ended the checkout: ${done.dcfActionCode ?? 'no payload'}`);
      return deliver(current.network, done.checkoutResponse);
    },
  };
}

/** Where each network's SDK puts itself once loaded. */
const SDK_OF: Readonly<Record<string, () => NetworkSrcSdk | undefined>> = {
  mastercard: () => (window as { SRCSDK_MASTERCARD?: NetworkSrcSdk }).SRCSDK_MASTERCARD,
  visa: () => (window as { vAdapters?: { VisaSRCI?: NetworkSrcSdk } }).vAdapters?.VisaSRCI,
};

/** What the gateway answers for a session with the networks (server/clickToPay/service.ts, start). */
interface NetworkSession {
  readonly srciTransactionId: string;
  readonly dpaName: string | null;
  readonly networks: readonly { readonly network: string; readonly srcDpaId: string; readonly srcInitiatorId: string; readonly sdkUrl: string }[];
  readonly dpaTransactionOptions: unknown;
}

/**
 * Live: a session with the networks for this checkout, opened by the gateway at the first step (its entity's DPA
 * registrations, its transaction), each network's SDK loaded and initialised with it; a network whose SDK does not
 * load or initialise is left out, none at all makes Click to Pay unavailable. The chosen card's checkout response goes
 * to the gateway with the session's id, which it must name.
 */
export function networksSrc(checkout: CheckoutInfo): SrcClient {
  const base = `${checkout.gatewayUrl}/v1/checkouts/${encodeURIComponent(checkout.id)}/clickToPay`;
  let started: Promise<SrcClient> | undefined;
  const start = async (): Promise<SrcClient> => {
    const session = (await post(`${base}/session`, {})) as unknown as NetworkSession;
    const sdks: { network: string; sdk: NetworkSrcSdk }[] = [];
    for (const { network, srcDpaId, srcInitiatorId, sdkUrl } of session.networks) {
      try {
        if (!SDK_OF[network]?.()) await loadScript(sdkUrl);
        const sdk = SDK_OF[network]?.();
        if (!sdk) continue;
        await sdk.init({
          srciTransactionId: session.srciTransactionId,
          srcInitiatorId,
          srciDpaId: srcDpaId,
          dpaTransactionOptions: session.dpaTransactionOptions,
          ...(session.dpaName ? { dpaData: { dpaName: session.dpaName } } : {}),
        });
        sdks.push({ network, sdk });
      } catch {
        // This network's SDK is unavailable; the others may know the shopper.
      }
    }
    if (sdks.length === 0) throw new SrcUnavailable("no network's SRC SDK could be loaded");
    return networkSrc(sdks, async (network, checkoutResponse) =>
      String((await post(`${base}/checkout`, { sessionId: session.srciTransactionId, network, checkoutResponse })).correlationId),
    );
  };
  const client = (): Promise<SrcClient> => {
    started ??= start().catch((error: unknown) => {
      started = undefined;
      throw error instanceof SrcUnavailable ? error : new SrcUnavailable(String(error));
    });
    return started;
  };
  return {
    lookUp: async (email) => (await client()).lookUp(email),
    validate: async (otp) => (await client()).validate(otp),
    checkout: async (cardId) => (await client()).checkout(cardId),
  };
}

/** The SRC system of the checkout's environment: a live checkout's id names a production cluster (`.prod…`). */
export function srcFor(checkout: CheckoutInfo): SrcClient {
  return /\.prod/.test(checkout.id) ? networksSrc(checkout) : simulatedSrc(checkout);
}
