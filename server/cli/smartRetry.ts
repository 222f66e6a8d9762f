import { notInEffectBecause, type AcquirerNames, type SmartRetryInput, type SmartRetrySettings } from '../domain/smartRetryRules.ts';
import { removeSmartRetry, saveSmartRetry, showSmartRetry, SMART_RETRY_CACHE_MS, SmartRetryConfigError } from '../merchants/smartRetrySettings.ts';
import type { Store } from '../store/index.ts';
import { booleanOption, entityIdArgument, type CliIO, type Usage } from './command.ts';

/** `npm run gateway -- smart-retry ...`: an entity's second attempt at another acquirer. */

export const SMART_RETRY_USAGE = `  smart-retry show ENTITY_ID                 the entity's smart retry settings (off unless set)
  smart-retry set ENTITY_ID --fallback NAME [--codes CODE,CODE,...|default]
                  [--standalone true|false] [--card-on-file true|false] [--enabled true|false]
                                             retry a DB or PA the default acquirer rejects with one of
                                             the codes (or cannot reach) once at acquirer NAME (one of
                                             ACQUIRERS, not DEFAULT_ACQUIRER); replaces the settings:
                                             what is left out is on, with the default codes. Running
                                             gateways apply it within ${SMART_RETRY_CACHE_MS / 1000} s
  smart-retry off ENTITY_ID                  switch smart retry off (the settings go)
`;

const SMART_RETRY_OPTIONS: Readonly<Record<string, string>> = {
  fallbackAcquirer: '--fallback',
  codes: '--codes',
  standalone: '--standalone',
  cardOnFile: '--card-on-file',
  enabled: '--enabled',
};

/** Refused settings, each named by the option it came from (a code of --codes by its value). */
export function smartRetryRefusal(error: SmartRetryConfigError): string {
  const lines = error.problems.map((problem) => {
    const option = SMART_RETRY_OPTIONS[problem.name.replace(/\[\d+\]$/, '')] ?? problem.name;
    const named = (problem.name.startsWith('codes[') || problem.name === 'fallbackAcquirer') && problem.value !== '';
    const value = named ? ` ${problem.value}` : '';
    return `smart retry refused: ${option}${value} ${problem.message}`;
  });
  return lines.join('\n');
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

/** Runs `smart-retry <action>`: see merchants/smartRetrySettings.ts. */
export async function smartRetryCommand(
  action: string | undefined,
  values: SmartRetryOptionValues,
  positionals: readonly string[],
  store: Store,
  names: AcquirerNames,
  io: CliIO,
  usage: Usage,
): Promise<string> {
  if (action !== 'show' && action !== 'set' && action !== 'off') throw usage(`unknown command: smart-retry ${action ?? ''}`.trim());
  const entityId = entityIdArgument(positionals[0], `smart-retry ${action}`, usage);
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
        ...optional('standalone', booleanOption(values.standalone, '--standalone', usage)),
        ...optional('cardOnFile', booleanOption(values['card-on-file'], '--card-on-file', usage)),
        ...optional('enabled', booleanOption(values.enabled, '--enabled', usage)),
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

export interface SmartRetryOptionValues {
  readonly fallback?: string | undefined;
  readonly codes?: string | undefined;
  readonly standalone?: string | undefined;
  readonly 'card-on-file'?: string | undefined;
  readonly enabled?: string | undefined;
}
