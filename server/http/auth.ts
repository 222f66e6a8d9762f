import type { MiddlewareHandler } from 'hono';
import { ENTITY_ID } from '../domain/ids.ts';
import { RESULTS, type Result } from '../domain/resultCodes.ts';
import { clientAddressOf } from './clientAddress.ts';
import type { AppDependencies } from '../deps.ts';
import type { AppEnv } from './context.ts';
import { GatewayError, invalidParameters, withReason } from '../domain/errors.ts';
import { guardAuthentication } from '../throttling/authFailures.ts';
import type { LimitUse } from '../throttling/service.ts';
import type { Context } from 'hono';

const BEARER = /^Bearer ([\x21-\x7e]{1,512})$/;

function forbidden(reason: string): GatewayError {
  return new GatewayError(withReason(RESULTS.invalidAuthentication, reason), 403);
}

function unauthorized(result: Result): GatewayError {
  return new GatewayError(result, 401, undefined, { 'WWW-Authenticate': 'Bearer' });
}

/**
 * `Authorization: Bearer <token>` on every API call (spec doc 1 §5): a missing or malformed header is
 * 401; an unknown token, or one not allowed for the entityId, is 403 with 800.900.300.
 * `authentication.entityId` is accepted as an alias of `entityId` (legacy servers, COMPAT §1).
 * Every such failure counts against the client's address; an address over its limit is refused with 800.120.100
 * before its token is looked at (throttling/authFailures.ts).
 * An authenticated request then counts against its entity's request limits (COMPAT §17, throttling/service.ts):
 * requestsPerMinute, and `limit`, the route's own (payment creations, a payment's reads, ...), in one count.
 */
export function requireMerchant(
  deps: Pick<AppDependencies, 'tokenAccess' | 'authFailures' | 'config' | 'throttling' | 'now'>,
  limit?: LimitUse | ((c: Context<AppEnv>) => LimitUse | undefined),
): MiddlewareHandler<AppEnv> {
  const { tokenAccess, authFailures, throttling } = deps;
  return async (c, next) => {
    const address = clientAddressOf(c, deps.config.clientAddressHeader);
    const failed = guardAuthentication(authFailures, address, deps.now);

    const header = c.req.header('authorization');
    const token = header ? BEARER.exec(header.trim())?.[1] : undefined;
    if (!token) {
      throw await failed(
        unauthorized(withReason(RESULTS.invalidAuthentication, header ? 'malformed Authorization header' : 'missing Authorization header')),
      );
    }
    const access = await tokenAccess(token);
    if (!access.known) throw await failed(forbidden('unknown access token'));
    const params = c.get('params');
    const entityId = params.get('entityId') ?? params.get('authentication.entityId');
    const entityParam = params.has('entityId') ? 'entityId' : 'authentication.entityId';
    const alias = params.get('authentication.entityId');
    if (params.has('entityId') && alias !== undefined && alias !== entityId) {
      throw invalidParameters([
        { name: 'authentication.entityId', value: alias.slice(0, 64), message: 'must equal entityId when both are sent' },
      ]);
    }
    if (entityId === undefined) {
      throw invalidParameters([{ name: 'entityId', value: '', message: 'is required' }]);
    }
    if (!ENTITY_ID.test(entityId)) {
      throw invalidParameters([
        { name: entityParam, value: entityId.slice(0, 64), message: 'must be 32 lowercase hexadecimal characters' },
      ]);
    }
    if (!access.entityIds.has(entityId)) throw await failed(forbidden('the access token is not allowed for this entityId'));
    c.set('entityId', entityId);
    if (throttling) {
      const use = typeof limit === 'function' ? limit(c) : limit;
      await throttling.admit(entityId, use ? [use] : []);
    }
    await next();
  };
}
