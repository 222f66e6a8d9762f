import { createHash } from 'node:crypto';
import type { CreatePaymentCommand } from '../domain/commands.ts';
import { invalidParameters } from '../domain/errors.ts';
import type { PaymentRecord } from '../domain/payment.ts';
import type { Result } from '../domain/resultCodes.ts';
import { cardView } from '../domain/cards.ts';
import type { CardVerification } from '../payments/request.ts';
import { paymentHttpStatus, resultOf } from '../payments/view.ts';
import type { RegistrationRecord } from '../registrations/repository.ts';
import { registrationBody, registrationResult } from '../registrations/storedCards.ts';

/**
 * A registration-only checkout (COMPAT §10: created with createRegistration=true and no paymentType) registers
 * the shopper's card. Its submit is an account verification, as Adyen's and Stripe's zero-amount authorizations
 * are: a preauthorization of 0.00 with createRegistration=true, made by the payments service exactly like a
 * checkout's payment, so the card is checked, 3-D Secure-authenticated (a challenge runs in the widget's frame)
 * and authorized by the acquirer before it is stored. Approved, the payment has stored the card (its
 * registrationId); declined, nothing is stored and the checkout stays open for another card. The verification is
 * a payment of the merchant like any other (a 0.00 PA among its payments and events).
 */

/** The verification's currency when the checkout names none (a registration-only checkout needs no currency). */
const DEFAULT_CURRENCY = 'EUR';

/**
 * COMPAT §10 shows `customParameters[SHOPPER_EndToEndIdentity]` in a registration checkout's answer. The gateway
 * sets it, unless the page sent its own, to the SHA-256 (hex) of the checkout id: an identity of the flow the
 * merchant can recompute, which says nothing about the shopper or the card.
 */
const END_TO_END_IDENTITY = 'SHOPPER_EndToEndIdentity';

function endToEndIdentityOf(checkoutId: string): string {
  return createHash('sha256').update(checkoutId, 'utf8').digest('hex');
}

/**
 * COMPAT §10 shows `risk{score}`. The gateway scores no payment (its risk velocity rules decline or pass, risk/);
 * "0" is the neutral score of doc 1's range (-99999 to +99999).
 */
export const NO_RISK_SCORE = { score: '0' } as const;

/**
 * The verification a registration-only checkout's submit is (the checkout's parameters with the shopper's merged on
 * top, mergeShopperSubmit): a zero-amount preauthorization that stores the card, in the checkout's currency, with the
 * flow's identity unless the page sent its own (payments/request.ts applies it).
 */
export function verificationOf(merged: ReadonlyMap<string, string>, checkoutId: string): CardVerification {
  return { currency: merged.get('currency') ?? DEFAULT_CURRENCY, customParameters: { [END_TO_END_IDENTITY]: endToEndIdentityOf(checkoutId) } };
}

/**
 * Only a card the shopper typed is registered: a stored card (registrationId) is registered already, and a
 * redirect brand or another instrument has no card to store.
 */
export function requireTypedCard(command: CreatePaymentCommand, params: ReadonlyMap<string, string>): void {
  if (command.instrument.kind === 'card') return;
  const name = params.has('registrationId') ? 'registrationId' : 'paymentBrand';
  throw invalidParameters([
    { name, value: params.get(name) ?? '', message: 'a registration-only checkout registers a card the shopper types (card.number and its fields)' },
  ]);
}

/** The answer of a registration-only checkout's result read: HTTP status, result and body (without the envelope). */
export interface RegistrationCheckoutAnswer {
  readonly status: 200 | 400;
  readonly result: Result;
  readonly body: Record<string, unknown>;
}

/**
 * GET /v1/checkouts/{id}/registration (and /payment) of a registration-only checkout whose verification is final
 * (COMPAT §10): approved, the registration it made (`id` the registration id, its card, customParameters) with the
 * registration's result; declined, the verification's result (HTTP 400) with `id` the verification's payment id and
 * the card that was refused, as POST /v1/registrations answers a refused card.
 */
export function registrationCheckoutAnswer(verification: PaymentRecord, registration: RegistrationRecord | undefined): RegistrationCheckoutAnswer {
  if (registration) {
    return { status: 200, result: registrationResult(registration), body: { ...registrationBody(registration), risk: NO_RISK_SCORE } };
  }
  // Declined (an approved verification of a typed card always made its registration).
  const customParameters = verification.requestEcho.customParameters;
  return {
    status: paymentHttpStatus(verification),
    result: resultOf(verification),
    body: {
      id: verification.id,
      ...(verification.paymentBrand ? { paymentBrand: verification.paymentBrand } : {}),
      ...(verification.card ? { card: cardView(verification.card) } : {}),
      ...(customParameters !== undefined ? { customParameters } : {}),
      risk: NO_RISK_SCORE,
    },
  };
}
