import type { ContentfulStatusCode } from 'hono/utils/http-status';
import { RESULTS, type Result } from '../domain/resultCodes.ts';
import type { ParameterError } from '../params/types.ts';
import { maskedParameterError } from '../params/validate.ts';

/**
 * An error that crosses the HTTP edge: a result code and an HTTP status, never a bare string.
 * The error handler turns it into the JSON envelope.
 */
export class GatewayError extends Error {
  constructor(
    readonly result: Result,
    readonly status: ContentfulStatusCode,
    readonly parameterErrors?: readonly ParameterError[],
    /** Headers the answer must carry, e.g. Allow on 405. */
    readonly headers: Readonly<Record<string, string>> = {},
  ) {
    super(`${result.code} ${result.description}`);
    this.name = 'GatewayError';
  }
}

/** 400 with 200.300.404; card numbers and secrets are masked here, whoever found the problem. */
export function invalidParameters(parameterErrors: readonly ParameterError[]): GatewayError {
  return new GatewayError(RESULTS.invalidParameter, 400, parameterErrors.map(maskedParameterError));
}

/** A result whose description carries a specific reason: "cannot capture (...): amount exceeds ...". */
export function withReason(result: Result, reason: string): Result {
  return { code: result.code, description: `${result.description}: ${reason}` };
}

export function methodNotAllowed(allowed: readonly string[]): GatewayError {
  return new GatewayError(
    withReason(RESULTS.invalidRequestStructure, `method not allowed; use ${allowed.join(' or ')}`),
    405,
    undefined,
    { Allow: [...allowed, 'OPTIONS'].join(', ') },
  );
}

/** COMPAT §8: a request over one of its limits (HTTP 400, never 429). */
export function throttledError(reason?: string): GatewayError {
  return new GatewayError(reason ? withReason(RESULTS.throttled, reason) : RESULTS.throttled, 400);
}
