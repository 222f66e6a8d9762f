import { Hono, type Context } from 'hono';
import { GatewayError, invalidParameters, withReason } from '../domain/errors.ts';
import { RESULTS } from '../domain/resultCodes.ts';
import { shownText } from '../domain/sensitive.ts';
import type { HttpDependencies } from '../http/access.ts';
import { adminJsonBody, adminNotFound, requireAdminToken } from '../http/admin.ts';
import type { AppEnv } from '../http/context.ts';
import { envelope } from '../http/envelope.ts';
import { methodNotAllowed } from '../http/errors.ts';
import { pathId } from '../http/pathIds.ts';
import { jsonResponse } from '../http/respond.ts';
import type { Store } from '../store/index.ts';
import type { CardVault } from '../vault/cardVault.ts';
import { checkCredentials, CredentialsRefusedError, removeCredentials, saveCredentials, showCredentials, type CredentialsLookup, type CredentialsShown } from './credentials.ts';

/**
 * The admin API of an entity's credentials at the connectors' providers (issue 33), JSON in and out, with the
 * ADMIN_TOKEN (mounted by app.ts only when it is set):
 *   GET    /admin/v1/entities/{entityId}/acquirers          every connector's: set or not, the provider's entity id, when
 *   GET    /admin/v1/entities/{entityId}/acquirers/{name}   one connector's
 *   PUT    /admin/v1/entities/{entityId}/acquirers/{name}   {"entityId", "accessToken"}: sets or replaces them
 *   DELETE /admin/v1/entities/{entityId}/acquirers/{name}   removes them (the token erased)
 * The token is write-only: no answer, refusal or log line ever holds it. A name that is no connector (a simulated
 * acquirer, or none at all) is 404, as an entity that does not exist. The dashboard's settings and the command line
 * (cli/acquirer.ts) use the same functions.
 */

/** What showing, setting and removing credentials run with (the admin API, the dashboard, the command line). */
export interface CredentialsServices {
  readonly store: Store;
  readonly vault: CardVault;
  readonly now: () => Date;
  /** The names of the acquirers that are connectors (ACQUIRERS_FILE): only they take credentials. */
  readonly connectors: readonly string[];
}

const noEntity = (id: string) => adminNotFound('entity', id);

/** Why a name takes no credentials, saying which names do. */
export function notAConnectorReason(name: string, connectors: readonly string[]): string {
  const which = connectors.length > 0 ? `the connectors are ${connectors.join(', ')}` : 'ACQUIRERS_FILE describes none';
  return `no connector ${shownText(name, 64)}: only a connector takes credentials (${which})`;
}

/** 404 for a name that takes no credentials. */
export const notAConnector = (name: string, connectors: readonly string[]): GatewayError => new GatewayError(withReason(RESULTS.invalidParameter, notAConnectorReason(name, connectors)), 404);

/** The credentials as the admin API shows them: never the token. */
export function acquirerCredentialsJson(entityId: string, shown: CredentialsShown): Record<string, unknown> {
  return { entityId, acquirer: shown.acquirer, set: shown.set, providerEntityId: shown.providerEntityId, updatedAt: shown.updatedAt?.toISOString() ?? null };
}

/**
 * The PUT body, `{"entityId", "accessToken"}`. A refused body quotes none of its values: a token sent under a
 * mistyped name is still the token.
 */
export async function credentialsBodyOf(c: Context<AppEnv>): Promise<{ readonly entityId?: unknown; readonly accessToken?: unknown }> {
  try {
    return await adminJsonBody(c, { entityId: 'string', accessToken: 'string' });
  } catch (error) {
    if (error instanceof GatewayError && error.parameterErrors) throw invalidParameters(error.parameterErrors.map((problem) => ({ ...problem, value: '' })));
    throw error;
  }
}

function requireConnector(services: Pick<CredentialsServices, 'connectors'>, acquirer: string): void {
  if (!services.connectors.includes(acquirer)) throw notAConnector(acquirer, services.connectors);
}

/** Every connector's credentials of the entity, as shown; a CredentialsRefusedError (unknownEntity) for no entity. */
export async function showEntityCredentials(services: Pick<CredentialsServices, 'store' | 'connectors'>, entityId: string): Promise<CredentialsShown[]> {
  const shown = await showCredentials(services.store, entityId, services.connectors);
  if (!shown) throw new CredentialsRefusedError([], true);
  return shown;
}

/**
 * Sets (or replaces) the entity's credentials at connector `acquirer`, the token sealed: throws notAConnector, or a
 * CredentialsRefusedError naming `entityId` / `accessToken` (or for no entity). Connectors read credentials through a
 * cache: the caller tells its own instance's to forget the old ones (other instances' forget within CREDENTIALS_CACHE_MS).
 */
export async function setEntityCredentials(
  services: CredentialsServices,
  entityId: string,
  acquirer: string,
  input: { readonly entityId?: unknown; readonly accessToken?: unknown },
): Promise<CredentialsShown> {
  requireConnector(services, acquirer);
  const credentials = checkCredentials(input);
  const now = services.now();
  if (!(await services.store.transaction((tx) => saveCredentials(tx, services.vault, entityId, acquirer, credentials, now)))) throw new CredentialsRefusedError([], true);
  return { acquirer, set: true, providerEntityId: credentials.entityId, updatedAt: now };
}

/**
 * Removes the entity's credentials at connector `acquirer`, erasing the token; whether there were any (none is no
 * error). Throws as setEntityCredentials.
 */
export async function removeEntityCredentials(services: Pick<CredentialsServices, 'store' | 'now' | 'connectors'>, entityId: string, acquirer: string): Promise<boolean> {
  requireConnector(services, acquirer);
  const removed = await services.store.transaction(async (tx) => {
    // Shown for no connector at all: only whether the entity exists.
    if (!(await showCredentials(tx, entityId, []))) return undefined;
    return removeCredentials(tx, entityId, acquirer, services.now());
  });
  if (removed === undefined) throw new CredentialsRefusedError([], true);
  return removed;
}

/** What is shown of credentials removed (or never set). */
export const unsetCredentials = (acquirer: string): CredentialsShown => ({ acquirer, set: false, providerEntityId: null, updatedAt: null });

export function acquirerCredentialsAdminRoutes(
  deps: Pick<HttpDependencies, 'authFailures' | 'config' | 'store' | 'now'> & { readonly payments: { readonly vault: CardVault; readonly acquirers: { readonly connectors: readonly string[]; readonly credentials: CredentialsLookup } } },
  adminToken: string,
): Hono<AppEnv> {
  const routes = new Hono<AppEnv>();
  const { connectors, credentials } = deps.payments.acquirers;
  const services: CredentialsServices = { store: deps.store, vault: deps.payments.vault, now: deps.now, connectors };
  const ok = (c: Context<AppEnv>, body: Record<string, unknown>) => jsonResponse(c, envelope(RESULTS.successfulRequest, c.get('requestId'), body), 200);
  /** The use-case's refusals as the admin API answers them. */
  const answered = async <T>(entityId: string, work: () => Promise<T>): Promise<T> => {
    try {
      return await work();
    } catch (error) {
      if (error instanceof CredentialsRefusedError) throw error.unknownEntity ? noEntity(entityId) : invalidParameters(error.problems);
      throw error;
    }
  };
  routes.use('*', requireAdminToken(deps, adminToken));
  const entityPathId = pathId('entity', (_c, id) => noEntity(id), 'entityId');
  const acquirerPathId = pathId('acquirer', (_c, name) => notAConnector(name, connectors), 'name');

  routes.get('/:entityId/acquirers', entityPathId, async (c) => {
    const entityId = c.req.param('entityId');
    const shown = await answered(entityId, () => showEntityCredentials(services, entityId));
    return ok(c, { acquirerCredentials: shown.map((one) => acquirerCredentialsJson(entityId, one)) });
  });
  routes.all('/:entityId/acquirers', () => {
    throw methodNotAllowed(['GET']);
  });

  routes.get('/:entityId/acquirers/:name', entityPathId, acquirerPathId, async (c) => {
    const entityId = c.req.param('entityId');
    const acquirer = c.req.param('name');
    requireConnector(services, acquirer);
    const [shown] = await answered(entityId, () => showEntityCredentials({ store: services.store, connectors: [acquirer] }, entityId));
    return ok(c, { acquirerCredentials: acquirerCredentialsJson(entityId, shown as CredentialsShown) });
  });

  routes.put('/:entityId/acquirers/:name', entityPathId, acquirerPathId, async (c) => {
    const entityId = c.req.param('entityId');
    const input = await credentialsBodyOf(c);
    const acquirer = c.req.param('name');
    const saved = await answered(entityId, () => setEntityCredentials(services, entityId, acquirer, input));
    // This instance's connector pays with them at once; other instances' within CREDENTIALS_CACHE_MS.
    credentials.forget(entityId, acquirer);
    return ok(c, { acquirerCredentials: acquirerCredentialsJson(entityId, saved) });
  });

  routes.delete('/:entityId/acquirers/:name', entityPathId, acquirerPathId, async (c) => {
    const entityId = c.req.param('entityId');
    const acquirer = c.req.param('name');
    await answered(entityId, () => removeEntityCredentials(services, entityId, acquirer));
    credentials.forget(entityId, acquirer);
    return ok(c, { acquirerCredentials: acquirerCredentialsJson(entityId, unsetCredentials(acquirer)) });
  });

  routes.all('/:entityId/acquirers/:name', () => {
    throw methodNotAllowed(['GET', 'PUT', 'DELETE']);
  });
  return routes;
}
