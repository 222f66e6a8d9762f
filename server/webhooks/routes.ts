import { Hono, type Context } from 'hono';
import type { HttpDependencies } from '../http/access.ts';
import { GatewayError, invalidParameters } from '../domain/errors.ts';
import { ENTITY_ID } from '../domain/ids.ts';
import { RESULTS } from '../domain/resultCodes.ts';
import { adminJsonBody, adminNotFound, requireAdminToken } from '../http/admin.ts';
import type { AppEnv } from '../http/context.ts';
import { envelope } from '../http/envelope.ts';
import { pathId } from '../http/pathIds.ts';
import { jsonResponse } from '../http/respond.ts';
import { findWebhook, listDeliveries, listWebhooks, type DeliverySummary, type WebhookRecord } from './repository.ts';
import {
  changeWebhook,
  createWebhook,
  removeWebhook,
  resendDelivery,
  sendActivation,
  WebhookConfigError,
  type ActivationOutcome,
  type WebhookChanges,
  type WebhookServices,
} from './service.ts';

/**
 * The admin API of webhooks (COMPAT §13), for the operator's dashboard: `/admin/v1/webhooks`, JSON in and out, every
 * call with `Authorization: Bearer <ADMIN_TOKEN>`. Its scope is the whole gateway (every entity's webhooks). Without
 * ADMIN_TOKEN app.ts does not mount it at all (404, as if absent). Answers carry the envelope of the merchant API.
 */

export const DEFAULT_DELIVERY_LIMIT = 50;
export const MAX_DELIVERY_LIMIT = 1000;

/** The webhook as the admin API shows it: never its secret (nor where the vault keeps it). */
export function webhookJson(webhook: WebhookRecord): Record<string, unknown> {
  return {
    id: webhook.id,
    entityId: webhook.entityId,
    url: webhook.url,
    types: webhook.types,
    fields: webhook.fields,
    wrapper: webhook.wrapper,
    status: webhook.status,
    statusReason: webhook.statusReason,
    createdAt: webhook.createdAt.toISOString(),
    updatedAt: webhook.updatedAt.toISOString(),
  };
}

export function deliveryState(delivery: Pick<DeliverySummary, 'deliveredAt' | 'givenUpAt'>): 'delivered' | 'given up' | 'pending' {
  return delivery.deliveredAt ? 'delivered' : delivery.givenUpAt ? 'given up' : 'pending';
}

export function deliveryJson(delivery: DeliverySummary): Record<string, unknown> {
  return {
    id: delivery.id,
    eventId: delivery.eventId,
    type: delivery.type,
    action: delivery.action,
    resourceId: delivery.resourceId,
    state: deliveryState(delivery),
    createdAt: delivery.createdAt.toISOString(),
    deliveredAt: delivery.deliveredAt?.toISOString() ?? null,
    givenUpAt: delivery.givenUpAt?.toISOString() ?? null,
    attempts: delivery.attempts.map((attempt) => ({
      attemptedAt: attempt.attemptedAt.toISOString(),
      httpStatus: attempt.httpStatus,
      latencyMs: attempt.latencyMs,
      error: attempt.error,
    })),
  };
}

const FIELD_NAMES: Readonly<Record<string, string>> = { entity: 'entityId' };

/** A refused webhook setting, as parameterErrors (a secret's value is never sent back); a missing webhook or delivery is 404. */
export function webhookConfigRefusal(error: WebhookConfigError, id: string): GatewayError {
  if (error.setting === 'webhook') return adminNotFound('webhook', id);
  if (error.setting === 'delivery') return adminNotFound('delivery', id);
  const name = FIELD_NAMES[error.setting] ?? error.setting;
  return invalidParameters([{ name, value: '', message: error.message.slice(error.setting.length + 1) }]);
}

async function guarded<T>(id: string, work: () => Promise<T>): Promise<T> {
  try {
    return await work();
  } catch (error) {
    if (error instanceof WebhookConfigError) throw webhookConfigRefusal(error, id);
    throw error;
  }
}

const ok = (c: Context<AppEnv>, body: Record<string, unknown>, status = 200) =>
  jsonResponse(c, envelope(RESULTS.successfulRequest, c.get('requestId'), body), status);

const activationJson = (activation: ActivationOutcome | undefined) => activation ?? null;

export function webhookAdminRoutes(
  deps: Pick<HttpDependencies, 'authFailures' | 'config' | 'now'> & { readonly webhooks: WebhookServices },
  adminToken: string,
): Hono<AppEnv> {
  const routes = new Hono<AppEnv>();
  const services = deps.webhooks;
  routes.use('*', requireAdminToken(deps, adminToken));
  const webhookId = pathId('webhook', (_c, id) => adminNotFound('webhook', id));

  routes.post('/', async (c) => {
    const body = await adminJsonBody(c, { entityId: 'string', url: 'string', types: 'strings', fields: 'string', wrapper: 'string', secret: 'string' });
    const missing = ['entityId', 'url'].filter((name) => body[name] === undefined);
    if (missing.length > 0) throw invalidParameters(missing.map((name) => ({ name, value: '', message: 'is required' })));
    const entityId = body.entityId as string;
    if (!ENTITY_ID.test(entityId)) throw invalidParameters([{ name: 'entityId', value: entityId, message: 'must be 32 lowercase hexadecimal characters' }]);
    const created = await guarded(entityId, () =>
      createWebhook(services, entityId, {
        url: body.url as string,
        ...(body.types !== undefined ? { types: body.types as string[] } : {}),
        ...(body.fields !== undefined ? { fields: body.fields as string } : {}),
        ...(body.wrapper !== undefined ? { wrapper: body.wrapper as string } : {}),
        ...(body.secret !== undefined ? { secret: body.secret as string } : {}),
      }),
    );
    return ok(c, { webhook: webhookJson(created.webhook), secret: created.secret, activation: created.activation }, 201);
  });

  routes.get('/', async (c) => {
    const entityId = c.req.query('entityId');
    if (entityId !== undefined && !ENTITY_ID.test(entityId)) {
      throw invalidParameters([{ name: 'entityId', value: entityId, message: 'must be 32 lowercase hexadecimal characters' }]);
    }
    const webhooks = await listWebhooks(services.store, entityId);
    return ok(c, { webhooks: webhooks.map(webhookJson) });
  });

  routes.post('/deliveries/:deliveryId/resend', pathId('delivery', (_c, id) => adminNotFound('delivery', id), 'deliveryId'), async (c) => {
    const deliveryId = c.req.param('deliveryId');
    await guarded(deliveryId, () => resendDelivery(services, deliveryId));
    return ok(c, { deliveryId, resend: 'scheduled' }, 202);
  });

  routes.get('/:id', webhookId, async (c) => {
    const id = c.req.param('id');
    const webhook = await findWebhook(services.store, id);
    if (!webhook) throw adminNotFound('webhook', id);
    return ok(c, { webhook: webhookJson(webhook) });
  });

  routes.patch('/:id', webhookId, async (c) => {
    const id = c.req.param('id');
    const body = await adminJsonBody(c, { url: 'string', types: 'strings', fields: 'string', wrapper: 'string', active: 'boolean' });
    const changes = body as WebhookChanges;
    const changed = await guarded(id, () => changeWebhook(services, id, changes));
    return ok(c, { webhook: webhookJson(changed.webhook), activation: activationJson(changed.activation) });
  });

  routes.delete('/:id', webhookId, async (c) => {
    const id = c.req.param('id');
    const removed = await guarded(id, () => removeWebhook(services, id));
    return ok(c, { webhook: webhookJson(removed) });
  });

  routes.post('/:id/test', webhookId, async (c) => {
    const id = c.req.param('id');
    const tested = await guarded(id, () => sendActivation(services, id));
    return ok(c, { webhook: webhookJson(tested.webhook), activation: tested.activation });
  });

  routes.get('/:id/deliveries', webhookId, async (c) => {
    const id = c.req.param('id');
    const raw = c.req.query('limit');
    const limit = raw === undefined ? DEFAULT_DELIVERY_LIMIT : Number(raw);
    if (raw !== undefined && (!/^\d{1,7}$/.test(raw) || limit < 1 || limit > MAX_DELIVERY_LIMIT)) {
      throw invalidParameters([{ name: 'limit', value: raw, message: `must be an integer between 1 and ${MAX_DELIVERY_LIMIT}` }]);
    }
    if (!(await findWebhook(services.store, id))) throw adminNotFound('webhook', id);
    const deliveries = await listDeliveries(services.store, id, limit);
    return ok(c, { deliveries: deliveries.map(deliveryJson) });
  });

  return routes;
}
