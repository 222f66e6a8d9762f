import { resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { parseArgs } from 'node:util';
import { ConfigError, loadConfig } from './config.ts';
import { ENTITY_ID, RESOURCE_ID } from './domain/ids.ts';
import { CREDENTIALS_USAGE, credentialsCommand } from './merchants/credentialsCli.ts';
import { SETTLEMENT_USAGE, settlementCommand } from './reports/settlementCli.ts';
import { BRANDS_USAGE, brandsCommand } from './merchants/brandsCli.ts';
import { PAYMENTS_USAGE, paymentsCommand } from './payments/settleCli.ts';
import { RECONCILIATION_USAGE, reconciliationCommand } from './reconciliation/cli.ts';
import { createLogger } from './logger.ts';
import { resultUrlBaseProblem } from './domain/urls.ts';
import {
  createEntity,
  entityExists,
  grantToken,
  listEntities,
  newAccessToken,
  revokeToken,
  setShopperResultUrlBase,
} from './merchants/repository.ts';
import { notInEffectBecause, type AcquirerNames, type SmartRetryInput, type SmartRetrySettings } from './domain/smartRetry.ts';
import { removeSmartRetry, saveSmartRetry, showSmartRetry, SMART_RETRY_CACHE_MS, SmartRetryConfigError } from './merchants/smartRetry.ts';
import { openStore, type Store } from './store/index.ts';
import { defaultLimits, LIMIT_NAMES } from './throttling/limits.ts';
import { effectiveLimits, removeThrottling, saveThrottling, showThrottling, THROTTLING_CACHE_MS, ThrottlingConfigError, type ThrottlingSettings } from './throttling/settings.ts';
import type { RequestLimits } from './config.ts';
import { createCardVault, type CardVault } from './vault/cardVault.ts';
import { loadCardDataKeys, newCardDataKey } from './vault/key.ts';
import { findWebhook, listDeliveries, listWebhooks, type DeliverySummary, type WebhookRecord } from './webhooks/repository.ts';
import { DEFAULT_DELIVERY_LIMIT, deliveryState, MAX_DELIVERY_LIMIT } from './webhooks/routes.ts';
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
} from './webhooks/service.ts';
import {
  DEFAULT_ROTATION_BATCH,
  rotateSealedValues,
  scheduleCompactionAfterRotation,
  sealedValuesByKey,
  type KeyCount,
} from './vault/rotation.ts';

/**
 * Operator commands, run with `npm run gateway -- <command>` against the configured store
 * (DATABASE_URL, or the embedded store in DATA_DIR — stop a running gateway on that directory first).
 */

const USAGE = `Usage: npm run gateway -- <command>

  entity create [--name NAME] [--id ID] [--result-url-base URL]
                                             create an entity and an access token for it
  entity update ID --result-url-base URL|none
                                             set where the entity's shoppers return (a base ending with
                                             a slash): the 29-minute call goes to a result URL the payment
                                             page posted only when it lies under it
  entity list                                list entities
  token create --entity ID [--entity ID ...] [--label LABEL]
                                             create an access token allowed for the given entities
  token revoke TOKEN_ID                      revoke an access token
${CREDENTIALS_USAGE}${BRANDS_USAGE}${PAYMENTS_USAGE}${SETTLEMENT_USAGE}${RECONCILIATION_USAGE}  keys generate                              print a new card-data key (for CARD_DATA_KEY); also
                                             \`key generate\`
  keys status                                how many sealed card values each key id holds, and which
                                             key is current (CARD_DATA_KEY)
  keys rotate [--batch N]                    re-seal, N at a time (default ${DEFAULT_ROTATION_BATCH}), every card value
                                             sealed with a previous key (CARD_DATA_PREVIOUS_KEYS) with
                                             CARD_DATA_KEY, while gateways run (PostgreSQL; the embedded
                                             store's own gateway does it at start); then the vault's
                                             compaction is scheduled. Exits non-zero when values no
                                             configured key opens remain
  webhook create --entity ID --url URL [--types PAYMENT,REGISTRATION,SCHEDULE,RISK]
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
  smart-retry show ENTITY_ID                 the entity's smart retry settings (off unless set)
  smart-retry set ENTITY_ID --fallback NAME [--codes CODE,CODE,...|default]
                  [--standalone true|false] [--card-on-file true|false] [--enabled true|false]
                                             retry a DB or PA the default acquirer rejects with one of
                                             the codes (or cannot reach) once at acquirer NAME (one of
                                             ACQUIRERS, not DEFAULT_ACQUIRER); replaces the settings:
                                             what is left out is on, with the default codes. Running
                                             gateways apply it within ${SMART_RETRY_CACHE_MS / 1000} s
  smart-retry off ENTITY_ID                  switch smart retry off (the settings go)
  throttling show ENTITY_ID                  the entity's request limits (its own and the defaults)
                                             and its risk velocity rules
  throttling set ENTITY_ID NAME=VALUE ...    change the entity's own limits and rules, keeping the
                                             others: a limit (${LIMIT_NAMES.join(', ')}) =N (0: no limit)
                                             or =default; a rule setting risk.RULE.SETTING=N, or
                                             risk.RULE=off. Running gateways apply it within ${THROTTLING_CACHE_MS / 1000} s
  throttling off ENTITY_ID                   back to the default limits, without risk rules
`;

class UsageError extends Error {}

function resultUrlBaseOption(raw: string | undefined): string | undefined {
  if (raw === undefined) return undefined;
  const problem = resultUrlBaseProblem(raw);
  if (problem) throw new UsageError(`--result-url-base ${problem}`);
  return raw;
}

/** Where a command writes (the process's streams, or a test's lines) and the environment it reads. */
export interface CliIO {
  readonly env: NodeJS.ProcessEnv;
  /** A line of progress, before the command's result. */
  readonly progress: (line: string) => void;
  readonly now?: () => Date;
}

/** A command's result: what it prints on standard output, and its exit code. */
interface Outcome {
  readonly output: string;
  readonly exitCode: number;
}

function batchOption(raw: string | undefined): number {
  if (raw === undefined) return DEFAULT_ROTATION_BATCH;
  const batch = Number(raw);
  if (!/^\d+$/.test(raw) || batch < 1 || batch > 100_000) throw new UsageError('--batch must be an integer between 1 and 100000');
  return batch;
}

const ROLES = {
  current: 'current (CARD_DATA_KEY)',
  previous: 'previous (CARD_DATA_PREVIOUS_KEYS)',
  unknown: 'not configured: nothing here opens these',
} as const;

/** `keys status`: the sealed values per key id. Key ids only: they are hashes, never a key. */
async function keyStatus(store: Store, vault: CardVault): Promise<string> {
  const counts = await sealedValuesByKey(store, vault);
  const lines = ['key id            sealed values  key', ...counts.map((count) => `${count.keyId}  ${String(count.sealedValues).padStart(13)}  ${ROLES[count.role]}`)];
  const sum = (role: KeyCount['role']) => counts.filter((count) => count.role === role).reduce((total, count) => total + count.sealedValues, 0);
  const [previous, unknown] = [sum('previous'), sum('unknown')];
  if (previous > 0) lines.push(`${previous} sealed value(s) still under a previous key: \`npm run gateway -- keys rotate\` re-seals them with the current one.`);
  if (unknown > 0) lines.push(`${unknown} sealed value(s) under a key that is not configured: no gateway with these keys can open them.`);
  if (previous === 0 && unknown === 0) lines.push('Every sealed value is under the current key.');
  return lines.join('\n');
}

/** `keys rotate`: see vault/rotation.ts. */
async function rotateKeys(store: Store, vault: CardVault, batchSize: number, io: CliIO): Promise<Outcome> {
  const now = io.now ?? (() => new Date());
  io.progress(`Re-sealing card data with the current key ${vault.keyId}, ${batchSize} value(s) per transaction`);
  const result = await rotateSealedValues(store, vault, {
    batchSize,
    onBatch: ({ resealed, totalResealed }) => io.progress(`  re-sealed ${resealed} (${totalResealed} so far)`),
  });
  if (result.resealed > 0) await scheduleCompactionAfterRotation(store, now());
  const lines = [
    `Re-sealed ${result.resealed} sealed value(s) with key ${vault.keyId}; ${result.left} left under other keys.`,
    result.resealed > 0
      ? 'Scheduled the vault compaction: the next job run of a gateway on this store rewrites the table, so the old ciphertexts leave its data files.'
      : 'Nothing was re-sealed; no compaction scheduled.',
  ];
  if (result.unopenable.length > 0) {
    lines.push(
      `${result.unopenable.length} sealed value(s) no configured key opens (sealed with a key that is not configured, or altered) were left as they are:`,
      ...result.unopenable.map((id) => `  vault item ${id}`),
      'If a key that is not configured sealed them, add it to CARD_DATA_PREVIOUS_KEYS and run this again.',
    );
  }
  const counts = await sealedValuesByKey(store, vault);
  const underPrevious = counts.filter((count) => count.role === 'previous').reduce((total, count) => total + count.sealedValues, 0);
  if (vault.keyIds.length === 1) {
    lines.push('No previous key is configured (CARD_DATA_PREVIOUS_KEYS).');
  } else if (underPrevious === 0) {
    lines.push(
      'The previous key(s) seal nothing any more and can be dropped from CARD_DATA_PREVIOUS_KEYS once every instance has run with this ' +
        'CARD_DATA_KEY for 24 hours (until then, an Idempotency-Key used before the switch is checked with the key it was used under).',
    );
  } else {
    lines.push(`Do not drop the previous key(s) yet: ${underPrevious} sealed value(s) still need them (a gateway not yet restarted with this CARD_DATA_KEY may have sealed them; run this again).`);
  }
  lines.push('', await keyStatus(store, vault));
  return { output: lines.join('\n'), exitCode: result.unopenable.length > 0 ? 1 : 0 };
}

const WEBHOOK_OPTIONS: Readonly<Record<string, string>> = {
  url: '--url',
  types: '--types',
  fields: '--fields',
  wrapper: '--wrapper',
  secret: '--secret',
  entity: '--entity',
};

/** A refused webhook setting, naming the option it came from; a missing webhook or delivery as such. */
function webhookRefusal(error: WebhookConfigError): string {
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

function webhookIdArgument(positionals: readonly string[], command: string, what = 'webhook ID'): string {
  const id = positionals[0];
  if (!id || !RESOURCE_ID.test(id)) throw new UsageError(`webhook ${command} needs the ${what} (32 lowercase hexadecimal characters)`);
  return id;
}

interface WebhookOptionValues {
  readonly entity?: string[] | undefined;
  readonly url?: string | undefined;
  readonly types?: string | undefined;
  readonly fields?: string | undefined;
  readonly wrapper?: string | undefined;
  readonly secret?: string | undefined;
  readonly active?: string | undefined;
  readonly limit?: string | undefined;
}

/** `webhook ...`: see webhooks/service.ts. */
async function webhookCommand(
  action: string | undefined,
  values: WebhookOptionValues,
  positionals: readonly string[],
  services: WebhookServices,
  io: CliIO,
): Promise<string | Outcome> {
  switch (action) {
    case 'create': {
      const entityId = values.entity?.[0];
      if (!entityId || (values.entity?.length ?? 0) > 1) throw new UsageError('webhook create needs one --entity ID');
      if (!ENTITY_ID.test(entityId)) throw new UsageError('--entity must be 32 lowercase hexadecimal characters');
      if (values.url === undefined) throw new UsageError('webhook create needs --url URL');
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
      if (entityId !== undefined && !ENTITY_ID.test(entityId)) throw new UsageError('--entity must be 32 lowercase hexadecimal characters');
      const webhooks = await listWebhooks(services.store, entityId);
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
      const id = webhookIdArgument(positionals, 'update');
      if (values.active !== undefined && values.active !== 'true' && values.active !== 'false') throw new UsageError('--active must be true or false');
      const types = typesOption(values.types);
      const changes = {
        ...(values.url !== undefined ? { url: values.url } : {}),
        ...(types ? { types } : {}),
        ...(values.fields !== undefined ? { fields: values.fields } : {}),
        ...(values.wrapper !== undefined ? { wrapper: values.wrapper } : {}),
        ...(values.active !== undefined ? { active: values.active === 'true' } : {}),
      };
      if (Object.keys(changes).length === 0) throw new UsageError('webhook update needs at least one of --url, --types, --fields, --wrapper, --active');
      const changed = await changeWebhook(services, id, changes);
      return [...describeWebhook(changed.webhook), ...(changed.activation ? [`activation    ${describeActivation(changed.activation)}`] : [])].join('\n');
    }
    case 'delete': {
      const id = webhookIdArgument(positionals, 'delete');
      const removed = await removeWebhook(services, id);
      return `deleted webhook ${removed.id} (entity ${removed.entityId}, ${removed.url}), its deliveries and its secret`;
    }
    case 'test': {
      const id = webhookIdArgument(positionals, 'test');
      const tested = await sendActivation(services, id);
      return [...describeWebhook(tested.webhook), `activation    ${describeActivation(tested.activation)}`].join('\n');
    }
    case 'deliveries': {
      const id = webhookIdArgument(positionals, 'deliveries');
      const limit = values.limit === undefined ? DEFAULT_DELIVERY_LIMIT : Number(values.limit);
      if (!/^\d{1,7}$/.test(values.limit ?? '1') || limit < 1 || limit > MAX_DELIVERY_LIMIT) {
        throw new UsageError(`--limit must be an integer between 1 and ${MAX_DELIVERY_LIMIT}`);
      }
      if (!(await findWebhook(services.store, id))) throw new WebhookConfigError('webhook', `${id} does not exist`);
      const deliveries = await listDeliveries(services.store, id, limit);
      return deliveries.flatMap(describeDelivery).join('\n') || '(no deliveries)';
    }
    case 'resend': {
      const id = webhookIdArgument(positionals, 'resend', 'DELIVERY_ID');
      await resendDelivery(services, id);
      return `re-send of delivery ${id} scheduled: a running gateway sends it with its next deliveries`;
    }
    default:
      throw new UsageError(`unknown command: webhook ${action ?? ''}`.trim());
  }
}

const SMART_RETRY_OPTIONS: Readonly<Record<string, string>> = {
  fallbackAcquirer: '--fallback',
  codes: '--codes',
  standalone: '--standalone',
  cardOnFile: '--card-on-file',
  enabled: '--enabled',
};

/** Refused settings, each named by the option it came from (a code of --codes by its value). */
function smartRetryRefusal(error: SmartRetryConfigError): string {
  const lines = error.problems.map((problem) => {
    const option = SMART_RETRY_OPTIONS[problem.name.replace(/\[\d+\]$/, '')] ?? problem.name;
    const named = (problem.name.startsWith('codes[') || problem.name === 'fallbackAcquirer') && problem.value !== '';
    const value = named ? ` ${problem.value}` : '';
    return `smart retry refused: ${option}${value} ${problem.message}`;
  });
  return lines.join('\n');
}

function booleanOption(name: string, raw: string | undefined): boolean | undefined {
  if (raw === undefined) return undefined;
  if (raw !== 'true' && raw !== 'false') throw new UsageError(`--${name} must be true or false`);
  return raw === 'true';
}

function describeSmartRetry(entityId: string, settings: SmartRetrySettings | undefined, names: AcquirerNames): string {
  const reason = notInEffectBecause(settings, names);
  const yes = (value: boolean) => (value ? 'yes' : 'no');
  return [
    `entity        ${entityId}`,
    `smart retry   ${reason === undefined ? 'on' : `off: ${reason}`}`,
    ...(settings
      ? [
          `fallback      ${settings.fallbackAcquirer}`,
          `codes         ${settings.codes.join(',')}${settings.customCodes ? '' : ' (the default list)'}`,
          `standalone    ${yes(settings.standalone)}`,
          `card on file  ${yes(settings.cardOnFile)}`,
          `updated       ${settings.updatedAt.toISOString()}`,
        ]
      : []),
  ].join('\n');
}

/** `smart-retry ...`: see merchants/smartRetry.ts. */
async function smartRetryCommand(action: string | undefined, values: SmartRetryOptionValues, positionals: readonly string[], store: Store, names: AcquirerNames, io: CliIO): Promise<string> {
  if (action !== 'show' && action !== 'set' && action !== 'off') throw new UsageError(`unknown command: smart-retry ${action ?? ''}`.trim());
  const entityId = positionals[0];
  if (!entityId || !ENTITY_ID.test(entityId)) throw new UsageError(`smart-retry ${action} needs the ENTITY_ID (32 lowercase hexadecimal characters)`);
  switch (action) {
    case 'show': {
      const shown = await showSmartRetry(store, entityId);
      if (!shown.entityExists) throw new Error(`no entity ${entityId}`);
      return describeSmartRetry(entityId, shown.settings, names);
    }
    case 'set': {
      const codes: SmartRetryInput['codes'] =
        values.codes === undefined || values.codes === 'default' ? values.codes : values.codes.split(',').map((code) => code.trim());
      const input: SmartRetryInput = {
        ...(values.fallback !== undefined ? { fallbackAcquirer: values.fallback } : {}),
        ...(codes !== undefined ? { codes } : {}),
        ...optional('standalone', booleanOption('standalone', values.standalone)),
        ...optional('cardOnFile', booleanOption('card-on-file', values['card-on-file'])),
        ...optional('enabled', booleanOption('enabled', values.enabled)),
      };
      const saved = await saveSmartRetry(store, names, entityId, input, (io.now ?? (() => new Date()))()).catch((error: unknown) => {
        if (error instanceof SmartRetryConfigError && error.unknownEntity) throw new Error(`no entity ${entityId}: smart retry not changed`);
        throw error;
      });
      return describeSmartRetry(entityId, saved, names);
    }
    case 'off': {
      const removed = await removeSmartRetry(store, entityId);
      if (!removed.entityExists) throw new Error(`no entity ${entityId}`);
      return `${entityId}  smart retry off${removed.removed ? ' (its settings are removed)' : ' (it was not set up)'}`;
    }
  }
}

function optional<K extends string>(name: K, value: boolean | undefined): Partial<Record<K, boolean>> {
  return value === undefined ? {} : ({ [name]: value } as Record<K, boolean>);
}

interface SmartRetryOptionValues {
  readonly fallback?: string | undefined;
  readonly codes?: string | undefined;
  readonly standalone?: string | undefined;
  readonly 'card-on-file'?: string | undefined;
  readonly enabled?: string | undefined;
}

/** Refused throttling settings, each named as on the command line. */
function throttlingRefusal(error: ThrottlingConfigError): string {
  return error.problems
    .map((problem) => `throttling refused: ${problem.name.replace(/^limits\./, '')}${problem.value !== '' ? `=${problem.value}` : ''} ${problem.message}`)
    .join('\n');
}

function describeThrottling(entityId: string, limits: RequestLimits, settings: ThrottlingSettings | undefined): string {
  const defaults = defaultLimits(limits);
  const effective = effectiveLimits(defaults, settings);
  const own = settings?.limits ?? {};
  const rules = Object.entries(settings?.risk ?? {});
  return [
    `entity  ${entityId}`,
    ...LIMIT_NAMES.map((name) => `  ${name.padEnd(26)} ${String(effective[name]).padStart(10)}${effective[name] === 0 ? ' (no limit)' : ''}${name in own ? '  (own)' : '  (default)'}`),
    rules.length === 0
      ? 'risk rules  none'
      : `risk rules\n${rules.map(([rule, settingsOfRule]) => `  ${rule.padEnd(26)} ${Object.entries(settingsOfRule as object).map(([key, value]) => `${key}=${String(value)}`).join(' ')}`).join('\n')}`,
    ...(settings ? [`updated  ${settings.updatedAt.toISOString()}`] : []),
  ].join('\n');
}

/** `throttling ...`: see throttling/settings.ts. */
async function throttlingCommand(action: string | undefined, positionals: readonly string[], store: Store, limits: RequestLimits, io: CliIO): Promise<string> {
  if (action !== 'show' && action !== 'set' && action !== 'off') throw new UsageError(`unknown command: throttling ${action ?? ''}`.trim());
  const [entityId, ...assignments] = positionals;
  if (!entityId || !ENTITY_ID.test(entityId)) throw new UsageError(`throttling ${action} needs the ENTITY_ID (32 lowercase hexadecimal characters)`);
  switch (action) {
    case 'show': {
      const shown = await showThrottling(store, entityId);
      if (!shown.entityExists) throw new Error(`no entity ${entityId}`);
      return describeThrottling(entityId, limits, shown.settings);
    }
    case 'set': {
      if (assignments.length === 0) throw new UsageError('throttling set needs at least one NAME=VALUE');
      const shown = await showThrottling(store, entityId);
      if (!shown.entityExists) throw new Error(`no entity ${entityId}: throttling not changed`);
      const own: Record<string, unknown> = { ...(shown.settings?.limits ?? {}) };
      const risk: Record<string, Record<string, unknown>> = Object.fromEntries(
        Object.entries(shown.settings?.risk ?? {}).map(([rule, settings]) => [rule, { ...(settings as object) }]),
      );
      for (const assignment of assignments) {
        const match = /^([A-Za-z0-9.]+)=(.*)$/.exec(assignment);
        if (!match) throw new UsageError(`throttling set: "${assignment.slice(0, 64)}" is not NAME=VALUE`);
        const [, name, raw] = match as unknown as [string, string, string];
        const value = /^-?\d+(\.\d+)?$/.test(raw) ? Number(raw) : raw;
        const path = name.split('.');
        if (path[0] === 'risk' && path.length === 2 && raw === 'off') delete risk[path[1] as string];
        else if (path[0] === 'risk' && path.length === 3) risk[path[1] as string] = { ...(risk[path[1] as string] ?? {}), [path[2] as string]: value };
        else if (path.length === 1 && raw === 'default') delete own[name];
        else if (path.length === 1) own[name] = value;
        else throw new UsageError(`throttling set: ${name.slice(0, 64)} is neither a limit nor risk.RULE.SETTING`);
      }
      const saved = await saveThrottling(store, entityId, { limits: own, risk }, (io.now ?? (() => new Date()))());
      return describeThrottling(entityId, limits, saved);
    }
    case 'off': {
      const removed = await removeThrottling(store, entityId);
      if (!removed.entityExists) throw new Error(`no entity ${entityId}`);
      return `${entityId}  throttling back to the defaults, without risk rules${removed.removed ? '' : ' (it had no settings of its own)'}`;
    }
  }
}

/** What a command printed and how it ended. */
export interface CliResult {
  readonly exitCode: number;
  /** The command's result (progress lines went to `io.progress` before). */
  readonly stdout: string;
  readonly stderr: string;
}

/** Runs one operator command. The entry below runs it for `npm run gateway`; tests run it in-process. */
export async function runCli(args: readonly string[], io: CliIO): Promise<CliResult> {
  try {
    const outcome = await run([...args], io);
    return typeof outcome === 'string' ? { exitCode: 0, stdout: `${outcome}\n`, stderr: '' } : { exitCode: outcome.exitCode, stdout: `${outcome.output}\n`, stderr: '' };
  } catch (error) {
    if (error instanceof UsageError) return { exitCode: 1, stdout: '', stderr: `${error.message}\n\n${USAGE}` };
    if (error instanceof ConfigError) return { exitCode: 1, stdout: '', stderr: `Configuration error: ${error.message}\n` };
    if (error instanceof WebhookConfigError) return { exitCode: 1, stdout: '', stderr: `${webhookRefusal(error)}\n` };
    if (error instanceof SmartRetryConfigError) return { exitCode: 1, stdout: '', stderr: `${smartRetryRefusal(error)}\n` };
    if (error instanceof ThrottlingConfigError) return { exitCode: 1, stdout: '', stderr: `${throttlingRefusal(error)}\n` };
    return { exitCode: 1, stdout: '', stderr: `${error instanceof Error ? error.message : String(error)}\n` };
  }
}

async function run(args: string[], io: CliIO): Promise<string | Outcome> {
  const [resource, action, ...rest] = args;
  // Options of its own: parsed by the command group.
  if (resource === 'reconciliation') return await reconciliationCommand(args.slice(1), io, (message) => new UsageError(message));
  const { values, positionals } = parseArgs({
    args: rest,
    options: {
      name: { type: 'string' },
      id: { type: 'string' },
      entity: { type: 'string', multiple: true },
      label: { type: 'string' },
      'result-url-base': { type: 'string' },
      batch: { type: 'string' },
      url: { type: 'string' },
      types: { type: 'string' },
      fields: { type: 'string' },
      wrapper: { type: 'string' },
      secret: { type: 'string' },
      active: { type: 'string' },
      limit: { type: 'string' },
      fallback: { type: 'string' },
      codes: { type: 'string' },
      standalone: { type: 'string' },
      'card-on-file': { type: 'string' },
      enabled: { type: 'string' },
    },
    allowPositionals: true,
  });
  const command = `${resource} ${action}`;
  if (command === 'key generate' || command === 'keys generate') {
    return `${newCardDataKey()}\n(set it as CARD_DATA_KEY on every gateway instance sharing the database, and keep it apart from the data)`;
  }
  if (resource === 'keys' && command !== 'keys status' && command !== 'keys rotate') throw new UsageError(`unknown command: ${args.join(' ')}`);
  const batchSize = command === 'keys rotate' ? batchOption(values.batch) : DEFAULT_ROTATION_BATCH;
  const config = loadConfig(io.env);
  // The keys before the store: a wrong key setting stops the command before it touches anything.
  const keys = command.startsWith('keys ') || resource === 'webhook' ? loadCardDataKeys(config) : undefined;
  const store = await openStore(config);
  try {
    if (keys && resource === 'webhook') {
      const services: WebhookServices = {
        store,
        vault: createCardVault(keys.current, keys.previous),
        now: io.now ?? (() => new Date()),
        environment: config.environment,
        publicUrl: config.publicUrl,
        outbound: { allowPrivateAddresses: config.outboundAllowPrivate },
        timeoutMs: WEBHOOK_TIMEOUT_MS,
        // What the command does is its output; the activation's log line would only repeat it.
        logger: createLogger({ level: 'silent' }),
      };
      return await webhookCommand(action, values, positionals, services, io);
    }
    if (resource === 'credentials') return await credentialsCommand(action, values, positionals, store, (message) => new UsageError(message));
    if (resource === 'settlement') return await settlementCommand(action, values, positionals, store, config, io.now ?? (() => new Date()), (message) => new UsageError(message));
    const now = io.now ?? (() => new Date());
    if (resource === 'brands') return await brandsCommand(action, positionals, store, config.environment, now, (message) => new UsageError(message));
    if (resource === 'payments') return await paymentsCommand(action, positionals, store, config.environment, now, (message) => new UsageError(message));
    if (resource === 'throttling') return await throttlingCommand(action, positionals, store, config.limits, io);
    if (resource === 'smart-retry') {
      return await smartRetryCommand(action, values, positionals, store, { acquirers: config.acquirers, defaultAcquirer: config.defaultAcquirer }, io);
    }
    if (keys) {
      const vault = createCardVault(keys.current, keys.previous);
      if (command === 'keys status') return await keyStatus(store, vault);
      if (command === 'keys rotate') return await rotateKeys(store, vault, batchSize, io);
    }
    switch (command) {
      case 'entity create': {
        if (values.id !== undefined && !ENTITY_ID.test(values.id)) throw new UsageError('--id must be 32 lowercase hexadecimal characters');
        const base = resultUrlBaseOption(values['result-url-base']);
        const token = newAccessToken();
        const entity = await store.transaction(async (tx) => {
          const created = await createEntity(tx, values.name ?? 'Merchant', values.id);
          if (base) await setShopperResultUrlBase(tx, created.id, base);
          await grantToken(tx, token, `entity ${created.id}`, [created.id]);
          return created;
        });
        return `entityId      ${entity.id}\naccess token  ${token}\n(the token is shown once; only its hash is stored)`;
      }
      case 'entity update': {
        const entityId = positionals[0];
        if (!entityId || !ENTITY_ID.test(entityId)) throw new UsageError('entity update needs the entity ID');
        if (values['result-url-base'] === undefined) throw new UsageError('entity update needs --result-url-base URL (or none)');
        const base = values['result-url-base'] === 'none' ? null : resultUrlBaseOption(values['result-url-base']) ?? null;
        if (!(await setShopperResultUrlBase(store, entityId, base))) throw new UsageError(`no entity ${entityId}`);
        return `${entityId}  shopper result URL base ${base ?? '(none)'}`;
      }
      case 'entity list':
        return (
          (await listEntities(store))
            .map((entity) => `${entity.id}  ${entity.name}${entity.shopperResultUrlBase ? `  returns under ${entity.shopperResultUrlBase}` : ''}`)
            .join('\n') || '(no entities)'
        );
      case 'token create': {
        const entityIds = values.entity ?? [];
        if (entityIds.length === 0) throw new UsageError('token create needs at least one --entity ID');
        for (const id of entityIds) {
          if (!ENTITY_ID.test(id) || !(await entityExists(store, id))) throw new UsageError(`no entity ${id}`);
        }
        const token = newAccessToken();
        const tokenId = await grantToken(store, token, values.label ?? 'token', entityIds);
        return `token id      ${tokenId}\naccess token  ${token}\n(the token is shown once; only its hash is stored)`;
      }
      case 'token revoke': {
        const tokenId = positionals[0];
        if (!tokenId) throw new UsageError('token revoke needs the TOKEN_ID');
        return (await revokeToken(store, tokenId)) ? `revoked ${tokenId}` : `no active token ${tokenId}`;
      }
      default:
        throw new UsageError(`unknown command: ${args.join(' ') || '(none)'}`);
    }
  } finally {
    await store.close();
  }
}

// Run as a script (`npm run gateway -- ...`), not when a test imports runCli.
const entry = process.argv[1];
if (entry !== undefined && import.meta.url === pathToFileURL(resolve(entry)).href) {
  runCli(process.argv.slice(2), { env: process.env, progress: (line) => process.stdout.write(`${line}\n`) }).then(
    ({ exitCode, stdout, stderr }) => {
      process.stdout.write(stdout);
      process.stderr.write(stderr);
      process.exitCode = exitCode;
    },
    (error: unknown) => {
      process.stderr.write(`${error instanceof Error ? error.message : String(error)}\n`);
      process.exitCode = 1;
    },
  );
}
