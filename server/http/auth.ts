import type { MiddlewareHandler } from 'hono';
import { ENTITY_ID } from '../domain/ids.ts';
import { RESULTS, type Result } from '../domain/resultCodes.ts';
import { clientAddressOf } from './clientAddress.ts';
import { guardAuthentication, type HttpDependencies, type RequestLimiter } from './access.ts';
import type { AppEnv } from './context.ts';
import { GatewayError, invalidParameters, withReason } from '../domain/errors.ts';
import type { Context } from 'hono';

const BEARER = /^Bearer ([\x21-\x7e]{1,512})$/;

function forbidden(reason: string): GatewayError {
  return new GatewayError(withReason(RESULTS.invalidAuthentication, reason), 403);
}

function unauthorized(result: Result): GatewayError {
  return new GatewayError(result, 401, undefined, { 'WWW-Authenticate': 'Bearer' });
}

/** The legacy credentials' parameters (COMPAT §1): read here, and gone from the request's parameters after. */
const USER_ID = 'authentication.userId';
const PASSWORD = 'authentication.password';

type Credentials = Pick<HttpDependencies, 'tokenAccess' | 'legacyAccess'>;

/**
 * The entities the request's credentials may act for, and what to call those credentials in a refusal; throws the
 * refusal (counted by `failed`) when there are none. The header decides when there is one; without it, the legacy
 * pair from the body or query string.
 */
async function entitiesOf(
  c: Context<AppEnv>,
  deps: Credentials,
  legacy: { readonly userId: string | undefined; readonly password: string | undefined },
  failed: (failure: GatewayError) => Promise<GatewayError>,
): Promise<{ readonly entityIds: ReadonlySet<string>; readonly credentials: string; readonly legacy: boolean }> {
  const header = c.req.header('authorization');
  if (!header && (legacy.userId !== undefined || legacy.password !== undefined)) {
    const access = legacy.userId !== undefined && legacy.password !== undefined ? await deps.legacyAccess(legacy.userId, legacy.password) : undefined;
    // Never the values: a refusal names the parameters only.
    if (!access?.known) throw await failed(forbidden(`unknown ${USER_ID} or wrong ${PASSWORD}`));
    return { entityIds: access.entityIds, credentials: `the ${USER_ID}`, legacy: true };
  }
  const token = header ? BEARER.exec(header.trim())?.[1] : undefined;
  if (!token) {
    throw await failed(
      unauthorized(
        withReason(RESULTS.invalidAuthentication, header ? 'malformed Authorization header' : `missing Authorization header (or ${USER_ID} and ${PASSWORD})`),
      ),
    );
  }
  const access = await deps.tokenAccess(token);
  if (!access.known) throw await failed(forbidden('unknown access token'));
  return { entityIds: access.entityIds, credentials: 'the access token', legacy: false };
}

/**
 * `Authorization: Bearer <token>` on every API call (spec doc 1 §5): a missing or malformed header is 401; an unknown
 * token, or one not allowed for the entityId, is 403 with 800.900.300. Without a header, the legacy pair
 * `authentication.userId` / `authentication.password` (COMPAT §1), from the body or the query string, is checked
 * instead, and answered the same way: unknown, revoked or wrong is 403 800.900.300, as an unknown token. With a
 * header, the header decides and the pair is ignored. Either way the pair leaves the request's parameters here, before
 * any handler: nothing after this (validation, echoes, stored checkout parameters, Idempotency-Key fingerprints,
 * logs) can show or keep it.
 * `authentication.entityId` is accepted as an alias of `entityId` (legacy servers, COMPAT §1).
 * Every such failure counts against the client's address; an address over its limit is refused with 800.120.100
 * before its credentials are looked at (access.ts, throttling/authFailures.ts).
 * An authenticated request then counts against its entity's request limits (COMPAT §17, throttling/service.ts):
 * requestsPerMinute, and `limit`, the route's own (payment creations, a payment's reads, ...), in one count.
 */
export function requireMerchant<Use extends object>(
  deps: Pick<HttpDependencies, 'tokenAccess' | 'legacyAccess' | 'authFailures' | 'config' | 'now'> & { readonly throttling?: RequestLimiter<Use> },
  limit?: Use | ((c: Context<AppEnv>) => Use | undefined),
): MiddlewareHandler<AppEnv> {
  const { authFailures, throttling } = deps;
  return async (c, next) => {
    const params = c.get('params');
    const legacy = { userId: params.get(USER_ID), password: params.get(PASSWORD) };
    params.delete(USER_ID);
    params.delete(PASSWORD);
    const address = clientAddressOf(c, deps.config.clientAddressHeader);
    const failed = guardAuthentication(authFailures, address, deps.now);

    const { entityIds, credentials, legacy: legacyPair } = await entitiesOf(c, deps, legacy, failed);
    const entityId = params.get('entityId') ?? params.get('authentication.entityId');
    const entityParam = params.has('entityId') ? 'entityId' : 'authentication.entityId';
    const alias = params.get('authentication.entityId');
    if (params.has('entityId') && alias !== undefined && alias !== entityId) {
      throw invalidParameters([
        { name: 'authentication.entityId', value: alias, message: 'must equal entityId when both are sent' },
      ]);
    }
    if (entityId === undefined) {
      throw invalidParameters([{ name: 'entityId', value: '', message: 'is required' }]);
    }
    if (!ENTITY_ID.test(entityId)) {
      throw invalidParameters([
        { name: entityParam, value: entityId, message: 'must be 32 lowercase hexadecimal characters' },
      ]);
    }
    if (!entityIds.has(entityId)) throw await failed(forbidden(`${credentials} is not allowed for this entityId`));
    c.set('entityId', entityId);
    c.set('credentials', legacyPair ? 'legacy' : 'token');
    if (throttling) {
      const use = typeof limit === 'function' ? limit(c) : limit;
      await throttling.admit(entityId, use ? [use] : []);
    }
    await next();
  };
}
