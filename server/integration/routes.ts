import { Hono } from 'hono';
import { noSession } from '../checkouts/results.ts';
import { findCheckout } from '../checkouts/repository.ts';
import { invalidParameters } from '../domain/errors.ts';
import { RESULTS } from '../domain/resultCodes.ts';
import type { HttpDependencies } from '../http/access.ts';
import { adminNotFound, requireAdminToken } from '../http/admin.ts';
import { readBody } from '../http/body.ts';
import type { AppEnv } from '../http/context.ts';
import { envelope } from '../http/envelope.ts';
import { methodNotAllowed } from '../http/errors.ts';
import { pathId } from '../http/pathIds.ts';
import { jsonResponse } from '../http/respond.ts';
import { findEntityName } from '../merchants/repository.ts';
import type { Queryable } from '../store/index.ts';
import type { ObservationRecorder } from './observations.ts';
import { integrationReport, type IntegrationReport } from './report.ts';

/**
 * The integration report's doors (issue 36 point 7):
 *   POST /v1/checkouts/{id}/widgetReport   the widget, once a page rendered it: the names of the wpwlOptions the page
 *                                          set (a JSON array of names, as navigator.sendBeacon sends it), 204
 *   GET  /admin/v1/entities/{entityId}/integrationReport   the report, JSON (ADMIN_TOKEN)
 * The control API (/test/v1/report, also as text), the dashboard and the command line read the same report.
 */

/** Names per report and their length: a page sets a few dozen options. */
const MAX_OPTIONS = 60;
const OPTION_NAME = /^[A-Za-z_$][A-Za-z0-9_$]{0,63}$/;
/** Checkouts whose page reported already, in this process: one report per checkout (a reload reports nothing new). */
const REMEMBERED_REPORTS = 10_000;

export interface IntegrationDependencies {
  readonly store: Queryable;
  readonly observations: ObservationRecorder;
  readonly now: () => Date;
}

/** The report of an entity, with what was observed until now written first; undefined for an unknown entity. */
export async function readReport(deps: IntegrationDependencies, entityId: string): Promise<IntegrationReport | undefined> {
  if ((await findEntityName(deps.store, entityId)) === undefined) return undefined;
  await deps.observations.flush();
  return integrationReport(deps.store, entityId, deps.now());
}

export function widgetReportRoutes(deps: IntegrationDependencies): Hono<AppEnv> {
  const routes = new Hono<AppEnv>();
  const reported = new Set<string>();
  const checkoutId = pathId('checkout', () => noSession());
  routes.post('/:id/widgetReport', checkoutId, async (c) => {
    const id = c.req.param('id');
    let names: unknown;
    try {
      names = JSON.parse(new TextDecoder('utf-8', { fatal: false }).decode(await readBody(c)));
    } catch {
      names = undefined;
    }
    if (!Array.isArray(names) || names.length > MAX_OPTIONS || !names.every((name) => typeof name === 'string')) {
      throw invalidParameters([{ name: 'body', value: '', message: `must be a JSON array of at most ${MAX_OPTIONS} option names` }]);
    }
    const checkout = await findCheckout(deps.store, id);
    if (!checkout || checkout.deletedAt !== null) throw noSession();
    if (!reported.has(id)) {
      if (reported.size >= REMEMBERED_REPORTS) reported.clear();
      reported.add(id);
      // A name no option could have (a page's odd key) is left out.
      for (const name of new Set((names as string[]).filter((name) => OPTION_NAME.test(name)))) deps.observations.record({ entityId: checkout.entityId, kind: 'widgetOption', detail: name, example: id });
    }
    return c.body(null, 204, c.get('baseHeaders'));
  });
  routes.all('/:id/widgetReport', () => {
    throw methodNotAllowed(['POST']);
  });
  return routes;
}

export function integrationReportAdminRoutes(deps: Pick<HttpDependencies, 'authFailures' | 'config' | 'now'> & IntegrationDependencies, adminToken: string): Hono<AppEnv> {
  const routes = new Hono<AppEnv>();
  routes.use('*', requireAdminToken(deps, adminToken));
  const noEntity = (id: string) => adminNotFound('entity', id);
  routes.get('/:entityId/integrationReport', pathId('entity', (_c, id) => noEntity(id), 'entityId'), async (c) => {
    const entityId = c.req.param('entityId');
    const report = await readReport(deps, entityId);
    if (!report) throw noEntity(entityId);
    return jsonResponse(c, envelope(RESULTS.successfulRequest, c.get('requestId'), { report }), 200);
  });
  routes.all('/:entityId/integrationReport', () => {
    throw methodNotAllowed(['GET']);
  });
  return routes;
}
