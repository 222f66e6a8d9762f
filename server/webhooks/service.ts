import type { GatewayEnvironment } from '../config.ts';
import { newResourceId } from '../domain/ids.ts';
import { checkHttpUrl, describeUrl } from '../domain/urls.ts';
import { WEBHOOK_DELIVERY_JOB } from '../events/outbox.ts';
import { scheduleJob } from '../jobs/repository.ts';
import type { Logger } from '../logger.ts';
import { entityExists } from '../merchants/repository.ts';
import { sendOutbound, type OutboundPolicy } from '../outbound/http.ts';
import type { Store } from '../store/index.ts';
import type { CardVault } from '../vault/cardVault.ts';
import { eraseSealed, findSealed, keepSealed } from '../vault/repository.ts';
import { isWebhookSecret, newWebhookSecret, notificationRequest } from './crypto.ts';
import { activationPlaintext } from './notification.ts';
import {
  deleteWebhook as deleteWebhookRow,
  findDelivery,
  findWebhook,
  insertWebhook,
  updateWebhook as updateWebhookRow,
  type NotificationType,
  type WebhookFields,
  type WebhookRecord,
  type WebhookWrapper,
} from './repository.ts';

/**
 * Webhooks (COMPAT §13), configured per merchant entity by the operator (admin commands, admin API): where the
 * gateway notifies, which types, how much data, in which wrapper, with which secret. A webhook is created pending and
 * becomes active only once its activation message got a 2xx; only active webhooks get deliveries (events/outbox.ts
 * creates them with each event). The secret is shown once, at creation, and kept sealed in the vault.
 */

export const NOTIFICATION_TYPES: readonly NotificationType[] = ['PAYMENT', 'REGISTRATION', 'SCHEDULE', 'RISK'];
/** COMPAT §13: a delivery that gets no answer within 30 s has failed. */
export const WEBHOOK_TIMEOUT_MS = 30_000;
/** What the gateway reads of a receiver's answer before it gives up on it (the body is dropped anyway). */
export const WEBHOOK_MAX_RESPONSE_BYTES = 64 * 1024;

export interface WebhookServices {
  readonly store: Store;
  readonly vault: CardVault;
  readonly now: () => Date;
  readonly environment: GatewayEnvironment;
  /** The gateway's own address: a webhook never points at it. */
  readonly publicUrl: string;
  readonly outbound: OutboundPolicy;
  readonly timeoutMs: number;
  readonly logger: Logger;
}

/** A refused configuration: the setting and why, for the operator. */
export class WebhookConfigError extends Error {
  constructor(
    readonly setting: string,
    message: string,
  ) {
    super(`${setting} ${message}`);
    this.name = 'WebhookConfigError';
  }
}

/** Why `raw` cannot be a webhook's URL, or undefined when it can. */
export function webhookUrlProblem(raw: string, environment: GatewayEnvironment, publicUrl: string): string | undefined {
  const checked = checkHttpUrl(raw);
  if (!checked.ok) {
    return checked.problem === 'credentials' ? 'must not carry credentials (user:password@)' : 'must be an absolute http or https URL';
  }
  if (environment === 'live' && checked.url.protocol !== 'https:') return 'must be https in live';
  if (checked.url.origin === new URL(publicUrl).origin) return 'must not point at the gateway itself';
  return undefined;
}

function checkedUrl(raw: string, services: Pick<WebhookServices, 'environment' | 'publicUrl'>): string {
  const problem = webhookUrlProblem(raw, services.environment, services.publicUrl);
  if (problem) throw new WebhookConfigError('url', problem);
  return raw;
}

function checkedTypes(types: readonly string[]): NotificationType[] {
  const unknown = types.filter((type) => !NOTIFICATION_TYPES.includes(type as NotificationType));
  if (types.length === 0 || unknown.length > 0) {
    throw new WebhookConfigError('types', `must be one or more of ${NOTIFICATION_TYPES.join(', ')}${unknown.length ? ` (not ${unknown.join(', ')})` : ''}`);
  }
  return [...new Set(types)] as NotificationType[];
}

function checkedFields(fields: string): WebhookFields {
  if (fields !== 'ALL' && fields !== 'NON_CUSTOMER_DATA') throw new WebhookConfigError('fields', 'must be ALL or NON_CUSTOMER_DATA');
  return fields;
}

function checkedWrapper(wrapper: string): WebhookWrapper {
  if (wrapper !== 'NONE' && wrapper !== 'JSON') throw new WebhookConfigError('wrapper', 'must be NONE or JSON');
  return wrapper;
}

export interface WebhookSettings {
  readonly url: string;
  readonly types?: readonly string[];
  readonly fields?: string;
  readonly wrapper?: string;
  /** 64 hex characters; generated when not given. */
  readonly secret?: string;
}

/** What sending the activation (or test) message gave. */
export interface ActivationOutcome {
  readonly delivered: boolean;
  readonly httpStatus: number | null;
  readonly error: string | null;
}

/** Creates a webhook (pending), then sends its activation message. The secret is returned this once. */
export async function createWebhook(
  services: WebhookServices,
  entityId: string,
  settings: WebhookSettings,
): Promise<{ webhook: WebhookRecord; secret: string; activation: ActivationOutcome }> {
  const url = checkedUrl(settings.url, services);
  const types = checkedTypes(settings.types ?? NOTIFICATION_TYPES);
  const fields = checkedFields(settings.fields ?? 'ALL');
  const wrapper = checkedWrapper(settings.wrapper ?? 'NONE');
  if (settings.secret !== undefined && !isWebhookSecret(settings.secret)) throw new WebhookConfigError('secret', 'must be 64 hexadecimal characters');
  const secret = settings.secret ?? newWebhookSecret();
  const now = services.now();
  const created = await services.store.transaction(async (tx) => {
    if (!(await entityExists(tx, entityId))) throw new WebhookConfigError('entity', `${entityId} does not exist`);
    const webhook: WebhookRecord = {
      id: newResourceId(),
      entityId,
      url,
      types,
      fields,
      wrapper,
      secretId: await keepSealed(tx, services.vault.seal(secret), now),
      status: 'pending',
      statusReason: 'waiting for a 2xx to the activation message',
      failingSince: null,
      createdAt: now,
      updatedAt: now,
    };
    await insertWebhook(tx, webhook);
    return webhook;
  });
  const { webhook, activation } = await sendActivation(services, created.id);
  return { webhook, secret, activation };
}

/** The webhook's secret, opened from the vault. */
export async function secretOf(services: Pick<WebhookServices, 'store' | 'vault'>, webhook: Pick<WebhookRecord, 'id' | 'secretId'>): Promise<string> {
  const sealed = await findSealed(services.store, webhook.secretId);
  if (!sealed) throw new Error(`the secret of webhook ${webhook.id} is not in the vault`);
  return services.vault.open<string>(sealed);
}

/** Sends one encrypted message to the webhook; resolves with what came back (never throws for a receiver's failure). */
export async function sendToWebhook(
  services: Pick<WebhookServices, 'outbound' | 'timeoutMs'>,
  webhook: Pick<WebhookRecord, 'url' | 'wrapper'>,
  secret: string,
  plaintext: string,
  signal?: AbortSignal,
): Promise<ActivationOutcome & { readonly latencyMs: number }> {
  const { headers, body } = notificationRequest(plaintext, secret, webhook.wrapper);
  const started = performance.now();
  try {
    const status = await sendOutbound(
      new URL(webhook.url),
      { method: 'POST', headers, body, timeoutMs: services.timeoutMs, maxResponseBytes: WEBHOOK_MAX_RESPONSE_BYTES, ...(signal ? { signal } : {}) },
      services.outbound,
    );
    const latencyMs = Math.round(performance.now() - started);
    const delivered = status >= 200 && status < 300;
    return { delivered, httpStatus: status, error: delivered ? null : `answered HTTP ${status}`, latencyMs };
  } catch (error) {
    return { delivered: false, httpStatus: null, error: (error as Error).message, latencyMs: Math.round(performance.now() - started) };
  }
}

/**
 * Sends the activation (test) message (COMPAT §13). A 2xx makes a pending webhook active; an active one stays
 * active whatever the test gave (deliveries decide about that), an inactive one stays inactive until the operator
 * activates it again.
 */
export async function sendActivation(services: WebhookServices, id: string): Promise<{ webhook: WebhookRecord; activation: ActivationOutcome }> {
  const webhook = await findWebhook(services.store, id);
  if (!webhook) throw new WebhookConfigError('webhook', `${id} does not exist`);
  const secret = await secretOf(services, webhook);
  const outcome = await sendToWebhook(services, webhook, secret, activationPlaintext(services.environment === 'test' ? 'INTERNAL' : undefined));
  const activation = { delivered: outcome.delivered, httpStatus: outcome.httpStatus, error: outcome.error };
  services.logger.info('webhook activation sent', { webhookId: id, url: describeUrl(new URL(webhook.url)), ...activation });
  if (!outcome.delivered) return { webhook, activation };
  const activated = await services.store.transaction(async (tx) => {
    const current = await findWebhook(tx, id, { forUpdate: true });
    if (!current || current.status !== 'pending') return current ?? webhook;
    const next: WebhookRecord = { ...current, status: 'active', statusReason: null, failingSince: null, updatedAt: services.now() };
    await updateWebhookRow(tx, next);
    return next;
  });
  return { webhook: activated, activation };
}

export interface WebhookChanges {
  readonly url?: string;
  readonly types?: readonly string[];
  readonly fields?: string;
  readonly wrapper?: string;
  /** false switches the webhook off; true switches it on again, through a new activation message. */
  readonly active?: boolean;
}

/**
 * Changes a webhook. A new URL, or switching it on again, makes it pending until the activation message to it gets
 * a 2xx (sent here).
 */
export async function changeWebhook(
  services: WebhookServices,
  id: string,
  changes: WebhookChanges,
): Promise<{ webhook: WebhookRecord; activation: ActivationOutcome | undefined }> {
  const url = changes.url === undefined ? undefined : checkedUrl(changes.url, services);
  const types = changes.types === undefined ? undefined : checkedTypes(changes.types);
  const fields = changes.fields === undefined ? undefined : checkedFields(changes.fields);
  const wrapper = changes.wrapper === undefined ? undefined : checkedWrapper(changes.wrapper);
  const updated = await services.store.transaction(async (tx) => {
    const webhook = await findWebhook(tx, id, { forUpdate: true });
    if (!webhook) throw new WebhookConfigError('webhook', `${id} does not exist`);
    const reactivate = (url !== undefined && url !== webhook.url) || (changes.active === true && webhook.status === 'inactive');
    const next: WebhookRecord = {
      ...webhook,
      url: url ?? webhook.url,
      types: types ?? webhook.types,
      fields: fields ?? webhook.fields,
      wrapper: wrapper ?? webhook.wrapper,
      ...(changes.active === false
        ? { status: 'inactive' as const, statusReason: 'switched off by the operator' }
        : reactivate
          ? { status: 'pending' as const, statusReason: 'waiting for a 2xx to the activation message' }
          : {}),
      updatedAt: services.now(),
    };
    await updateWebhookRow(tx, next);
    return next;
  });
  if (updated.status !== 'pending') return { webhook: updated, activation: undefined };
  return sendActivation(services, id);
}

/** Deletes a webhook, its deliveries (pending ones are not sent) and its secret. */
export async function removeWebhook(services: WebhookServices, id: string): Promise<WebhookRecord> {
  return services.store.transaction(async (tx) => {
    const webhook = await findWebhook(tx, id, { forUpdate: true });
    if (!webhook) throw new WebhookConfigError('webhook', `${id} does not exist`);
    await deleteWebhookRow(tx, id);
    await eraseSealed(tx, webhook.secretId, services.now());
    return webhook;
  });
}

/** Sends a delivery again (the operator's re-send), whatever became of it: a job of its own, due now. */
export async function resendDelivery(services: Pick<WebhookServices, 'store' | 'now'>, deliveryId: string): Promise<void> {
  const delivery = await findDelivery(services.store, deliveryId);
  if (!delivery) throw new WebhookConfigError('delivery', `${deliveryId} does not exist`);
  const now = services.now();
  const resendId = newResourceId();
  await scheduleJob(
    services.store,
    { kind: WEBHOOK_DELIVERY_JOB, uniqueKey: `${WEBHOOK_DELIVERY_JOB}:${deliveryId}:resend:${resendId}`, runAt: now, payload: { deliveryId, resend: true } },
    now,
  );
}
