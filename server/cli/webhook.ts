import type { GatewayConfig } from '../config.ts';
import { ENTITY_ID, RESOURCE_ID } from '../domain/ids.ts';
import { createLogger } from '../logger.ts';
import type { Store } from '../store/index.ts';
import type { CardVault } from '../vault/cardVault.ts';
import { findWebhook, listDeliveries, listWebhooks, type DeliverySummary, type WebhookRecord } from '../webhooks/repository.ts';
import { DEFAULT_DELIVERY_LIMIT, deliveryState, MAX_DELIVERY_LIMIT } from '../webhooks/routes.ts';
import {
  changeWebhook,
  createWebhook,
  removeWebhook,
  resendDelivery,
  sendActivation,
  WEBHOOK_TIMEOUT_MS,
  WebhookConfigError,
  type ActivationOutcome,
  type WebhookServices,
} from '../webhooks/service.ts';
import type { CliIO, Outcome, Usage } from './command.ts';

/** `npm run gateway -- webhook ...`: an entity's webhooks and their deliveries. */

export const WEBHOOK_USAGE = `  webhook create --entity ID --url URL [--types PAYMENT,REGISTRATION,SCHEDULE,RISK]
                 [--fields ALL|NON_CUSTOMER_DATA] [--wrapper NONE|JSON] [--secret HEX]
                                             create a webhook (default: every type, ALL, NONE, a
                                             generated secret) and send its activation message; it is
                                             active once that got a 2xx. The secret (64 hex) is shown
                                             once
  webhook list [--entity ID]                 list webhooks (never their secrets)
  webhook update ID [--url URL] [--types ...] [--fields ...] [--wrapper ...] [--active true|false]
                                             change a webhook; a new URL, or --active true on a webhook
                                             switched off, sends the activation message again
  webhook delete ID                          delete a webhook, its deliveries and its secret
  webhook test ID                            send the activation (test) message; a pending webhook
                                             becomes active on a 2xx
  webhook deliveries ID [--limit N]          the webhook's latest deliveries (default ${DEFAULT_DELIVERY_LIMIT}), each with
                                             every attempt: time, HTTP status, latency, error
  webhook resend DELIVERY_ID                 send a delivery again (a running gateway sends it)
`;

const WEBHOOK_OPTIONS: Readonly<Record<string, string>> = {
  url: '--url',
  types: '--types',
  fields: '--fields',
  wrapper: '--wrapper',
  secret: '--secret',
  entity: '--entity',
};

/** A refused webhook setting, naming the option it came from; a missing webhook or delivery as such. */
export function webhookRefusal(error: WebhookConfigError): string {
  const reason = error.message.slice(error.setting.length + 1);
  if (error.setting === 'webhook' || error.setting === 'delivery') return `no ${error.setting} ${reason.replace(/ does not exist$/, '')}`;
  if (error.setting === 'entity') return `--entity: no entity ${reason.replace(/ does not exist$/, '')}`;
  return `webhook refused: ${WEBHOOK_OPTIONS[error.setting] ?? error.setting} ${reason}`;
}

function describeActivation(activation: ActivationOutcome): string {
  if (activation.delivered) return `delivered (HTTP ${activation.httpStatus})`;
  return `not delivered (${activation.httpStatus !== null ? `HTTP ${activation.httpStatus}` : activation.error ?? 'no answer'})`;
}

function describeWebhook(webhook: WebhookRecord): string[] {
  return [
    `webhook id    ${webhook.id}`,
    `entity        ${webhook.entityId}`,
    `url           ${webhook.url}`,
    `types         ${webhook.types.join(',')}`,
    `fields        ${webhook.fields}`,
    `wrapper       ${webhook.wrapper}`,
    `status        ${webhook.status}${webhook.statusReason ? ` (${webhook.statusReason})` : ''}`,
  ];
}

function describeDelivery(delivery: DeliverySummary): string[] {
  const state = deliveryState(delivery);
  const when = delivery.deliveredAt ?? delivery.givenUpAt;
  return [
    `${delivery.id}  ${delivery.type} ${delivery.action} ${delivery.resourceId}  ${state}${when ? ` ${when.toISOString()}` : ''}  (created ${delivery.createdAt.toISOString()}, ${delivery.attempts.length} attempt(s))`,
    ...delivery.attempts.map(
      (attempt) =>
        `  ${attempt.attemptedAt.toISOString()}  ${attempt.httpStatus !== null ? `HTTP ${attempt.httpStatus}` : 'no HTTP status'}  ${attempt.latencyMs} ms${attempt.error ? `  ${attempt.error}` : ''}`,
    ),
  ];
}

function typesOption(raw: string | undefined): string[] | undefined {
  return raw === undefined ? undefined : raw.split(',').map((type) => type.trim()).filter((type) => type !== '');
}

function webhookIdArgument(positionals: readonly string[], command: string, usage: Usage, what = 'webhook ID'): string {
  const id = positionals[0];
  if (!id || !RESOURCE_ID.test(id)) throw usage(`webhook ${command} needs the ${what} (32 lowercase hexadecimal characters)`);
  return id;
}

export interface WebhookOptionValues {
  readonly entity?: string[] | undefined;
  readonly url?: string | undefined;
  readonly types?: string | undefined;
  readonly fields?: string | undefined;
  readonly wrapper?: string | undefined;
  readonly secret?: string | undefined;
  readonly active?: string | undefined;
  readonly limit?: string | undefined;
}

/** Runs `webhook <action>`: see webhooks/service.ts. */
export async function webhookCommand(
  action: string | undefined,
  values: WebhookOptionValues,
  positionals: readonly string[],
  context: { readonly store: Store; readonly config: GatewayConfig; readonly vault: CardVault },
  io: CliIO,
  usage: Usage,
): Promise<string | Outcome> {
  const { store, config, vault } = context;
  const services: WebhookServices = {
    store,
    vault,
    now: io.now ?? (() => new Date()),
    environment: config.environment,
    publicUrl: config.publicUrl,
    outbound: { allowPrivateAddresses: config.outboundAllowPrivate },
    timeoutMs: WEBHOOK_TIMEOUT_MS,
    // What the command does is its output; the activation's log line would only repeat it.
    logger: createLogger({ level: 'silent' }),
  };
  switch (action) {
    case 'create': {
      const entityId = values.entity?.[0];
      if (!entityId || (values.entity?.length ?? 0) > 1) throw usage('webhook create needs one --entity ID');
      if (!ENTITY_ID.test(entityId)) throw usage('--entity must be 32 lowercase hexadecimal characters');
      if (values.url === undefined) throw usage('webhook create needs --url URL');
      const types = typesOption(values.types);
      io.progress(`Creating the webhook and sending its activation message to ${values.url}`);
      const created = await createWebhook(services, entityId, {
        url: values.url,
        ...(types ? { types } : {}),
        ...(values.fields !== undefined ? { fields: values.fields } : {}),
        ...(values.wrapper !== undefined ? { wrapper: values.wrapper } : {}),
        ...(values.secret !== undefined ? { secret: values.secret } : {}),
      });
      return [
        ...describeWebhook(created.webhook),
        `activation    ${describeActivation(created.activation)}`,
        `secret        ${created.secret}`,
        '(the secret is shown once and will not be shown again: the receiver decrypts with it; the gateway keeps it sealed)',
        ...(created.webhook.status === 'active'
          ? []
          : ['The webhook gets no notifications until its activation message gets a 2xx: `npm run gateway -- webhook test ID` sends it again.']),
      ].join('\n');
    }
    case 'list': {
      const entityId = values.entity?.[0];
      if (entityId !== undefined && !ENTITY_ID.test(entityId)) throw usage('--entity must be 32 lowercase hexadecimal characters');
      const webhooks = await listWebhooks(store, entityId);
      return (
        webhooks
          .map(
            (webhook) =>
              `${webhook.id}  entity ${webhook.entityId}  ${webhook.status}${webhook.statusReason ? ` (${webhook.statusReason})` : ''}  ` +
              `${webhook.types.join(',')}  ${webhook.fields}  ${webhook.wrapper}  ${webhook.url}`,
          )
          .join('\n') || '(no webhooks)'
      );
    }
    case 'update': {
      const id = webhookIdArgument(positionals, 'update', usage);
      if (values.active !== undefined && values.active !== 'true' && values.active !== 'false') throw usage('--active must be true or false');
      const types = typesOption(values.types);
      const changes = {
        ...(values.url !== undefined ? { url: values.url } : {}),
        ...(types ? { types } : {}),
        ...(values.fields !== undefined ? { fields: values.fields } : {}),
        ...(values.wrapper !== undefined ? { wrapper: values.wrapper } : {}),
        ...(values.active !== undefined ? { active: values.active === 'true' } : {}),
      };
      if (Object.keys(changes).length === 0) throw usage('webhook update needs at least one of --url, --types, --fields, --wrapper, --active');
      const changed = await changeWebhook(services, id, changes);
      return [...describeWebhook(changed.webhook), ...(changed.activation ? [`activation    ${describeActivation(changed.activation)}`] : [])].join('\n');
    }
    case 'delete': {
      const id = webhookIdArgument(positionals, 'delete', usage);
      const removed = await removeWebhook(services, id);
      return `deleted webhook ${removed.id} (entity ${removed.entityId}, ${removed.url}), its deliveries and its secret`;
    }
    case 'test': {
      const id = webhookIdArgument(positionals, 'test', usage);
      const tested = await sendActivation(services, id);
      return [...describeWebhook(tested.webhook), `activation    ${describeActivation(tested.activation)}`].join('\n');
    }
    case 'deliveries': {
      const id = webhookIdArgument(positionals, 'deliveries', usage);
      const limit = values.limit === undefined ? DEFAULT_DELIVERY_LIMIT : Number(values.limit);
      if (!/^\d{1,7}$/.test(values.limit ?? '1') || limit < 1 || limit > MAX_DELIVERY_LIMIT) {
        throw usage(`--limit must be an integer between 1 and ${MAX_DELIVERY_LIMIT}`);
      }
      if (!(await findWebhook(store, id))) throw new WebhookConfigError('webhook', `${id} does not exist`);
      const deliveries = await listDeliveries(store, id, limit);
      return deliveries.flatMap(describeDelivery).join('\n') || '(no deliveries)';
    }
    case 'resend': {
      const id = webhookIdArgument(positionals, 'resend', usage, 'DELIVERY_ID');
      await resendDelivery(services, id);
      return `re-send of delivery ${id} scheduled: a running gateway sends it with its next deliveries`;
    }
    default:
      throw usage(`unknown command: webhook ${action ?? ''}`.trim());
  }
}
