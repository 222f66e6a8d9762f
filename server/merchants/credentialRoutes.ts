import { Hono, type Context } from 'hono';
import type { HttpDependencies } from '../http/access.ts';
import { GatewayError, invalidParameters, withReason } from '../domain/errors.ts';
import { ENTITY_ID } from '../domain/ids.ts';
import { RESULTS } from '../domain/resultCodes.ts';
import { adminJsonBody, requireAdminToken } from '../http/admin.ts';
import type { AppEnv } from '../http/context.ts';
import { envelope } from '../http/envelope.ts';
import { methodNotAllowed } from '../http/errors.ts';
import { pathId } from '../http/pathIds.ts';
import { jsonResponse } from '../http/respond.ts';
import type { ParameterError } from '../domain/errors.ts';
import { LEGACY_USER_ID } from '../domain/ids.ts';
import { issueLegacyCredentials, listLegacyCredentials, revokeLegacyCredentials, type LegacyCredentialsSummary } from './legacyCredentials.ts';
import { entityExists } from './repository.ts';
import type { Queryable } from '../store/index.ts';

/**
 * The admin API of legacy credentials (COMPAT §1): `/admin/v1/credentials`, JSON in and out, with
 * `Authorization: Bearer <ADMIN_TOKEN>` (mounted by app.ts only when ADMIN_TOKEN is set). POST issues a pair for
 * `entityIds` (its password in that answer only), GET lists them (never a password or hash; `?entityId=` filters),
 * DELETE /{userId} revokes one: running gateways refuse it within TOKEN_CACHE_SECONDS.
 */

function credentialsJson(credentials: LegacyCredentialsSummary): Record<string, unknown> {
  return {
    userId: credentials.userId,
    entityIds: credentials.entityIds,
    label: credentials.label,
    demo: credentials.demo,
    createdAt: credentials.createdAt.toISOString(),
    revokedAt: credentials.revokedAt?.toISOString() ?? null,
  };
}

const ok = (c: Context<AppEnv>, body: Record<string, unknown>, status = 200) =>
  jsonResponse(c, envelope(RESULTS.successfulRequest, c.get('requestId'), body), status);

/** An id that is not one is not echoed: only a well-formed userId is named. */
const noCredentials = (userId: string): GatewayError =>
  new GatewayError(withReason(RESULTS.invalidParameter, `no active legacy credentials ${LEGACY_USER_ID.test(userId) ? userId : 'with that userId'}`), 404);

const MAX_LABEL_LENGTH = 200;

/**
 * The `entityIds` of an admin body (one id, or a list): required, each 32 lowercase hex (every malformed one named at
 * once), each an entity (404 for the first that is not). Shared by the credentials' and the tokens' POST.
 */
export async function existingEntityIds(store: Queryable, raw: unknown, actingFor: string): Promise<string[]> {
  const entityIds = raw === undefined ? [] : typeof raw === 'string' ? [raw] : (raw as string[]);
  if (entityIds.length === 0) throw invalidParameters([{ name: 'entityIds', value: '', message: `is required: the entities the ${actingFor} may act for` }]);
  const malformed = entityIds.filter((id) => !ENTITY_ID.test(id));
  if (malformed.length > 0) throw invalidParameters(malformed.map((id): ParameterError => ({ name: 'entityIds', value: id, message: 'must be 32 lowercase hexadecimal characters' })));
  for (const id of entityIds) {
    if (!(await entityExists(store, id))) throw new GatewayError(withReason(RESULTS.invalidParameter, `no entity ${id}`), 404);
  }
  return entityIds;
}

export function credentialAdminRoutes(deps: Pick<HttpDependencies, 'authFailures' | 'config' | 'store' | 'now'>, adminToken: string): Hono<AppEnv> {
  const routes = new Hono<AppEnv>();
  const { store } = deps;
  routes.use('*', requireAdminToken(deps, adminToken));

  routes.post('/', async (c) => {
    const body = await adminJsonBody(c, { entityIds: 'stringsOrString', label: 'string' });
    const entityIds = await existingEntityIds(store, body.entityIds, 'credentials');
    const label = (body.label as string | undefined) ?? 'legacy client';
    if (label.length > MAX_LABEL_LENGTH) throw invalidParameters([{ name: 'label', value: label, message: `must be at most ${MAX_LABEL_LENGTH} characters` }]);
    const issued = await store.transaction((tx) => issueLegacyCredentials(tx, entityIds, label));
    const [summary] = await listLegacyCredentials(store, { userId: issued.userId });
    // The one answer that carries the password: it is not kept anywhere.
    return ok(c, { credentials: { ...credentialsJson(summary as LegacyCredentialsSummary), password: issued.password } }, 201);
  });

  routes.get('/', async (c) => {
    const entityId = c.req.query('entityId');
    if (entityId !== undefined && !ENTITY_ID.test(entityId)) {
      throw invalidParameters([{ name: 'entityId', value: entityId, message: 'must be 32 lowercase hexadecimal characters' }]);
    }
    return ok(c, { credentials: (await listLegacyCredentials(store, { entityId })).map(credentialsJson) });
  });
  routes.all('/', () => {
    throw methodNotAllowed(['GET', 'POST']);
  });

  routes.delete('/:userId', pathId('legacyUser', (_c, id) => noCredentials(id), 'userId'), async (c) => {
    const userId = c.req.param('userId');
    if (!(await revokeLegacyCredentials(store, userId))) throw noCredentials(userId);
    const [summary] = await listLegacyCredentials(store, { userId });
    return ok(c, { credentials: credentialsJson(summary as LegacyCredentialsSummary) });
  });
  routes.all('/:userId', () => {
    throw methodNotAllowed(['DELETE']);
  });
  return routes;
}
