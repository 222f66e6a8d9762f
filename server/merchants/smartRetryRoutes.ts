import { Hono, type Context } from 'hono';
import type { HttpDependencies } from '../http/access.ts';
import { invalidParameters } from '../domain/errors.ts';
import { RESULTS } from '../domain/resultCodes.ts';
import { DEFAULT_SOFT_DECLINE_CODES, notInEffectBecause, type AcquirerNames, type SmartRetryInput, type SmartRetrySettings } from '../domain/smartRetryRules.ts';
import { adminJsonBody, adminNotFound, requireAdminToken } from '../http/admin.ts';
import type { AppEnv } from '../http/context.ts';
import { envelope } from '../http/envelope.ts';
import { methodNotAllowed } from '../http/errors.ts';
import { pathId } from '../http/pathIds.ts';
import { jsonResponse } from '../http/respond.ts';
import { removeSmartRetry, saveSmartRetry, showSmartRetry, SmartRetryConfigError, type SmartRetryLookup } from './smartRetrySettings.ts';

/**
 * The admin API of smart retry (COMPAT §15): `/admin/v1/entities/{entityId}/smart-retry`, JSON in and out, with
 * `Authorization: Bearer <ADMIN_TOKEN>` (mounted by app.ts only when ADMIN_TOKEN is set, like the webhooks' admin
 * API). GET shows the entity's settings (off, with the defaults, when it has none), PUT replaces them, DELETE
 * switches smart retry off. Answers carry the envelope of the merchant API; refused settings are 400 200.300.404
 * with parameterErrors, and nothing is written.
 */

/** The settings as the admin API shows them, and whether they retry anything with the acquirers configured now. */
export function smartRetryJson(entityId: string, settings: SmartRetrySettings | undefined, names: AcquirerNames): Record<string, unknown> {
  const reason = notInEffectBecause(settings, names);
  return {
    entityId,
    enabled: settings?.enabled ?? false,
    codes: settings?.codes ?? DEFAULT_SOFT_DECLINE_CODES,
    defaultCodes: !(settings?.customCodes ?? false),
    standalone: settings?.standalone ?? true,
    cardOnFile: settings?.cardOnFile ?? true,
    fallbackAcquirer: settings?.fallbackAcquirer ?? null,
    updatedAt: settings?.updatedAt.toISOString() ?? null,
    inEffect: reason === undefined,
    ...(reason !== undefined ? { notInEffectBecause: reason } : {}),
  };
}

const noEntity = (id: string) => adminNotFound('entity', id);

/** The PUT body as settings input: `codes` is a list of result codes, or "default" (the dashboard reads it so too). */
export function smartRetryInputOf(body: Record<string, unknown>): SmartRetryInput {
  const codes = body.codes;
  if (typeof codes === 'string' && codes !== 'default') {
    throw invalidParameters([{ name: 'codes', value: codes, message: 'must be an array of result codes, or "default"' }]);
  }
  return {
    ...(body.enabled !== undefined ? { enabled: body.enabled as boolean } : {}),
    ...(codes !== undefined ? { codes: codes as string[] | 'default' } : {}),
    ...(body.standalone !== undefined ? { standalone: body.standalone as boolean } : {}),
    ...(body.cardOnFile !== undefined ? { cardOnFile: body.cardOnFile as boolean } : {}),
    ...(body.fallbackAcquirer !== undefined ? { fallbackAcquirer: body.fallbackAcquirer as string } : {}),
  };
}

export function smartRetryAdminRoutes(deps: Pick<HttpDependencies, 'authFailures' | 'config' | 'store' | 'now'> & { readonly payments: { readonly smartRetry: SmartRetryLookup } }, adminToken: string): Hono<AppEnv> {
  const routes = new Hono<AppEnv>();
  const { store, config } = deps;
  const names: AcquirerNames = { acquirers: config.acquirers, defaultAcquirer: config.defaultAcquirer };
  const ok = (c: Context<AppEnv>, entityId: string, settings: SmartRetrySettings | undefined) =>
    jsonResponse(c, envelope(RESULTS.successfulRequest, c.get('requestId'), { smartRetry: smartRetryJson(entityId, settings, names) }), 200);
  routes.use('*', requireAdminToken(deps, adminToken));
  const entityPathId = pathId('entity', (_c, id) => noEntity(id), 'entityId');

  routes.get('/:entityId/smart-retry', entityPathId, async (c) => {
    const entityId = c.req.param('entityId');
    const shown = await showSmartRetry(store, entityId);
    if (!shown.entityExists) throw noEntity(entityId);
    return ok(c, entityId, shown.settings);
  });

  routes.put('/:entityId/smart-retry', entityPathId, async (c) => {
    const entityId = c.req.param('entityId');
    const body = await adminJsonBody(c, {
      enabled: 'boolean',
      codes: 'stringsOrString',
      standalone: 'boolean',
      cardOnFile: 'boolean',
      fallbackAcquirer: 'string',
    });
    let saved: SmartRetrySettings;
    try {
      saved = await saveSmartRetry(store, names, entityId, smartRetryInputOf(body), deps.now());
    } catch (error) {
      if (error instanceof SmartRetryConfigError) throw error.unknownEntity ? noEntity(entityId) : invalidParameters(error.problems);
      throw error;
    }
    // This instance's payments see the change at once; other instances within SMART_RETRY_CACHE_MS.
    deps.payments.smartRetry.forget(entityId);
    return ok(c, entityId, saved);
  });

  routes.delete('/:entityId/smart-retry', entityPathId, async (c) => {
    const entityId = c.req.param('entityId');
    const removed = await removeSmartRetry(store, entityId);
    if (!removed.entityExists) throw noEntity(entityId);
    deps.payments.smartRetry.forget(entityId);
    return ok(c, entityId, undefined);
  });

  routes.all('/:entityId/smart-retry', () => {
    throw methodNotAllowed(['GET', 'PUT', 'DELETE']);
  });
  return routes;
}
