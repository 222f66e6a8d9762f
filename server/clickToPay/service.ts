import { GatewayError, invalidParameters, withReason, type ParameterError } from '../domain/errors.ts';
import { newResourceId } from '../domain/ids.ts';
import { RESULTS } from '../domain/resultCodes.ts';
import type { GatewayEnvironment } from '../config.ts';
import type { Queryable, Store } from '../store/index.ts';
import type { CardVault } from '../vault/cardVault.ts';
import { eraseSealed, findSealed, keepSealed } from '../vault/repository.ts';
import type { ClickToPayCard, ClickToPayRedemption } from '../checkouts/service.ts';
import { findCheckout, listAttempts, type CheckoutRecord } from '../checkouts/repository.ts';
import { checkoutKindOf, checkoutState } from '../checkouts/state.ts';
import { noSession } from '../checkouts/results.ts';
import { refuseUnlessOpen } from '../checkouts/service.ts';
import { insertSession, lockSession, markValidated, recordChoice, recordNetworkChoice, recordOtpFailure, redeemCorrelation } from './repository.ts';
import { openCheckoutResponse, UnusablePayload } from './networkPayload.ts';
import { findClickToPaySettings, SRC_NETWORKS, type SrcNetwork } from './settings.ts';
import { hasCard, isValidOtp, lookUpProfile, maskedCardsOf, networkTokenOf, OTP_ATTEMPTS, type MaskedCard, type ValidationChannel } from './simulatedSrc.ts';

/**
 * Click to Pay for a checkout (issue 35 point 6), the shopper's steps with an SRC system and the redemption of their
 * choice by the checkout's submit. Two SRC systems:
 *
 * The test environment's, simulated by the gateway (simulatedSrc.ts), whose steps the widget asks here:
 *   lookUp(e-mail) ──► OTP_SENT (a session, the code "sent" to the masked channel) | NOT_ENROLLED | OTP_CHANNEL_INVALID
 *   validate(session, code) ──► VALIDATED (the masked cards) | OTP_INVALID (tries left) | LOCKED (the third wrong code)
 *   choose(session, card) ──► a correlation id, for this checkout, for CORRELATION_LIFETIME_MS
 *
 * The networks' (live; an operator may try their sandboxes from a test gateway too), whose steps run in their SDKs in
 * the shopper's browser, configured per entity (settings.ts):
 *   start() ──► a session: its id is the srciTransactionId the widget initialises each network's SDK with, and the
 *       entity's DPA registrations, the SDKs' URLs and the transaction's amount
 *   choose(session, network, checkoutResponse) ──► the network's signed, encrypted payload opened (networkPayload.ts),
 *       its token and cryptogram sealed in the vault, a correlation id as above
 *
 * Then the checkout's submit (paymentBrand=CLICK_TO_PAY, clickToPay.correlationId) redeems it: once, the network token
 * and its cryptogram, paid as a NETWORK token account (COMPAT §16) by the payment core. The simulated steps are
 * refused by a live gateway.
 */

/** How long a session may take from the e-mail to the chosen card. */
export const SESSION_LIFETIME_MS = 10 * 60_000;
/** How long the widget has to pay with the chosen card: the submit follows the choice at once. */
export const CORRELATION_LIFETIME_MS = 5 * 60_000;

export interface ClickToPayContext {
  readonly store: Store;
  /** Opens the entities' decryption keys, seals the networks' payloads until the submit pays them. */
  readonly vault: CardVault;
  readonly environment: GatewayEnvironment;
  readonly now: () => Date;
}

export type LookupOutcome =
  | { readonly status: 'OTP_SENT'; readonly sessionId: string; readonly channel: { readonly type: ValidationChannel; readonly masked: string } }
  | { readonly status: 'NOT_ENROLLED' }
  | { readonly status: 'OTP_CHANNEL_INVALID' };

export type ValidationOutcome =
  | { readonly status: 'VALIDATED'; readonly cards: readonly MaskedCard[] }
  | { readonly status: 'OTP_INVALID'; readonly attemptsLeft: number }
  | { readonly status: 'LOCKED' };

const EMAIL = /^[^\s@]{1,64}@[^\s@]{1,189}\.[^\s@]{2,63}$/;
const SESSION_ID = /^[0-9a-f]{32}$/;
const OTP = /^[0-9]{6}$/;
const CARD_ID = /^[A-Za-z0-9-]{1,64}$/;

/** A parameter the shopper typed, checked for its form; its value is never echoed (an e-mail, a code). */
function required(params: ReadonlyMap<string, string>, name: string, form: RegExp, message: string, errors: ParameterError[]): string {
  const value = params.get(name)?.trim();
  if (value === undefined || value === '') errors.push({ name, value: '', message: 'is required' });
  else if (!form.test(value)) errors.push({ name, value: '', message });
  return value ?? '';
}

/** A live gateway has no simulated SRC system: the shopper's steps run in the networks' SDKs (start, chooseNetworkCard). */
function refuseInLive(context: ClickToPayContext): void {
  if (context.environment !== 'live') return;
  throw new GatewayError(withReason(RESULTS.unsupportedPaymentMethod, "the simulated SRC system of Click to Pay is the test environment's; live pages use the networks' SDKs"), 400);
}

/** The checkout must still take a payment: a closed one gets the checkout's own refusal. */
async function requireOpenCheckout(db: Queryable, checkoutId: string, now: Date): Promise<CheckoutRecord> {
  const checkout = await findCheckout(db, checkoutId);
  if (!checkout) throw noSession();
  const kind = checkoutKindOf(checkout);
  if (kind !== 'payment') throw new GatewayError(withReason(RESULTS.invalidParameter, 'Click to Pay pays a payment checkout, not a registration-only one'), 400);
  refuseUnlessOpen(checkoutState(checkout, await listAttempts(db, checkoutId), now), kind);
  return checkout;
}

const sessionGone = () =>
  invalidParameters([{ name: 'sessionId', value: '', message: 'is no Click to Pay session of this checkout, or it expired: look the e-mail address up again' }]);

export async function lookUp(context: ClickToPayContext, checkoutId: string, params: ReadonlyMap<string, string>): Promise<LookupOutcome> {
  refuseInLive(context);
  const errors: ParameterError[] = [];
  const email = required(params, 'email', EMAIL, 'must be an e-mail address', errors);
  if (errors.length > 0) throw invalidParameters(errors);
  const now = context.now();
  await requireOpenCheckout(context.store, checkoutId, now);
  const profile = lookUpProfile(email);
  if (!profile) return { status: 'NOT_ENROLLED' };
  if (!profile.channel) return { status: 'OTP_CHANNEL_INVALID' };
  const sessionId = newResourceId();
  await insertSession(context.store, { id: sessionId, checkoutId, profileKey: profile.key, createdAt: now, expiresAt: new Date(now.getTime() + SESSION_LIFETIME_MS) });
  return { status: 'OTP_SENT', sessionId, channel: profile.channel };
}

export async function validate(context: ClickToPayContext, checkoutId: string, params: ReadonlyMap<string, string>): Promise<ValidationOutcome> {
  refuseInLive(context);
  const errors: ParameterError[] = [];
  const sessionId = required(params, 'sessionId', SESSION_ID, 'must be the session id the lookup answered', errors);
  const otp = required(params, 'otp', OTP, 'must be the six digits of the code', errors);
  if (errors.length > 0) throw invalidParameters(errors);
  const now = context.now();
  return context.store.transaction(async (tx) => {
    const session = await lockSession(tx, sessionId, checkoutId);
    if (!session || session.expiresAt <= now || session.profileKey === null) throw sessionGone();
    const { profileKey } = session;
    if (session.lockedAt) return { status: 'LOCKED' };
    if (session.validatedAt) return { status: 'VALIDATED', cards: maskedCardsOf(profileKey) };
    if (!isValidOtp(otp)) {
      const failures = session.otpFailures + 1;
      await recordOtpFailure(tx, session.id, failures >= OTP_ATTEMPTS ? now : null);
      return failures >= OTP_ATTEMPTS ? { status: 'LOCKED' } : { status: 'OTP_INVALID', attemptsLeft: OTP_ATTEMPTS - failures };
    }
    await markValidated(tx, session.id, now);
    return { status: 'VALIDATED', cards: maskedCardsOf(profileKey) };
  });
}

/** The card chosen: the simulated SRC system's card list, or (a `network` and its `checkoutResponse`) a network's payload. */
export async function choose(context: ClickToPayContext, checkoutId: string, params: ReadonlyMap<string, string>): Promise<{ correlationId: string }> {
  if (params.has('checkoutResponse') || params.has('network')) return chooseNetworkCard(context, checkoutId, params);
  refuseInLive(context);
  const errors: ParameterError[] = [];
  const sessionId = required(params, 'sessionId', SESSION_ID, 'must be the session id the lookup answered', errors);
  const cardId = required(params, 'cardId', CARD_ID, 'must be the id of a card of the card list', errors);
  if (errors.length > 0) throw invalidParameters(errors);
  const now = context.now();
  await requireOpenCheckout(context.store, checkoutId, now);
  return context.store.transaction(async (tx) => {
    const session = await lockSession(tx, sessionId, checkoutId);
    if (!session || session.expiresAt <= now || session.profileKey === null) throw sessionGone();
    if (session.lockedAt || !session.validatedAt) {
      throw invalidParameters([{ name: 'sessionId', value: '', message: 'has not validated its one-time code: the card list is not open' }]);
    }
    if (!hasCard(session.profileKey, cardId)) throw invalidParameters([{ name: 'cardId', value: cardId, message: 'is no card of the card list' }]);
    const correlationId = newResourceId();
    await recordChoice(tx, session.id, { cardId, correlationId, expiresAt: new Date(now.getTime() + CORRELATION_LIFETIME_MS) });
    return { correlationId };
  });
}

/** Answered by start(): what the widget initialises the networks' SDKs with (EMVCo SRC `init`). */
export interface NetworkSession {
  readonly srciTransactionId: string;
  readonly dpaName: string | null;
  readonly networks: readonly { readonly network: SrcNetwork; readonly srcDpaId: string; readonly srcInitiatorId: string; readonly sdkUrl: string }[];
  readonly dpaTransactionOptions: {
    readonly transactionAmount: { readonly transactionAmount: string; readonly transactionCurrencyCode: string };
    readonly paymentOptions: readonly { readonly dynamicDataType: string }[];
  };
}

const notConfigured = () =>
  new GatewayError(withReason(RESULTS.notConfiguredForMethod, 'Click to Pay with the networks is not configured for this entity (admin API PUT /admin/v1/entities/{entityId}/clickToPay)'), 400);

/** A session with the networks' SRC systems for the checkout, for the widget to initialise their SDKs with. */
export async function start(context: ClickToPayContext, checkoutId: string): Promise<NetworkSession> {
  const now = context.now();
  const checkout = await requireOpenCheckout(context.store, checkoutId, now);
  const settings = await findClickToPaySettings(context.store, context.vault, checkout.entityId);
  if (!settings) throw notConfigured();
  const srciTransactionId = newResourceId();
  await insertSession(context.store, { id: srciTransactionId, checkoutId, profileKey: null, createdAt: now, expiresAt: new Date(now.getTime() + SESSION_LIFETIME_MS) });
  return {
    srciTransactionId,
    dpaName: settings.dpaName,
    networks: settings.networks.map(({ network, srcDpaId, srcInitiatorId, sdkUrl }) => ({ network, srcDpaId, srcInitiatorId, sdkUrl })),
    dpaTransactionOptions: {
      transactionAmount: { transactionAmount: checkout.parameters.get('amount') ?? '', transactionCurrencyCode: checkout.parameters.get('currency') ?? '' },
      // A network token with its cryptogram: what the payment is made with (networkPayload.ts).
      paymentOptions: [{ dynamicDataType: 'CARD_APPLICATION_CRYPTOGRAM_SHORT_FORM' }],
    },
  };
}

const isNetwork = (value: string): value is SrcNetwork => (SRC_NETWORKS as readonly string[]).includes(value);

/**
 * A network's checkout response for the checkout's session, opened with the entity's keys: its token and cryptogram
 * sealed until the submit pays them, under a correlation id. A payload that cannot be paid is refused naming
 * `checkoutResponse` (why, never what it holds); a session's second payload, or a payload already used, likewise.
 */
async function chooseNetworkCard(context: ClickToPayContext, checkoutId: string, params: ReadonlyMap<string, string>): Promise<{ correlationId: string }> {
  const errors: ParameterError[] = [];
  const sessionId = required(params, 'sessionId', SESSION_ID, 'must be the srciTransactionId the session answered', errors);
  const network = params.get('network') ?? '';
  if (!isNetwork(network)) errors.push({ name: 'network', value: network.slice(0, 32), message: `must be the network whose SDK answered (${SRC_NETWORKS.join(', ')})` });
  const checkoutResponse = params.get('checkoutResponse') ?? '';
  if (checkoutResponse === '') errors.push({ name: 'checkoutResponse', value: '', message: 'is required: the checkoutResponse of the network’s checkout()' });
  if (errors.length > 0) throw invalidParameters(errors);
  const now = context.now();
  const checkout = await requireOpenCheckout(context.store, checkoutId, now);
  const settings = await findClickToPaySettings(context.store, context.vault, checkout.entityId);
  if (!settings) throw notConfigured();
  let opened;
  try {
    opened = await openCheckoutResponse(settings, network as SrcNetwork, checkoutResponse, sessionId);
  } catch (error) {
    if (error instanceof UnusablePayload) throw invalidParameters([{ name: 'checkoutResponse', value: '', message: `cannot be paid: ${error.message}` }]);
    throw error;
  }
  const payload = opened;
  return context.store.transaction(async (tx) => {
    const session = await lockSession(tx, sessionId, checkoutId);
    if (!session || session.expiresAt <= now || session.profileKey !== null) throw sessionGone();
    if (session.payloadId !== null || (await tx.query('SELECT 1 FROM click_to_pay_sessions WHERE src_correlation_id = $1', [payload.srcCorrelationId])).rows.length > 0) {
      throw invalidParameters([{ name: 'checkoutResponse', value: '', message: 'was already given for this session: start Click to Pay again' }]);
    }
    const payloadId = await keepSealed(tx, context.vault.seal(payload.card), now);
    const correlationId = newResourceId();
    await recordNetworkChoice(tx, session.id, { network, srcCorrelationId: payload.srcCorrelationId, payloadId, correlationId, expiresAt: new Date(now.getTime() + CORRELATION_LIFETIME_MS) });
    return { correlationId };
  });
}

/**
 * The checkout's submit spends the correlation id (checkouts/submit.ts, under the checkout's row lock, in the
 * transaction that reserves the payment): the network token of the chosen card with its cryptogram — a network's
 * payload opened from the vault and erased there, or the simulator's token with a fresh one — or a refusal that says
 * the same for an id unknown, spent, expired or another checkout's, so a page learns nothing from it.
 */
export function clickToPayRedemption(vault: CardVault): ClickToPayRedemption {
  return async (tx, checkoutId, correlationId, now) => {
    const chosen = SESSION_ID.test(correlationId) ? await redeemCorrelation(tx, correlationId, checkoutId, now) : undefined;
    let card: ClickToPayCard | undefined;
    if (chosen?.payloadId) {
      const sealed = await findSealed(tx, chosen.payloadId);
      card = sealed && vault.open<ClickToPayCard>(sealed);
      await eraseSealed(tx, chosen.payloadId, now);
    } else if (chosen?.profileKey && chosen.cardId) {
      const simulated = networkTokenOf(chosen.profileKey, chosen.cardId);
      card = simulated && { brand: simulated.brand, number: simulated.token, expiryMonth: simulated.expiryMonth, expiryYear: simulated.expiryYear, cryptogram: simulated.cryptogram };
    }
    if (!card) {
      throw invalidParameters([
        { name: 'clickToPay.correlationId', value: '', message: 'is no card chosen for this checkout with Click to Pay, or it was used or expired: choose the card again' },
      ]);
    }
    return card;
  };
}
