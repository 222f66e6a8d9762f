import type { RequestLimits } from '../config.ts';
import type { ParameterError } from '../domain/errors.ts';

/**
 * The request limits of COMPAT §17 that an entity may have set apart from the gateway's defaults (THROTTLE_*), by the
 * name the admin API and the command line use. Each counts requests in a fixed window per bucket: the entity, or one
 * resource of it (a payment, a checkout, a query's id). 0 means no limit.
 */

export const LIMIT_NAMES = [
  'requestsPerMinute',
  'paymentCreationsPerMinute',
  'paymentReadsPerMinute',
  'backOfficePerMinute',
  'checkoutReadsPerMinute',
  'queryReadsPerMinute',
  'listQueriesPerSecond',
] as const;

export type LimitName = (typeof LIMIT_NAMES)[number];
export type EntityLimits = Readonly<Record<LimitName, number>>;

export interface LimitDefinition {
  readonly windowMs: number;
  /** Counted per entity, or per resource of the entity (the request names it). */
  readonly per: 'entity' | 'resource';
  /** What it limits, for people (docs/operating.md, CLI). */
  readonly what: string;
}

export const LIMITS: Readonly<Record<LimitName, LimitDefinition>> = {
  requestsPerMinute: { windowMs: 60_000, per: 'entity', what: 'every authenticated request of the entity' },
  paymentCreationsPerMinute: {
    windowMs: 60_000,
    per: 'entity',
    what: 'payments made (POST /v1/payments, checkout submits, registrations and their payments, schedules)',
  },
  paymentReadsPerMinute: { windowMs: 60_000, per: 'resource', what: 'GET /v1/payments/{id}, /v1/registrations/{id}, /scheduling/v1/schedules/{id}, per id' },
  backOfficePerMinute: { windowMs: 60_000, per: 'entity', what: 'POST /v1/payments/{id} (captures, refunds, reversals, chargebacks); updating, deleting or extending a registration; cancelling a schedule' },
  checkoutReadsPerMinute: { windowMs: 60_000, per: 'resource', what: 'GET /v1/checkouts/{id}/payment (or /registration), per checkout' },
  queryReadsPerMinute: { windowMs: 60_000, per: 'resource', what: 'GET /v1/query/{id}, per id' },
  listQueriesPerSecond: { windowMs: 1_000, per: 'entity', what: 'list queries (GET /v1/query) and settlement reports' },
};

/** The largest limit accepted (per window). */
export const MAX_LIMIT = 1_000_000_000;

/** The gateway's defaults (THROTTLE_* variables), as limits by name. */
export function defaultLimits(limits: RequestLimits): EntityLimits {
  return {
    requestsPerMinute: limits.requestsPerMinute,
    paymentCreationsPerMinute: limits.paymentCreationsPerMinute,
    paymentReadsPerMinute: limits.paymentReadsPerMinute,
    backOfficePerMinute: limits.backOfficePerMinute,
    checkoutReadsPerMinute: limits.checkoutReadsPerMinute,
    queryReadsPerMinute: limits.queryReadsPerMinute,
    listQueriesPerSecond: limits.listQueriesPerSecond,
  };
}

const isLimitName = (name: string): name is LimitName => (LIMIT_NAMES as readonly string[]).includes(name);

/**
 * An entity's own limits as given (a JSON object of name → number): every problem, each named `<field>.<name>`, or
 * the limits. A value must be an integer from 0 to MAX_LIMIT.
 */
export function checkLimitOverrides(
  input: unknown,
  field = 'limits',
): { readonly limits: Partial<Record<LimitName, number>> } | { readonly problems: readonly ParameterError[] } {
  if (typeof input !== 'object' || input === null || Array.isArray(input)) {
    return { problems: [{ name: field, value: '', message: 'must be an object of limit names and numbers' }] };
  }
  const problems: ParameterError[] = [];
  const limits: Partial<Record<LimitName, number>> = {};
  for (const [name, value] of Object.entries(input)) {
    const shown = typeof value === 'string' || typeof value === 'number' ? String(value) : '';
    if (!isLimitName(name)) {
      problems.push({ name: `${field}.${name}`, value: shown, message: `is not a known limit (known: ${LIMIT_NAMES.join(', ')})` });
      continue;
    }
    if (typeof value !== 'number' || !Number.isInteger(value) || value < 0 || value > MAX_LIMIT) {
      problems.push({ name: `${field}.${name}`, value: shown, message: `must be an integer from 0 (no limit) to ${MAX_LIMIT}` });
      continue;
    }
    limits[name] = value;
  }
  return problems.length > 0 ? { problems } : { limits };
}
