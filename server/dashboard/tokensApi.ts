import { Hono, type Context } from 'hono';
import { GatewayError, invalidParameters } from '../domain/errors.ts';
import { ENTITY_ID } from '../domain/ids.ts';
import type { AppDependencies } from '../deps.ts';
import { adminJsonBody } from '../http/admin.ts';
import type { AppEnv } from '../http/context.ts';
import { pathId } from '../http/pathIds.ts';
import { issueAccessToken, noToken, tokenJson } from '../merchants/entityRoutes.ts';
import { listTokens, revokeToken, type TokenListing } from '../merchants/repository.ts';
import { actorOf, requireOperator, requireSession, sessionOf } from './access.ts';
import { ok } from './api.ts';
import { recordAction } from './audit.ts';

/**
 * The merchants' access tokens in the dashboard, for operators only (/dashboard/api/tokens): listed (id, label, the
 * entities each may act for, when it was made, last used and revoked — never the token, nor its hash), created for one or more
 * entities with the admin API's rules (merchants/entityRoutes.ts issueAccessToken: the token answered this once), and
 * revoked (API calls with it are refused within TOKEN_CACHE_SECONDS; its dashboard sessions end at once). Each change
 * is recorded for every entity the token acts for (audit.ts), never with the token.
 */

const SUCCESS_CODE = '000.000.000';

export function tokensApiRoutes(deps: AppDependencies): Hono<AppEnv> {
  const routes = new Hono<AppEnv>();
  const { store, config } = deps;
  const signedIn = requireSession({ store, now: deps.now, publicUrl: config.publicUrl });
  /** A signed-in operator (a merchant: 403). */
  const operatorOnly = async (c: Context<AppEnv>, next: () => Promise<void>) => {
    requireOperator(sessionOf(c).principal);
    await next();
  };
  /** The admin API's view, and when an API request last used it (to the minute; null: not yet). */
  const view = (token: TokenListing) => ({ ...tokenJson(token), lastUsedAt: token.lastUsedAt?.toISOString() ?? null });

  /** Records the operator's action on the token for each of its entities. */
  async function recordOnEntities(c: Context<AppEnv>, action: string, entityIds: readonly string[], detail: Record<string, unknown>, resultCode: string) {
    const actor = actorOf(sessionOf(c).principal);
    for (const entityId of entityIds) await recordAction(store, { actor, entityId, action, detail, resultCode, at: deps.now() });
  }

  routes.get('/tokens', signedIn, operatorOnly, async (c) => {
    const query = c.req.query();
    const errors = Object.keys(query)
      .filter((name) => name !== 'entityId')
      .map((name) => ({ name, value: query[name] ?? '', message: 'is not a filter of the list' }));
    const { entityId } = query;
    if (entityId !== undefined && !ENTITY_ID.test(entityId)) errors.push({ name: 'entityId', value: entityId, message: 'must be 32 lowercase hexadecimal characters' });
    if (errors.length > 0) throw invalidParameters(errors);
    return ok(c, { tokens: (await listTokens(store, entityId)).map(view) });
  });

  routes.post('/tokens', signedIn, operatorOnly, async (c) => {
    const body = await adminJsonBody(c, { entityIds: 'stringsOrString', label: 'string' });
    const issued = await issueAccessToken(store, body);
    await recordOnEntities(c, 'create token', issued.entityIds, { tokenId: issued.tokenId, label: issued.label, entityIds: issued.entityIds }, SUCCESS_CODE);
    const listed = (await listTokens(store)).find((token) => token.id === issued.tokenId);
    // The one answer that carries the token.
    return ok(c, { token: listed ? view(listed) : { id: issued.tokenId }, accessToken: issued.token });
  });

  routes.delete('/tokens/:id', signedIn, operatorOnly, pathId('accessToken', () => noToken()), async (c) => {
    const id = c.req.param('id');
    const token = (await listTokens(store)).find((listed) => listed.id === id);
    if (!token) throw noToken(id);
    const detail = { tokenId: id, label: token.label };
    if (!(await revokeToken(store, id))) {
      const refused: GatewayError = noToken(id);
      await recordOnEntities(c, 'revoke token', token.entityIds, detail, refused.result.code);
      throw refused;
    }
    await recordOnEntities(c, 'revoke token', token.entityIds, detail, SUCCESS_CODE);
    const revoked = (await listTokens(store)).find((listed) => listed.id === id) ?? token;
    return ok(c, { token: view(revoked) });
  });

  return routes;
}
