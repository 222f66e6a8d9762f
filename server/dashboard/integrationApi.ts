import { Hono } from 'hono';
import type { AppDependencies } from '../deps.ts';
import type { AppEnv } from '../http/context.ts';
import { methodNotAllowed } from '../http/errors.ts';
import { readReport } from '../integration/routes.ts';
import { ok } from './api.ts';
import { entitySettingsAccess, noEntity } from './entitySettings.ts';

/**
 * GET /dashboard/api/entities/{entityId}/integrationReport: the entity's integration report (integration/report.ts),
 * for an operator and for the entity's own users, as the admin API answers it.
 */
export function integrationApiRoutes(deps: AppDependencies): Hono<AppEnv> {
  const routes = new Hono<AppEnv>();
  const { signedIn, entityPathId, entityOf } = entitySettingsAccess(deps);
  routes.get('/entities/:entityId/integrationReport', signedIn, entityPathId, async (c) => {
    const { entityId } = entityOf(c);
    const report = await readReport({ store: deps.store, observations: deps.observations, now: deps.now }, entityId);
    if (!report) throw noEntity(entityId);
    return ok(c, { report });
  });
  routes.all('/entities/:entityId/integrationReport', () => {
    throw methodNotAllowed(['GET']);
  });
  return routes;
}
