import { RESULTS, type Result } from '../domain/resultCodes.ts';
import { GatewayError } from '../domain/errors.ts';

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

export function alreadyPaid(): GatewayError {
  return refusal('checkout already paid: a successful payment has closed this checkout');
}

export function paymentInProgress(): GatewayError {
  return refusal('a payment for this checkout is in progress; try again once it has a result');
}

export function registrationOnly(): GatewayError {
  return refusal('this checkout is registration-only (no paymentType); it takes no payment');
}

export function tooManyDeclines(count: number): GatewayError {
  return refusal(`this checkout has had ${count} declined payments and takes no more; the merchant can start a new one`);
}
