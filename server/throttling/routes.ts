import { Hono, type Context } from 'hono';
import type { HttpDependencies } from '../http/access.ts';
import { invalidParameters } from '../domain/errors.ts';
import { RESULTS } from '../domain/resultCodes.ts';
import { adminJsonBody, adminNotFound, requireAdminToken } from '../http/admin.ts';
import type { AppEnv } from '../http/context.ts';
import { envelope } from '../http/envelope.ts';
import { methodNotAllowed } from '../http/errors.ts';
import { pathId } from '../http/pathIds.ts';
import { jsonResponse } from '../http/respond.ts';
import { defaultLimits, type EntityLimits } from './limits.ts';
import { effectiveLimits, removeThrottling, saveThrottling, showThrottling, ThrottlingConfigError, type ThrottlingSettings } from './settings.ts';
import type { Throttling } from './service.ts';

/**
 * The admin API of throttling (COMPAT §17): `/admin/v1/entities/{entityId}/throttling`, JSON in and out, with
 * `Authorization: Bearer <ADMIN_TOKEN>` (mounted by app.ts only when ADMIN_TOKEN is set). GET shows the limits in
 * force (the entity's own and the defaults) and its risk rules, PUT replaces the entity's own limits and rules
 * (`{"limits": {...}, "risk": {...}}`), DELETE puts the entity back on the defaults, without rules. Refused
 * settings are 400 200.300.404 with parameterErrors naming each (`limits.<name>`, `risk.<rule>.<setting>`), and
 * nothing is written.
 */

export function throttlingJson(entityId: string, defaults: EntityLimits, settings: ThrottlingSettings | undefined): Record<string, unknown> {
  return {
    entityId,
    limits: effectiveLimits(defaults, settings),
    ownLimits: settings?.limits ?? {},
    defaults,
    risk: settings?.risk ?? {},
    updatedAt: settings?.updatedAt.toISOString() ?? null,
  };
}

const noEntity = (id: string) => adminNotFound('entity', id);

export function throttlingAdminRoutes(deps: Pick<HttpDependencies, 'authFailures' | 'config' | 'store' | 'now'> & { readonly throttling?: Throttling }, adminToken: string): Hono<AppEnv> {
  const routes = new Hono<AppEnv>();
  const { store } = deps;
  const defaults = defaultLimits(deps.config.limits);
  const ok = (c: Context<AppEnv>, entityId: string, settings: ThrottlingSettings | undefined) =>
    jsonResponse(c, envelope(RESULTS.successfulRequest, c.get('requestId'), { throttling: throttlingJson(entityId, defaults, settings) }), 200);
  routes.use('/:entityId/throttling', requireAdminToken(deps, adminToken));
  const entityPathId = pathId('entity', (_c, id) => noEntity(id), 'entityId');

  routes.get('/:entityId/throttling', entityPathId, async (c) => {
    const entityId = c.req.param('entityId');
    const shown = await showThrottling(store, entityId);
    if (!shown.entityExists) throw noEntity(entityId);
    return ok(c, entityId, shown.settings);
  });

  routes.put('/:entityId/throttling', entityPathId, async (c) => {
    const entityId = c.req.param('entityId');
    const body = await adminJsonBody(c, { limits: 'object', risk: 'object' });
    let saved: ThrottlingSettings;
    try {
      saved = await saveThrottling(store, entityId, { limits: body.limits, risk: body.risk }, deps.now());
    } catch (error) {
      if (error instanceof ThrottlingConfigError) throw error.unknownEntity ? noEntity(entityId) : invalidParameters(error.problems);
      throw error;
    }
    // This instance's requests see the change at once; other instances' within THROTTLING_CACHE_MS.
    deps.throttling?.settings.forget(entityId);
    return ok(c, entityId, saved);
  });

  routes.delete('/:entityId/throttling', entityPathId, async (c) => {
    const entityId = c.req.param('entityId');
    const removed = await removeThrottling(store, entityId);
    if (!removed.entityExists) throw noEntity(entityId);
    deps.throttling?.settings.forget(entityId);
    return ok(c, entityId, undefined);
  });

  routes.all('/:entityId/throttling', () => {
    throw methodNotAllowed(['GET', 'PUT', 'DELETE']);
  });
  return routes;
}
