import { RESULTS, type Result } from '../domain/resultCodes.ts';
import { GatewayError } from '../domain/errors.ts';
import type { CheckoutKind } from './state.ts';

/**
 * The answers of the checkout endpoints (COMPAT §2, §8). Every refusal of a checkout that cannot be used is
 * 400 with 200.300.404, as merchants' code expects; the description says why.
 */

export const CHECKOUT_RESULTS = {
  created: { code: '000.200.100', description: 'successfully created checkout' },
  updated: { code: '000.200.101', description: 'successfully updated checkout' },
  deleted: { code: '000.200.102', description: 'successfully deleted checkout' },
} as const satisfies Record<string, Result>;

/** The platform's wording, which merchant code and support articles search for. */
export const NO_SESSION_DESCRIPTION = 'No payment session found for the requested id';

function refusal(description: string): GatewayError {
  return new GatewayError({ code: RESULTS.invalidParameter.code, description }, 400);
}

/**
 * Unknown, deleted, another entity's, expired, or already read: the checkout cannot be used. Unknown,
 * deleted and foreign ids get the same answer, so a caller learns nothing about other merchants' checkouts.
 */
export function noSession(reason?: string): GatewayError {
  return refusal(reason ? `${NO_SESSION_DESCRIPTION}: ${reason}` : NO_SESSION_DESCRIPTION);
}

export const REASONS = {
  expired: 'the checkout expired 30 minutes after it was created',
  resultRead: 'its final result has already been read',
} as const;

export function alreadyPaid(kind: CheckoutKind): GatewayError {
  return refusal(
    kind === 'payment'
      ? 'checkout already paid: a successful payment has closed this checkout'
      : 'checkout already used: the shopper\'s card has been registered, which closed this checkout',
  );
}

export function paymentInProgress(kind: CheckoutKind): GatewayError {
  return refusal(`a ${kind} for this checkout is in progress; try again once it has a result`);
}

/** A payment submit (POST /payment) on a checkout created registration-only. */
export function registrationOnly(): GatewayError {
  return refusal(
    'this checkout is registration-only (no paymentType); it takes no payment: the card is submitted to /v1/checkouts/{id}/registration',
  );
}

/** A registration submit (POST /registration), or its result read, on a checkout created to take a payment. */
export function notRegistrationOnly(): GatewayError {
  return refusal(
    'this checkout takes a payment (it has a paymentType), not a registration: its submit and result are at /v1/checkouts/{id}/payment',
  );
}

export function tooManyDeclines(count: number, kind: CheckoutKind): GatewayError {
  const what = kind === 'payment' ? 'declined payments' : 'declined card verifications';
  return refusal(`this checkout has had ${count} ${what} and takes no more; the merchant can start a new one`);
}
