import { RESULTS } from '../domain/resultCodes.ts';
import { GatewayError, withReason } from '../domain/errors.ts';

/** 405 for a method a path does not have, naming the ones it has. */
export function methodNotAllowed(allowed: readonly string[]): GatewayError {
  return new GatewayError(
    withReason(RESULTS.invalidRequestStructure, `method not allowed; use ${allowed.join(' or ')}`),
    405,
    undefined,
    { Allow: [...allowed, 'OPTIONS'].join(', ') },
  );
}
