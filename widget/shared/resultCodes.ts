/**
 * The classes of result codes (COMPAT §8), as merchant code classifies them: the gateway decides a payment's state by
 * them, the widget what to do with an answer. Only these patterns turn a code into a class.
 */

export const RESULT_CLASSES = {
  success: /^(000\.000\.|000\.100\.1|000\.[36]|000\.400\.[1][12]0)/,
  successReview: /^(000\.400\.0[^3]|000\.400\.100)/,
  pending: /^(000\.200)/,
  longPending: /^(800\.400\.5|100\.400\.500)/,
  rejectedThreeDSecureOrRisk: /^(000\.400\.[1][0-9][1-9]|000\.400\.2)/,
  rejectedByBank: /^(800\.[17]00|800\.800\.[123])/,
  rejectedCommunication: /^(900\.[1234]00|000\.400\.030)/,
  rejectedSystem: /^(800\.[56]|999\.|600\.1|800\.800\.[84])/,
  rejectedAsync: /^(100\.39[765])/,
  softDecline: /^(300\.100\.100)/,
  rejectedFormat: /^(200\.[123]|100\.[53][07]|800\.900|100\.[69]00\.500)/,
  rejectedReference: /^(700\.[1345][05]0)/,
  rejectedConfiguration: /^(600\.[23]|500\.[12]|800\.121)/,
  chargeback: /^(000\.100\.2)/,
} as const;

/** Successful, including "success, but review manually". */
export function isSuccessfulCode(code: string): boolean {
  return RESULT_CLASSES.success.test(code) || RESULT_CLASSES.successReview.test(code);
}

/** A chargeback's reason code (COMPAT §15): the result of a CB transaction. */
export function isChargebackCode(code: string): boolean {
  return RESULT_CLASSES.chargeback.test(code);
}

export function isPendingCode(code: string): boolean {
  return RESULT_CLASSES.pending.test(code);
}

export const RESULT_CODE_FORMAT = /^[0-9]{3}\.[0-9]{3}\.[0-9]{3}$/;
