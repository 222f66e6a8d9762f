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
  checkClickToPaySettings,
  ClickToPaySettingsRefusedError,
  removeClickToPaySettings,
  saveClickToPaySettings,
  showClickToPaySettings,
  type ClickToPaySettingsShown,
} from './settings.ts';

/**
 * The admin API of an entity's Click to Pay with the networks (settings.ts), JSON in and out, with the ADMIN_TOKEN
 * (mounted by app.ts only when it is set):
 *   GET    /admin/v1/entities/{entityId}/clickToPay   set or not, the DPA name, per network its registration, SDK URL
 *                                                     and signing key (public), the key id, when
 *   PUT    /admin/v1/entities/{entityId}/clickToPay   {"mastercard"?: {srcDpaId, srcInitiatorId, signingKey, sdkUrl?},
 *                                                     "visa"?: {…}, "keyId", "privateKey", "dpaName"?}: sets or replaces
 *   DELETE /admin/v1/entities/{entityId}/clickToPay   removes them (the private key erased)
 * The private key is write-only: no answer, refusal or log line holds it. Nothing is cached: the next session uses a
 * change at once.
 */

const noEntity = (id: string) => adminNotFound('entity', id);

export function clickToPaySettingsJson(entityId: string, shown: ClickToPaySettingsShown | null): Record<string, unknown> {
  if (!shown) return { entityId, set: false, dpaName: null, keyId: null, networks: [], updatedAt: null };
  return { entityId, set: true, dpaName: shown.dpaName, keyId: shown.keyId, networks: shown.networks, updatedAt: shown.updatedAt.toISOString() };
}

const SHAPES = { mastercard: 'object', visa: 'object', keyId: 'string', privateKey: 'string', dpaName: 'string' } as const;

/** Fields whose values a refusal may quote back (never the private key, even under a mistyped name). */
const QUOTABLE = new Set(['keyId', 'dpaName']);

export function clickToPaySettingsAdminRoutes(
  deps: Pick<HttpDependencies, 'authFailures' | 'config' | 'store' | 'now'> & { readonly payments: { readonly vault: CardVault } },
  adminToken: string,
): Hono<AppEnv> {
  const routes = new Hono<AppEnv>();
  const { store, now } = deps;
  const { vault } = deps.payments;
  const ok = (c: Context<AppEnv>, entityId: string, shown: ClickToPaySettingsShown | null) =>
    jsonResponse(c, envelope(RESULTS.successfulRequest, c.get('requestId'), { clickToPay: clickToPaySettingsJson(entityId, shown) }), 200);
  routes.use('*', requireAdminToken(deps, adminToken));
  const entityPathId = pathId('entity', (_c, id) => noEntity(id), 'entityId');

  routes.get('/:entityId/clickToPay', entityPathId, async (c) => {
    const entityId = c.req.param('entityId');
    const shown = await showClickToPaySettings(store, entityId);
    if (shown === undefined) throw noEntity(entityId);
    return ok(c, entityId, shown);
  });

  routes.put('/:entityId/clickToPay', entityPathId, async (c) => {
    const entityId = c.req.param('entityId');
    const input = await adminJsonBodyWithSecrets(c, SHAPES, QUOTABLE);
    let settings;
    try {
      settings = checkClickToPaySettings(input);
    } catch (error) {
      if (error instanceof ClickToPaySettingsRefusedError) throw invalidParameters(error.problems);
      throw error;
    }
    const at = now();
    if (!(await store.transaction((tx) => saveClickToPaySettings(tx, vault, entityId, settings, at)))) throw noEntity(entityId);
    const { privateKey: _privateKey, ...shown } = settings;
    return ok(c, entityId, { ...shown, updatedAt: at });
  });

  routes.delete('/:entityId/clickToPay', entityPathId, async (c) => {
    const entityId = c.req.param('entityId');
    const removed = await store.transaction(async (tx) => ((await showClickToPaySettings(tx, entityId)) === undefined ? undefined : removeClickToPaySettings(tx, entityId, now())));
    if (removed === undefined) throw noEntity(entityId);
    return ok(c, entityId, null);
  });

  routes.all('/:entityId/clickToPay', () => {
    throw methodNotAllowed(['GET', 'PUT', 'DELETE']);
  });
  return routes;
}
