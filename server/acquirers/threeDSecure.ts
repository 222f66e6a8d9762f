import { randomBytes, randomUUID } from 'node:crypto';
import type { ThreeDSecureRequest } from '../domain/commands.ts';

/**
 * The simulated 3-D Secure 2 directory server and issuer ACS (COMPAT §7), used only in the test environment. It
 * decides, from the test card and the merchant's test knobs, whether the card is enrolled and which flow the issuer
 * picks, and produces the values a real authentication returns (ECI, CAVV as verificationId, transaction ids,
 * version, status).
 *
 * When 3-D Secure runs at all: for cards the directory knows, for any card with
 * `customParameters[3DS2_enrolled]=true` or `customParameters[3DS2_flow]`, and whenever the merchant asks for it
 * with `threeDSecure.challengeIndicator`. Other cards are paid without it, as on a channel without 3-D Secure,
 * so the plain test cards keep their plain answers. A requested authentication of a card that is not enrolled
 * answers 000.400.109, which is a 3-D Secure rejection (COMPAT §8): the payment is not made.
 */

export type IssuerFlow = 'frictionless' | 'attempt' | 'challenge' | 'notEnrolled' | 'technicalError';

/** Test cards with a directory entry, and what their issuer does. */
const DIRECTORY: ReadonlyMap<string, IssuerFlow> = new Map([
  ['4200000000000091', 'frictionless'],
  ['5200000000000007', 'frictionless'],
  ['4200000000000109', 'attempt'],
  ['4200000000000042', 'challenge'],
  ['4200000000000018', 'challenge'],
  ['5200000000000015', 'challenge'],
  ['4012001037461114', 'technicalError'],
  ['4012001037141112', 'notEnrolled'],
]);

export const THREE_D_SECURE_VERSION = '2.2.0';

/** `threeDSecure.challengeIndicator` 04: "challenge requested (mandate)". */
const CHALLENGE_MANDATED = '04';

/**
 * The directory server a 3-D Secure authentication goes through: whether the card is enrolled and which flow its
 * issuer takes. A port: the gateway's use-case asks it, and only the test environment has one (the simulated one
 * below); a live gateway without a directory authenticates nothing itself and takes the merchant's external data.
 */
export interface ThreeDSecureDirectory {
  /** Which flow the issuer takes for this payment, or undefined when 3-D Secure does not run. */
  flowFor(cardNumber: string, request: ThreeDSecureRequest): IssuerFlow | undefined;
}

export const simulatedDirectory: ThreeDSecureDirectory = {
  flowFor(cardNumber, request) {
    const listed = DIRECTORY.get(cardNumber);
    const forced = request.testFlow;
    const indicator = request.challengeIndicator;
    if (listed === 'technicalError') return listed;
    const enrolled =
      request.testEnrolled || forced === 'challenge' || forced === 'frictionless' || (listed !== undefined && listed !== 'notEnrolled');
    if (!enrolled) return listed === 'notEnrolled' || indicator !== undefined ? 'notEnrolled' : undefined;
    if (forced === 'challenge' || forced === 'frictionless') return forced;
    if (indicator === CHALLENGE_MANDATED) return 'challenge';
    return listed === undefined || listed === 'notEnrolled' ? 'frictionless' : listed;
  },
};

/** The ids one authentication carries from its start to its result. */
export interface AuthenticationIds {
  readonly dsTransactionId: string;
  readonly acsTransactionId: string;
  readonly version: string;
}

export function newAuthenticationIds(): AuthenticationIds {
  return { dsTransactionId: randomUUID(), acsTransactionId: randomUUID(), version: THREE_D_SECURE_VERSION };
}

export type AuthenticationStatus = 'Y' | 'A' | 'N' | 'U';

/** Electronic commerce indicators by scheme: Mastercard has its own numbering. */
function eciOf(brand: string, status: AuthenticationStatus): string {
  const mastercard = brand === 'MASTER' || brand === 'MAESTRO';
  switch (status) {
    case 'Y':
      return mastercard ? '02' : '05';
    case 'A':
      return mastercard ? '01' : '06';
    default:
      return mastercard ? '00' : '07';
  }
}

/**
 * The response's threeDSecure object for a finished authentication. Only an authenticated (Y) or attempted (A)
 * authentication has a cryptogram (CAVV/AAV, 20 bytes → 28 base64 characters).
 */
export function authenticationResult(brand: string, status: AuthenticationStatus, ids: AuthenticationIds): Record<string, string> {
  const authenticated = status === 'Y' || status === 'A';
  return {
    eci: eciOf(brand, status),
    ...(authenticated ? { verificationId: randomBytes(20).toString('base64') } : {}),
    xid: randomBytes(20).toString('base64'),
    dsTransactionId: ids.dsTransactionId,
    acsTransactionId: ids.acsTransactionId,
    version: ids.version,
    enrollmentStatus: 'Y',
    authenticationStatus: status,
  };
}

/** The threeDSecure object of a card the directory reports as not enrolled. */
export function notEnrolledResult(): Record<string, string> {
  return { version: THREE_D_SECURE_VERSION, enrollmentStatus: 'N' };
}

/** The one-time code the simulated issuer accepts in a challenge (docs/widget.md, "Testing 3-D Secure"). */
export const TEST_CHALLENGE_CODE = '1234';
