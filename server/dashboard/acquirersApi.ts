import { Hono, type Context } from 'hono';
import { CredentialsRefusedError } from '../acquirers/credentials.ts';
import { acquirerCredentialsJson, credentialsBodyOf, notAConnector, removeEntityCredentials, setEntityCredentials, showEntityCredentials, unsetCredentials, type CredentialsServices } from '../acquirers/credentialsRoutes.ts';
import type { AppDependencies } from '../deps.ts';
import type { AppEnv } from '../http/context.ts';
import { methodNotAllowed } from '../http/errors.ts';
import { pathId } from '../http/pathIds.ts';
import { removeRoutingRules, saveRoutingRules, showRoutingRules, type RoutingSettings } from '../merchants/routingRules.ts';
import { routingJson, routingRulesOf, type RoutingNames } from '../merchants/routingRoutes.ts';
import { ok } from './api.ts';
import { entitySettingsAccess, noEntity } from './entitySettings.ts';

/**
 * The dashboard's settings of where an entity's payments go (/dashboard/api/entities/{entityId}/...), on the use-cases
 * of the admin API, so the same rules and refusals apply:
 *   routing               GET (both principals, their own entities): the rules in order, the default acquirer;
 *                         PUT {"rules": [...]} and DELETE (operators only)
 *   acquirers             GET: each connector's credentials: set or not (a merchant sees only that), the provider's
 *                         entity id and when (operators)
 *   acquirers/{name}      PUT {"entityId", "accessToken"} and DELETE (operators only): the token is write-only
 * Every change is recorded (audit.ts), refused ones with their result code; never the token.
 */

export function acquirersApiRoutes(deps: AppDependencies): Hono<AppEnv> {
  const routes = new Hono<AppEnv>();
  const { store, config } = deps;
  const { connectors, credentials } = deps.payments.acquirers;
  const { signedIn, entityPathId, entityOf, changerOf, requireExisting, recorded } = entitySettingsAccess(deps);
  const names: RoutingNames = { acquirers: config.acquirers, defaultAcquirer: config.defaultAcquirer, connectors };
  const services: CredentialsServices = { store, vault: deps.payments.vault, now: deps.now, connectors };
  const acquirerPathId = pathId('acquirer', (_c, name) => notAConnector(name, connectors), 'name');

  // Routing rules (merchants/routingRules.ts).
  const routingAnswer = (c: Context<AppEnv>, entityId: string, settings: RoutingSettings | undefined) => ok(c, { routing: routingJson(entityId, settings, names) });
  routes.get('/entities/:entityId/routing', signedIn, entityPathId, async (c) => {
    const { entityId } = entityOf(c);
    const shown = await showRoutingRules(store, entityId);
    if (!shown.entityExists) throw noEntity(entityId);
    return routingAnswer(c, entityId, shown.settings);
  });
  routes.put('/entities/:entityId/routing', signedIn, entityPathId, async (c) => {
    const { session, entityId } = changerOf(c);
    const rules = await routingRulesOf(c);
    await requireExisting(entityId);
    const saved = await recorded(session, entityId, 'routing.save', { rules }, () => saveRoutingRules(store, config.acquirers, entityId, rules, deps.now()));
    // This instance's payments follow the new rules at once; other instances within ROUTING_CACHE_MS.
    deps.payments.routing.forget(entityId);
    return routingAnswer(c, entityId, saved);
  });
  routes.delete('/entities/:entityId/routing', signedIn, entityPathId, async (c) => {
    const { session, entityId } = changerOf(c);
    await requireExisting(entityId);
    await recorded(session, entityId, 'routing.remove', {}, async () => {
      if (!(await removeRoutingRules(store, entityId)).entityExists) throw noEntity(entityId);
    });
    deps.payments.routing.forget(entityId);
    return routingAnswer(c, entityId, undefined);
  });
  routes.all('/entities/:entityId/routing', () => {
    throw methodNotAllowed(['GET', 'PUT', 'DELETE']);
  });

  // Credentials at the connectors' providers (acquirers/credentials.ts): the token is written, never shown.
  routes.get('/entities/:entityId/acquirers', signedIn, entityPathId, async (c) => {
    const { session, entityId } = entityOf(c);
    const shown = await showEntityCredentials(services, entityId).catch((error: unknown) => {
      throw error instanceof CredentialsRefusedError ? noEntity(entityId) : error;
    });
    const operator = session.principal.kind === 'operator';
    return ok(c, { acquirerCredentials: shown.map((one) => (operator ? acquirerCredentialsJson(entityId, one) : { entityId, acquirer: one.acquirer, set: one.set })) });
  });
  routes.all('/entities/:entityId/acquirers', () => {
    throw methodNotAllowed(['GET']);
  });
  routes.put('/entities/:entityId/acquirers/:name', signedIn, entityPathId, acquirerPathId, async (c) => {
    const { session, entityId } = changerOf(c);
    const acquirer = c.req.param('name');
    const input = await credentialsBodyOf(c);
    await requireExisting(entityId);
    // What was asked, never the token: the provider's entity id is no secret (it is shown).
    const detail = { acquirer, ...(typeof input.entityId === 'string' ? { providerEntityId: input.entityId } : {}) };
    const saved = await recorded(session, entityId, 'acquirer-credentials.save', detail, () => setEntityCredentials(services, entityId, acquirer, input));
    // This instance's connector pays with them at once; other instances' within CREDENTIALS_CACHE_MS.
    credentials.forget(entityId, acquirer);
    return ok(c, { acquirerCredentials: acquirerCredentialsJson(entityId, saved) });
  });
  routes.delete('/entities/:entityId/acquirers/:name', signedIn, entityPathId, acquirerPathId, async (c) => {
    const { session, entityId } = changerOf(c);
    const acquirer = c.req.param('name');
    await requireExisting(entityId);
    await recorded(session, entityId, 'acquirer-credentials.remove', { acquirer }, () => removeEntityCredentials(services, entityId, acquirer));
    credentials.forget(entityId, acquirer);
    return ok(c, { acquirerCredentials: acquirerCredentialsJson(entityId, unsetCredentials(acquirer)) });
  });
  routes.all('/entities/:entityId/acquirers/:name', () => {
    throw methodNotAllowed(['PUT', 'DELETE']);
  });

  return routes;
}
