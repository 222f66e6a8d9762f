import { Hono, type Context } from 'hono';
import { invalidParameters } from '../domain/errors.ts';
import { RESULTS } from '../domain/resultCodes.ts';
import type { HttpDependencies } from '../http/access.ts';
import { adminJsonBodyWithSecrets, adminNotFound, requireAdminToken } from '../http/admin.ts';
import type { AppEnv } from '../http/context.ts';
import { envelope } from '../http/envelope.ts';
import { methodNotAllowed } from '../http/errors.ts';
import { pathId } from '../http/pathIds.ts';
import { jsonResponse } from '../http/respond.ts';
import type { CardVault } from '../vault/cardVault.ts';
import {
  ApplePayIdentityRefusedError,
  checkApplePayIdentity,
  removeApplePayIdentity,
  saveApplePayIdentity,
  showApplePayIdentity,
  unsetApplePayIdentity,
  type ApplePayIdentityShown,
} from './applePayIdentity.ts';

/**
 * The admin API of an entity's Apple Pay merchant identity (applePayIdentity.ts), JSON in and out, with the
 * ADMIN_TOKEN (mounted by app.ts only when it is set):
 *   GET    /admin/v1/entities/{entityId}/applePay   set or not, the merchant identifier, display name, domains, the
 *                                                   certificate's subject and expiry, when
 *   PUT    /admin/v1/entities/{entityId}/applePay   {"merchantIdentifier", "displayName"?, "domains", "certificate",
 *                                                   "privateKey"}: sets or replaces it
 *   DELETE /admin/v1/entities/{entityId}/applePay   removes it (the certificate and key erased)
 * The certificate and key are write-only: no answer, refusal or log line ever holds them (a refusal quotes none of the
 * body's values but the identifier, display name and domains). The next merchant validation uses a change at once:
 * nothing is cached.
 */

const noEntity = (id: string) => adminNotFound('entity', id);

/** The identity as the admin API shows it: never the certificate or its key. */
export function applePayIdentityJson(entityId: string, shown: ApplePayIdentityShown): Record<string, unknown> {
  return {
    entityId,
    set: shown.set,
    merchantIdentifier: shown.merchantIdentifier,
    displayName: shown.displayName,
    domains: shown.domains,
    certificate: shown.certificate ? { subject: shown.certificate.subject, expiresAt: shown.certificate.expiresAt.toISOString() } : null,
    updatedAt: shown.updatedAt?.toISOString() ?? null,
  };
}

const SHAPES = { merchantIdentifier: 'string', displayName: 'string', domains: 'strings', certificate: 'string', privateKey: 'string' } as const;
/** Fields whose values a refusal may quote back. */
const QUOTABLE = new Set(['merchantIdentifier', 'displayName', 'domains']);

export function applePayIdentityAdminRoutes(
  deps: Pick<HttpDependencies, 'authFailures' | 'config' | 'store' | 'now'> & { readonly payments: { readonly vault: CardVault } },
  adminToken: string,
): Hono<AppEnv> {
  const routes = new Hono<AppEnv>();
  const { store, now } = deps;
  const { vault } = deps.payments;
  const ok = (c: Context<AppEnv>, entityId: string, shown: ApplePayIdentityShown) =>
    jsonResponse(c, envelope(RESULTS.successfulRequest, c.get('requestId'), { applePay: applePayIdentityJson(entityId, shown) }), 200);
  routes.use('*', requireAdminToken(deps, adminToken));
  const entityPathId = pathId('entity', (_c, id) => noEntity(id), 'entityId');

  routes.get('/:entityId/applePay', entityPathId, async (c) => {
    const entityId = c.req.param('entityId');
    const shown = await showApplePayIdentity(store, entityId);
    if (!shown) throw noEntity(entityId);
    return ok(c, entityId, shown);
  });

  routes.put('/:entityId/applePay', entityPathId, async (c) => {
    const entityId = c.req.param('entityId');
    const input = await adminJsonBodyWithSecrets(c, SHAPES, QUOTABLE);
    const at = now();
    let checked;
    try {
      checked = checkApplePayIdentity(input, at);
    } catch (error) {
      if (error instanceof ApplePayIdentityRefusedError) throw invalidParameters(error.problems);
      throw error;
    }
    if (!(await store.transaction((tx) => saveApplePayIdentity(tx, vault, entityId, checked, at)))) throw noEntity(entityId);
    const { identity, certificate } = checked;
    return ok(c, entityId, { set: true, merchantIdentifier: identity.merchantIdentifier, displayName: identity.displayName, domains: identity.domains, certificate, updatedAt: at });
  });

  routes.delete('/:entityId/applePay', entityPathId, async (c) => {
    const entityId = c.req.param('entityId');
    const removed = await store.transaction(async (tx) => ((await showApplePayIdentity(tx, entityId)) ? removeApplePayIdentity(tx, entityId, now()) : undefined));
    if (removed === undefined) throw noEntity(entityId);
    return ok(c, entityId, unsetApplePayIdentity);
  });

  routes.all('/:entityId/applePay', () => {
    throw methodNotAllowed(['GET', 'PUT', 'DELETE']);
  });
  return routes;
}
