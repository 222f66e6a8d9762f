import type { ParameterError } from '../domain/errors.ts';

/**
 * The vocabulary of the parameter catalogue. Every request parameter of the spec is one `ParamSpec`;
 * the validator (validate.ts) is the only code that interprets them.
 */

/** The request kinds that decide which parameters are required. */
export type Operation =
  | 'payment' // POST /v1/payments (PA, DB, CD)
  | 'backOffice' // POST /v1/payments/{id} (CP, RV, RF)
  | 'checkout' // POST /v1/checkouts
  | 'registration' // POST /v1/registrations
  | 'registrationUpdate' // POST /v1/registrations/{id}
  | 'schedule' // POST /scheduling/v1/schedules
  | 'query'; // query and reporting requests

/**
 * How a sensitive value is treated wherever it is shown back (parameterErrors, logs, answers) or kept:
 * - `pan`: an account number (card, token, bank account, gift card). Only its first six and last four characters
 *   are ever shown or kept in clear; what must be used again is sealed.
 * - `secret`: a security code, password, PIN, cryptogram or wallet token. Never shown back, never kept in clear.
 * - `authenticationData`: a 3-D Secure result the merchant sends (the CAVV). Hidden in parameterErrors and logs,
 *   but part of the payment the merchant reads back, as the platform's answers carry it.
 */
export type Sensitivity = 'pan' | 'secret' | 'authenticationData';

export interface ParamSpec {
  /**
   * The parameter name as the spec writes it, with `[n]` for a list index (`cart.items[n].name`)
   * and `[*]` for a free map key (`customParameters[*]`). Literal bracket keys stay literal
   * (`threeDSecure.schemeData[CB-ITEMSNB]`).
   */
  readonly name: string;
  /** Minimum length in characters (Unicode code points). */
  readonly min?: number;
  /** Maximum length in characters (Unicode code points). */
  readonly max?: number;
  /** The whole value must match (anchor it: ^...$). */
  readonly pattern?: RegExp;
  /** The value must be one of these, exactly (case-sensitive unless the list says otherwise). */
  readonly values?: readonly string[];
  /** For `[*]` names: what the map key must look like. */
  readonly keyPattern?: RegExp;
  /** For `[n]` names: the highest allowed index (cart.items: 999). */
  readonly maxIndex?: number;
  /** Operations in which the parameter must be present (unconditional requirement). */
  readonly requiredFor?: readonly Operation[];
  /** The message used when `pattern` does not match, e.g. "must be a date yyyy-MM-dd". */
  readonly formatMessage?: string;
  readonly sensitive?: Sensitivity;
}

/**
 * A cross-field rule: looks at the whole request, reports the parameters it finds at fault. `supplied` names what the
 * request's caller gives itself instead of a parameter (validateParameters), which counts as sent.
 */
export type CrossFieldRule = (params: ReadonlyMap<string, string>, operation: Operation, supplied: ReadonlySet<string>) => ParameterError[];
