import { Hono, type Context } from 'hono';
import { invalidParameters } from '../domain/errors.ts';
import { RESULTS } from '../domain/resultCodes.ts';
import { ruleJson } from '../domain/routingRules.ts';
import type { HttpDependencies } from '../http/access.ts';
import { adminJsonBody, adminNotFound, requireAdminToken } from '../http/admin.ts';
import type { AppEnv } from '../http/context.ts';
import { envelope } from '../http/envelope.ts';
import { methodNotAllowed } from '../http/errors.ts';
import { pathId } from '../http/pathIds.ts';
import { jsonResponse } from '../http/respond.ts';
import { removeRoutingRules, RoutingRulesRefusedError, saveRoutingRules, showRoutingRules, type RoutingLookup, type RoutingSettings } from './routingRules.ts';

/**
 * The admin API of an entity's routing rules (issue 33): `/admin/v1/entities/{entityId}/routing`, JSON in and out,
 * with the ADMIN_TOKEN (mounted by app.ts only when it is set). GET shows the rules in the order they are tried, the
 * default acquirer a payment no rule matches goes to, and the acquirers there are; PUT `{"rules": [...]}` replaces the
 * rules; DELETE removes them (every payment to the default acquirer). A refused rule is 400 200.300.404 naming its
 * place (`rules[2].maxAmount`), and nothing is written.
 */

/** The acquirers a rule may name, and which of them are connectors (they need the entity's credentials). */
export interface RoutingNames {
  readonly acquirers: readonly string[];
  readonly defaultAcquirer: string;
  readonly connectors: readonly string[];
}

/** The rules as the admin API and the dashboard show them. */
export function routingJson(entityId: string, settings: RoutingSettings | undefined, names: RoutingNames): Record<string, unknown> {
  return {
    entityId,
    rules: (settings?.rules ?? []).map(ruleJson),
    defaultAcquirer: names.defaultAcquirer,
    acquirers: names.acquirers,
    connectors: names.connectors,
    updatedAt: settings?.updatedAt.toISOString() ?? null,
  };
}

/** The PUT body: `{"rules": [...]}`, the rules checked by saveRoutingRules. */
export async function routingRulesOf(c: Context<AppEnv>): Promise<unknown> {
  return (await adminJsonBody(c, { rules: 'array' })).rules;
}

const noEntity = (id: string) => adminNotFound('entity', id);

export function routingAdminRoutes(
  deps: Pick<HttpDependencies, 'authFailures' | 'config' | 'store' | 'now'> & { readonly payments: { readonly routing: RoutingLookup; readonly acquirers: { readonly connectors: readonly string[] } } },
  adminToken: string,
): Hono<AppEnv> {
  const routes = new Hono<AppEnv>();
  const { store, config } = deps;
  const names: RoutingNames = { acquirers: config.acquirers, defaultAcquirer: config.defaultAcquirer, connectors: deps.payments.acquirers.connectors };
  const ok = (c: Context<AppEnv>, entityId: string, settings: RoutingSettings | undefined) =>
    jsonResponse(c, envelope(RESULTS.successfulRequest, c.get('requestId'), { routing: routingJson(entityId, settings, names) }), 200);
  routes.use('*', requireAdminToken(deps, adminToken));
  const entityPathId = pathId('entity', (_c, id) => noEntity(id), 'entityId');

  routes.get('/:entityId/routing', entityPathId, async (c) => {
    const entityId = c.req.param('entityId');
    const shown = await showRoutingRules(store, entityId);
    if (!shown.entityExists) throw noEntity(entityId);
    return ok(c, entityId, shown.settings);
  });

  routes.put('/:entityId/routing', entityPathId, async (c) => {
    const entityId = c.req.param('entityId');
    const rules = await routingRulesOf(c);
    let saved: RoutingSettings;
    try {
      saved = await saveRoutingRules(store, config.acquirers, entityId, rules, deps.now());
    } catch (error) {
      if (error instanceof RoutingRulesRefusedError) throw error.unknownEntity ? noEntity(entityId) : invalidParameters(error.problems);
      throw error;
    }
    // This instance's payments follow the new rules at once; other instances within ROUTING_CACHE_MS.
    deps.payments.routing.forget(entityId);
    return ok(c, entityId, saved);
  });

  routes.delete('/:entityId/routing', entityPathId, async (c) => {
    const entityId = c.req.param('entityId');
    const removed = await removeRoutingRules(store, entityId);
    if (!removed.entityExists) throw noEntity(entityId);
    deps.payments.routing.forget(entityId);
    return ok(c, entityId, undefined);
  });

  routes.all('/:entityId/routing', () => {
    throw methodNotAllowed(['GET', 'PUT', 'DELETE']);
  });
  return routes;
}
