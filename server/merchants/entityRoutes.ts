import { Hono, type Context } from 'hono';
import { GatewayError, invalidParameters, withReason } from '../domain/errors.ts';
import { ENTITY_ID } from '../domain/ids.ts';
import { RESULTS } from '../domain/resultCodes.ts';
import { resultUrlBaseProblem } from '../domain/urls.ts';
import type { HttpDependencies } from '../http/access.ts';
import { adminJsonBody, requireAdminToken } from '../http/admin.ts';
import type { AppEnv } from '../http/context.ts';
import { envelope } from '../http/envelope.ts';
import { methodNotAllowed } from '../http/errors.ts';
import { pathId } from '../http/pathIds.ts';
import { jsonResponse } from '../http/respond.ts';
import type { Queryable } from '../store/index.ts';
import { existingEntityIds } from './credentialRoutes.ts';
import { createEntityWithToken, entityExists, grantToken, listEntities, listTokens, newAccessToken, revokeToken, type TokenListing } from './repository.ts';

/**
 * The admin API of entities and access tokens (`/admin/v1/entities`, `/admin/v1/tokens`; JSON, ADMIN_TOKEN): what the
 * `entity` and `token` commands do, for an operator's scripts against a running gateway (the command line itself runs
 * its commands there through `/admin/v1/commands`: cli/). A token is shown once, in the answer that creates it; lists
 * show ids only.
 */

const ok = (c: Context<AppEnv>, body: Record<string, unknown>, status = 200) => jsonResponse(c, envelope(RESULTS.successfulRequest, c.get('requestId'), body), status);
const MAX_TEXT = 200;
/** A token id of the wrong shape is not echoed. */
export const noToken = (tokenId?: string) => new GatewayError(withReason(RESULTS.invalidParameter, `no active token ${tokenId ?? 'with that id'}`), 404);

/**
 * A new access token for `entityIds` (one id or a list: each must be an entity) with its `label` (1 to 200
 * characters; `token` when left out): the admin API's and the dashboard's rules alike. The token is returned this
 * once; only its hash is kept.
 */
export async function issueAccessToken(
  store: Queryable,
  asked: { readonly entityIds?: unknown; readonly label?: unknown },
): Promise<{ readonly tokenId: string; readonly token: string; readonly label: string; readonly entityIds: readonly string[] }> {
  const entityIds = await existingEntityIds(store, asked.entityIds, 'token');
  const label = textField('label', asked.label) ?? 'token';
  const token = newAccessToken();
  const tokenId = await grantToken(store, token, label, entityIds);
  return { tokenId, token, label, entityIds };
}

export function tokenJson(token: TokenListing): Record<string, unknown> {
  return { id: token.id, label: token.label, entityIds: token.entityIds, createdAt: token.createdAt.toISOString(), revokedAt: token.revokedAt?.toISOString() ?? null };
}

function textField(name: string, value: unknown): string | undefined {
  if (value === undefined) return undefined;
  const text = value as string;
  if (text.length === 0 || text.length > MAX_TEXT) throw invalidParameters([{ name, value: text, message: `must be 1 to ${MAX_TEXT} characters` }]);
  return text;
}

export function entityAdminRoutes(deps: Pick<HttpDependencies, 'authFailures' | 'config' | 'store' | 'now'>, adminToken: string): Hono<AppEnv> {
  const routes = new Hono<AppEnv>();
  const { store } = deps;
  routes.use('/', requireAdminToken(deps, adminToken));
  routes.post('/', async (c) => {
    const body = await adminJsonBody(c, { name: 'string', id: 'string', resultUrlBase: 'string' });
    const id = body.id as string | undefined;
    if (id !== undefined && !ENTITY_ID.test(id)) throw invalidParameters([{ name: 'id', value: id, message: 'must be 32 lowercase hexadecimal characters' }]);
    if (id !== undefined && (await entityExists(store, id))) throw new GatewayError(withReason(RESULTS.invalidParameter, `entity ${id} exists already`), 409);
    const base = body.resultUrlBase as string | undefined;
    const problem = base === undefined ? undefined : resultUrlBaseProblem(base);
    if (problem) throw invalidParameters([{ name: 'resultUrlBase', value: base ?? '', message: problem }]);
    const made = await createEntityWithToken(store, { name: textField('name', body.name) ?? 'Merchant', id, resultUrlBase: base });
    // The one answer that carries the token: only its hash is kept.
    return ok(c, { entity: { id: made.entity.id, name: made.entity.name, resultUrlBase: made.entity.shopperResultUrlBase }, token: { id: made.tokenId, accessToken: made.token } }, 201);
  });
  routes.get('/', async (c) => ok(c, { entities: (await listEntities(store)).map((entity) => ({ id: entity.id, name: entity.name, resultUrlBase: entity.shopperResultUrlBase })) }));
  routes.all('/', () => {
    throw methodNotAllowed(['GET', 'POST']);
  });
  return routes;
}

export function tokenAdminRoutes(deps: Pick<HttpDependencies, 'authFailures' | 'config' | 'store' | 'now'>, adminToken: string): Hono<AppEnv> {
  const routes = new Hono<AppEnv>();
  const { store } = deps;
  routes.use('*', requireAdminToken(deps, adminToken));
  routes.post('/', async (c) => {
    const body = await adminJsonBody(c, { entityIds: 'stringsOrString', label: 'string' });
    const issued = await issueAccessToken(store, body);
    return ok(c, { token: { id: issued.tokenId, accessToken: issued.token } }, 201);
  });
  routes.get('/', async (c) => {
    const entityId = c.req.query('entityId');
    if (entityId !== undefined && !ENTITY_ID.test(entityId)) throw invalidParameters([{ name: 'entityId', value: entityId, message: 'must be 32 lowercase hexadecimal characters' }]);
    return ok(c, { tokens: (await listTokens(store, entityId)).map(tokenJson) });
  });
  routes.delete('/:tokenId', pathId('accessToken', () => noToken(), 'tokenId'), async (c) => {
    const tokenId = c.req.param('tokenId');
    if (!(await revokeToken(store, tokenId))) throw noToken(tokenId);
    return ok(c, { revoked: tokenId });
  });
  routes.all('/', () => {
    throw methodNotAllowed(['GET', 'POST']);
  });
  return routes;
}
