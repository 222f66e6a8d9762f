import { createHash, timingSafeEqual } from 'node:crypto';
import type { Context, MiddlewareHandler } from 'hono';
import { guardAuthentication, type HttpDependencies } from './access.ts';
import { GatewayError, invalidParameters, withReason } from '../domain/errors.ts';
import { RESULTS } from '../domain/resultCodes.ts';
import { shownText } from '../domain/sensitive.ts';
import type { ParameterError } from '../domain/errors.ts';
import { readBody } from './body.ts';
import { clientAddressOf } from './clientAddress.ts';
import type { AppEnv } from './context.ts';
import { isJsonObject } from '../domain/json.ts';

/**
 * The admin API's edge (`/admin/v1/...`, mounted by app.ts only with an ADMIN_TOKEN): the operator's bearer token,
 * checked in constant time and counted with the merchants' failed authentications, and JSON object bodies whose
 * fields are checked against the shapes a route expects. Used by every admin route (webhooks, smart retry, throttling).
 */

/** Largest JSON body the admin API reads (settings are a few hundred bytes). */
export const MAX_ADMIN_JSON_BYTES = 64 * 1024;

const BEARER = /^Bearer ([\x21-\x7e]{1,512})$/;

const digest = (value: string): Buffer => createHash('sha256').update(value, 'utf8').digest();

/** What an Authorization header is against a secret bearer token (compared in constant time). */
export type BearerCheck = 'missing' | 'malformed' | 'wrong' | 'match';

/** A checker of Authorization headers against `secret`: the admin API's and /metrics' (metrics/routes.ts). */
export function bearerChecker(secret: string): (header: string | undefined) => BearerCheck {
  const expected = digest(secret);
  return (header) => {
    if (!header) return 'missing';
    const token = BEARER.exec(header.trim())?.[1];
    if (!token) return 'malformed';
    return timingSafeEqual(digest(token), expected) ? 'match' : 'wrong';
  };
}

/** The admin token (or, for a route that takes several, any of them: ADMIN_TOKEN and the command line's, cli/localCommands.ts). */
export function requireAdminToken(deps: Pick<HttpDependencies, 'authFailures' | 'config' | 'now'>, adminToken: string | readonly string[]): MiddlewareHandler<AppEnv> {
  const checks = (typeof adminToken === 'string' ? [adminToken] : adminToken).map(bearerChecker);
  const check = (header: string | undefined): BearerCheck => {
    const found = checks.map((one) => one(header));
    return found.includes('match') ? 'match' : (found[0] ?? 'missing');
  };
  return async (c, next) => {
    const address = clientAddressOf(c, deps.config.clientAddressHeader);
    const failed = guardAuthentication(deps.authFailures, address, deps.now);
    const checked = check(c.req.header('authorization'));
    if (checked === 'missing' || checked === 'malformed') {
      const reason = checked === 'malformed' ? 'malformed Authorization header' : 'missing Authorization header';
      throw await failed(new GatewayError(withReason(RESULTS.invalidAuthentication, reason), 401, undefined, { 'WWW-Authenticate': 'Bearer' }));
    }
    if (checked === 'wrong') throw await failed(new GatewayError(withReason(RESULTS.invalidAuthentication, 'not the admin token'), 403));
    await next();
  };
}

/** The admin API's 404 for a thing it does not have (`no webhook …`): the id shown as any text a caller sent is. */
export function adminNotFound(what: string, id: string): GatewayError {
  return new GatewayError(withReason(RESULTS.invalidParameter, `no ${what} ${shownText(id, 64)}`), 404);
}

export type JsonShape = 'string' | 'strings' | 'boolean' | 'integer' | 'stringsOrString' | 'object' | 'array';

function shapeProblem(shape: JsonShape, value: unknown): string | undefined {
  const strings = Array.isArray(value) && value.every((entry) => typeof entry === 'string');
  switch (shape) {
    case 'string':
      return typeof value === 'string' ? undefined : 'must be a string';
    case 'boolean':
      return typeof value === 'boolean' ? undefined : 'must be true or false';
    case 'integer':
      return Number.isSafeInteger(value) ? undefined : 'must be an integer';
    case 'strings':
      return strings ? undefined : 'must be an array of strings';
    case 'stringsOrString':
      return strings || typeof value === 'string' ? undefined : 'must be an array of strings or a string';
    case 'object':
      return isJsonObject(value) ? undefined : 'must be a JSON object';
    case 'array':
      return Array.isArray(value) ? undefined : 'must be a JSON array';
  }
}

/**
 * The JSON object body, each field of its expected shape; anything else is 400 200.300.404 with parameterErrors. A
 * value is shown back only for a field that is unknown or a string of the wrong shape: a known secret field (a
 * webhook's secret) that is a string passes here, and the use-case that refuses it does not show it.
 */
export async function adminJsonBody(c: Context<AppEnv>, shapes: Readonly<Record<string, JsonShape>>): Promise<Record<string, unknown>> {
  const tooLarge = () => new GatewayError(withReason(RESULTS.invalidParameter, `request body larger than ${MAX_ADMIN_JSON_BYTES} bytes`), 413);
  if (Number(c.req.header('content-length') ?? '0') > MAX_ADMIN_JSON_BYTES) throw tooLarge();
  const bytes = await readBody(c);
  if (bytes.length > MAX_ADMIN_JSON_BYTES) throw tooLarge();
  let parsed: unknown;
  try {
    parsed = JSON.parse(new TextDecoder('utf-8', { fatal: true }).decode(bytes));
  } catch {
    throw invalidParameters([{ name: 'body', value: '', message: 'must be a JSON object' }]);
  }
  if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) {
    throw invalidParameters([{ name: 'body', value: '', message: 'must be a JSON object' }]);
  }
  const body = parsed as Record<string, unknown>;
  const errors: ParameterError[] = [];
  for (const [name, value] of Object.entries(body)) {
    const shape = shapes[name];
    const shown = typeof value === 'string' ? value : '';
    if (!shape) errors.push({ name, value: shown, message: `is not a known field (known: ${Object.keys(shapes).join(', ')})` });
    else {
      const problem = shapeProblem(shape, value);
      if (problem) errors.push({ name, value: shown, message: problem });
    }
  }
  if (errors.length > 0) throw invalidParameters(errors);
  return body;
}

/**
 * adminJsonBody for a body carrying secrets (a private key, a certificate): a refusal quotes back only the values of
 * `quotable` fields — a secret sent under a mistyped name is still the secret.
 */
export async function adminJsonBodyWithSecrets(
  c: Context<AppEnv>,
  shapes: Readonly<Record<string, JsonShape>>,
  quotable: ReadonlySet<string>,
): Promise<Record<string, unknown>> {
  try {
    return await adminJsonBody(c, shapes);
  } catch (error) {
    if (error instanceof GatewayError && error.parameterErrors) {
      throw invalidParameters(error.parameterErrors.map((problem) => (quotable.has(problem.name) ? problem : { ...problem, value: '' })));
    }
    throw error;
  }
}
