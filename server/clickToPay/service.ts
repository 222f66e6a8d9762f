import { GatewayError, invalidParameters, withReason, type ParameterError } from '../domain/errors.ts';
import { newResourceId } from '../domain/ids.ts';
import { RESULTS } from '../domain/resultCodes.ts';
import type { GatewayEnvironment } from '../config.ts';
import type { Queryable, Store } from '../store/index.ts';
import type { ClickToPayRedemption } from '../checkouts/service.ts';
import { findCheckout, listAttempts } from '../checkouts/repository.ts';
import { checkoutKindOf, checkoutState } from '../checkouts/state.ts';
import { noSession } from '../checkouts/results.ts';
import { refuseUnlessOpen } from '../checkouts/service.ts';
import { insertSession, lockSession, markValidated, recordChoice, recordOtpFailure, redeemCorrelation } from './repository.ts';
import { hasCard, isValidOtp, lookUpProfile, maskedCardsOf, networkTokenOf, OTP_ATTEMPTS, type MaskedCard, type ValidationChannel } from './simulatedSrc.ts';

/**
 * Click to Pay for a checkout (issue 35 point 6), the shopper's steps with the SRC system and the redemption of their
 * choice by the checkout's submit:
 *
 *   lookUp(e-mail) ──► OTP_SENT (a session, the code "sent" to the masked channel) | NOT_ENROLLED | OTP_CHANNEL_INVALID
 *   validate(session, code) ──► VALIDATED (the masked cards) | OTP_INVALID (tries left) | LOCKED (the third wrong code)
 *   choose(session, card) ──► a correlation id, for this checkout, for CORRELATION_LIFETIME_MS
 *   the checkout's submit (paymentBrand=CLICK_TO_PAY, clickToPay.correlationId) ──► redeem: once, the network token
 *       and a fresh cryptogram, paid as a NETWORK token account (COMPAT §16) by the payment core
 *
 * In the test environment the SRC system is the gateway's simulator (simulatedSrc.ts); a live gateway has none to
 * reach (the networks' SDKs run in the shopper's browser, docs/widget.md), so these steps are refused there.
 */

/** How long a session may take from the e-mail to the chosen card. */
export const SESSION_LIFETIME_MS = 10 * 60_000;
/** How long the widget has to pay with the chosen card: the submit follows the choice at once. */
export const CORRELATION_LIFETIME_MS = 5 * 60_000;

export interface ClickToPayContext {
  readonly store: Store;
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

/**
 * A live gateway has no SRC system of its own: the shopper's steps run in the networks' SDKs, and the chosen card comes
 * as the network's encrypted checkout payload, which this gateway cannot open yet (no SRC keys per entity: docs/widget.md,
 * "Click to Pay in live"). Refused, saying which.
 */
function refuseInLive(context: ClickToPayContext, params: ReadonlyMap<string, string>): void {
  if (context.environment !== 'live') return;
  const reason = params.has('checkoutResponse')
    ? "a network's Click to Pay checkout payload cannot be decrypted: no SRC keys are configured for this gateway's entities"
    : "the simulated SRC system of Click to Pay is the test environment's; live pages use the networks' SDKs";
  throw new GatewayError(withReason(RESULTS.unsupportedPaymentMethod, reason), 400);
}

/** The checkout must still take a payment: a closed one gets the checkout's own refusal. */
async function requireOpenCheckout(db: Queryable, checkoutId: string, now: Date): Promise<void> {
  const checkout = await findCheckout(db, checkoutId);
  if (!checkout) throw noSession();
  const kind = checkoutKindOf(checkout);
  if (kind !== 'payment') throw new GatewayError(withReason(RESULTS.invalidParameter, 'Click to Pay pays a payment checkout, not a registration-only one'), 400);
  refuseUnlessOpen(checkoutState(checkout, await listAttempts(db, checkoutId), now), kind);
}

const sessionGone = () =>
  invalidParameters([{ name: 'sessionId', value: '', message: 'is no Click to Pay session of this checkout, or it expired: look the e-mail address up again' }]);

export async function lookUp(context: ClickToPayContext, checkoutId: string, params: ReadonlyMap<string, string>): Promise<LookupOutcome> {
  refuseInLive(context, params);
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
  refuseInLive(context, params);
  const errors: ParameterError[] = [];
  const sessionId = required(params, 'sessionId', SESSION_ID, 'must be the session id the lookup answered', errors);
  const otp = required(params, 'otp', OTP, 'must be the six digits of the code', errors);
  if (errors.length > 0) throw invalidParameters(errors);
  const now = context.now();
  return context.store.transaction(async (tx) => {
    const session = await lockSession(tx, sessionId, checkoutId);
    if (!session || session.expiresAt <= now) throw sessionGone();
    if (session.lockedAt) return { status: 'LOCKED' };
    if (session.validatedAt) return { status: 'VALIDATED', cards: maskedCardsOf(session.profileKey) };
    if (!isValidOtp(otp)) {
      const failures = session.otpFailures + 1;
      await recordOtpFailure(tx, session.id, failures >= OTP_ATTEMPTS ? now : null);
      return failures >= OTP_ATTEMPTS ? { status: 'LOCKED' } : { status: 'OTP_INVALID', attemptsLeft: OTP_ATTEMPTS - failures };
    }
    await markValidated(tx, session.id, now);
    return { status: 'VALIDATED', cards: maskedCardsOf(session.profileKey) };
  });
}

export async function choose(context: ClickToPayContext, checkoutId: string, params: ReadonlyMap<string, string>): Promise<{ correlationId: string }> {
  refuseInLive(context, params);
  const errors: ParameterError[] = [];
  const sessionId = required(params, 'sessionId', SESSION_ID, 'must be the session id the lookup answered', errors);
  const cardId = required(params, 'cardId', CARD_ID, 'must be the id of a card of the card list', errors);
  if (errors.length > 0) throw invalidParameters(errors);
  const now = context.now();
  await requireOpenCheckout(context.store, checkoutId, now);
  return context.store.transaction(async (tx) => {
    const session = await lockSession(tx, sessionId, checkoutId);
    if (!session || session.expiresAt <= now) throw sessionGone();
    if (session.lockedAt || !session.validatedAt) {
      throw invalidParameters([{ name: 'sessionId', value: '', message: 'has not validated its one-time code: the card list is not open' }]);
    }
    if (!hasCard(session.profileKey, cardId)) throw invalidParameters([{ name: 'cardId', value: cardId, message: 'is no card of the card list' }]);
    const correlationId = newResourceId();
    await recordChoice(tx, session.id, { cardId, correlationId, expiresAt: new Date(now.getTime() + CORRELATION_LIFETIME_MS) });
    return { correlationId };
  });
}

/**
 * The checkout's submit spends the correlation id (checkouts/submit.ts, under the checkout's row lock, in the
 * transaction that reserves the payment): the network token of the chosen card with a fresh cryptogram, or a refusal
 * that says the same for an id unknown, spent, expired or another checkout's, so a page learns nothing from it.
 */
export const redeemClickToPay: ClickToPayRedemption = async (tx, checkoutId, correlationId, now) => {
  const chosen = SESSION_ID.test(correlationId) ? await redeemCorrelation(tx, correlationId, checkoutId, now) : undefined;
  const payload = chosen && networkTokenOf(chosen.profileKey, chosen.cardId);
  if (!payload) {
    throw invalidParameters([
      { name: 'clickToPay.correlationId', value: '', message: 'is no card chosen for this checkout with Click to Pay, or it was used or expired: choose the card again' },
    ]);
  }
  return { brand: payload.brand, number: payload.token, expiryMonth: payload.expiryMonth, expiryYear: payload.expiryYear, cryptogram: payload.cryptogram };
};
