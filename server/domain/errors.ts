import { RESULTS, type Result } from './resultCodes.ts';
import { MESSAGE_LIMIT, shownText } from './sensitive.ts';

/** A parameter at fault: its name, the value sent (masked on the way out, see GatewayError) and what is wrong. */
export interface ParameterError {
  readonly name: string;
  readonly value: string;
  readonly message: string;
}

/**
 * The errors use-cases throw: a result code and the HTTP status the answer takes (COMPAT §1), never a bare string.
 * The app's error handler (app.ts) turns them into the JSON envelope; nothing here knows about HTTP libraries.
 *
 * Whatever a refusal's description quotes of the request (an id, a parameter) is shown as shownText shows a caller's
 * text: card numbers masked, long text cut — done once, in the constructor. Its parameterErrors are kept as found and
 * masked on the one way out, the app's error handler (app.ts, params/validate.ts maskedParameterError: the catalogue
 * knows which parameters are secret), so no refusal built anywhere can send back what it quotes unmasked.
 */
export class GatewayError extends Error {
  readonly result: Result;
  readonly parameterErrors: readonly ParameterError[] | undefined;

  constructor(
    result: Result,
    readonly status: number,
    parameterErrors?: readonly ParameterError[],
    /** Headers the answer must carry, e.g. Allow on 405. */
    readonly headers: Readonly<Record<string, string>> = {},
  ) {
    const shown = { ...result, description: shownText(result.description, MESSAGE_LIMIT) };
    super(`${shown.code} ${shown.description}`);
    this.name = 'GatewayError';
    this.result = shown;
    this.parameterErrors = parameterErrors;
  }
}

/**
 * An operator's settings refused (smart retry, throttling, offered brands, settlement, FTP): every problem, named by
 * the field the admin API and the command line take — or an entity that does not exist. Nothing was written. Each
 * kind of settings has its subclass, so the admin API and the command line tell them apart.
 */
export class SettingsRefusedError extends Error {
  constructor(
    readonly problems: readonly ParameterError[],
    readonly unknownEntity = false,
  ) {
    super(unknownEntity ? 'no such entity' : problems.map((problem) => `${problem.name} ${problem.message}`).join('; '));
    this.name = new.target.name;
  }
}

/**
 * What a use-case throws when another run (a request whose lease ran out, a job taken over) is making the same
 * resource right now: nothing was done, and the caller may ask again once that run has its answer. Answered 409
 * `200.100.103`, as a repeated Idempotency-Key whose first request is still running.
 */
export class MadeByAnotherRunError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'MadeByAnotherRunError';
  }
}

/** The answer to a request whose resource another run is making (MadeByAnotherRunError, a running Idempotency-Key). */
export function stillBeingMade(): GatewayError {
  return new GatewayError(
    withReason(RESULTS.invalidRequestStructure, 'a request with this Idempotency-Key is still being processed; send it again once that one has its answer'),
    409,
  );
}

/** 400 with 200.300.404 (the app's error handler masks what the errors quote, whoever found the problem). */
export function invalidParameters(parameterErrors: readonly ParameterError[]): GatewayError {
  return new GatewayError(RESULTS.invalidParameter, 400, parameterErrors);
}

/** A result whose description carries a specific reason: "cannot capture (...): amount exceeds ...". */
export function withReason(result: Result, reason: string): Result {
  return { code: result.code, description: `${result.description}: ${reason}` };
}

/**
 * The result of a request over one of its limits (COMPAT §8, §17: HTTP 400, never 429): "Rejected by Throttling.",
 * then why when it is not the request limits (a sentence, no final period), and to try again later.
 */
export function throttledResult(reason?: string): Result {
  return reason ? { code: RESULTS.throttled.code, description: `Rejected by Throttling. ${reason}; please try again later.` } : RESULTS.throttled;
}

/** The answer to a request over a limit: 400 800.120.100, and when to try again (Retry-After, in whole seconds). */
export function throttledAnswer(retryAt: Date, now: Date, reason?: string): GatewayError {
  const seconds = Math.max(1, Math.ceil((retryAt.getTime() - now.getTime()) / 1000));
  return new GatewayError(throttledResult(reason), 400, undefined, { 'Retry-After': String(seconds) });
}
