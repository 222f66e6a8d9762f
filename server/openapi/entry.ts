import type { Result } from '../domain/resultCodes.ts';
import type { Operation } from '../params/types.ts';
import type { RESULT_CLASSES } from '../../widget/shared/resultCodes.ts';
import type { Schema } from './parameters.ts';

/**
 * The vocabulary of the operation table (operations.ts, adminOperations.ts): what the OpenAPI document says of one
 * route, in the terms the gateway has (the catalogue's request kinds, the result codes, the components of schemas.ts).
 */

export type Tag = 'Payments' | 'Checkouts' | 'Registrations' | 'Schedules' | 'Query' | 'Settlement reports' | 'Shopper pages' | 'Providers' | 'Widget' | 'Admin' | 'Operations' | 'Documentation';

/**
 * Who may call: a merchant (`Authorization: Bearer <token>`, or the legacy pair authentication.userId/password),
 * the operator (ADMIN_TOKEN), a Prometheus scraper (METRICS_TOKEN), or anyone.
 */
export type Security = 'merchant' | 'admin' | 'metrics' | 'none';

/** A parameter of the route's own, outside the catalogue. */
export interface OwnParameter {
  readonly name: string;
  readonly description: string;
  readonly schema: Schema;
  readonly required?: boolean;
}

/** A catalogue parameter by its name (its spec says the rest), or one of the route's own. */
export type ParameterItem = string | OwnParameter;

export interface Answer {
  readonly description: string;
  /** A component schema of schemas.ts, for a JSON answer. */
  readonly schema?: string;
  /** Other than application/json; `none` for an answer without a body (204). */
  readonly contentType?: string;
}

export interface OperationEntry {
  readonly summary: string;
  readonly description?: string;
  readonly tag: Tag;
  readonly security: Security;
  /**
   * The form body: every parameter of the catalogue as this request kind checks them, every parameter of the catalogue
   * with none required (`catalogue`: a checkout's submit, whose checkout has the rest), or the ones named.
   */
  readonly form?: Operation | 'catalogue' | readonly ParameterItem[];
  /** Query-string parameters, one by one. */
  readonly query?: readonly ParameterItem[];
  /** The rules of a request kind whose parameters come one by one in the query string (query). */
  readonly rules?: Operation;
  /** A JSON body (the admin API): its schema; the admin API refuses fields it does not know. */
  readonly json?: Schema;
  /** Whether it takes an Idempotency-Key header (http/idempotency.ts). */
  readonly idempotent?: boolean;
  /** Its answers by HTTP status; the generator adds those every operation of its security has (document.ts). */
  readonly answers: Readonly<Record<number, Answer>>;
  /** The result codes it answers with, beyond those of its security (document.ts). */
  readonly codes?: readonly Result[];
  /** Classes of codes it may answer with (COMPAT §8: acquirers' declines are many). */
  readonly classes?: readonly (keyof typeof RESULT_CLASSES)[];
}

/** A parameter of the route's own. */
export const own = (name: string, description: string, schema: Schema, required = false): OwnParameter => ({ name, description, schema, required });
