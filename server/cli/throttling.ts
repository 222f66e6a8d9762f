import type { RequestLimits } from '../config.ts';
import type { Store } from '../store/index.ts';
import { defaultLimits, LIMIT_NAMES } from '../throttling/limits.ts';
import { effectiveLimits, removeThrottling, saveThrottling, showThrottling, THROTTLING_CACHE_MS, ThrottlingConfigError, type ThrottlingSettings } from '../throttling/settings.ts';
import { entityIdArgument, type CliIO, type Usage } from './command.ts';

/** `npm run gateway -- throttling ...`: an entity's request limits and risk velocity rules. */

export const THROTTLING_USAGE = `  throttling show ENTITY_ID                  the entity's request limits (its own and the defaults)
                                             and its risk velocity rules
  throttling set ENTITY_ID NAME=VALUE ...    change the entity's own limits and rules, keeping the
                                             others: a limit (${LIMIT_NAMES.join(', ')}) =N (0: no limit)
                                             or =default; a rule setting risk.RULE.SETTING=N, or
                                             risk.RULE=off. Running gateways apply it within ${THROTTLING_CACHE_MS / 1000} s
  throttling off ENTITY_ID                   back to the default limits, without risk rules
`;

/** Refused throttling settings, each named as on the command line. */
export function throttlingRefusal(error: ThrottlingConfigError): string {
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

/** Runs `throttling <action>`: see throttling/settings.ts. */
export async function throttlingCommand(
  action: string | undefined,
  positionals: readonly string[],
  store: Store,
  limits: RequestLimits,
  io: CliIO,
  usage: Usage,
): Promise<string> {
  if (action !== 'show' && action !== 'set' && action !== 'off') throw usage(`unknown command: throttling ${action ?? ''}`.trim());
  const [entityArgument, ...assignments] = positionals;
  const entityId = entityIdArgument(entityArgument, `throttling ${action}`, usage);
  switch (action) {
    case 'show': {
      const shown = await showThrottling(store, entityId);
      if (!shown.entityExists) throw new Error(`no entity ${entityId}`);
      return describeThrottling(entityId, limits, shown.settings);
    }
    case 'set': {
      if (assignments.length === 0) throw usage('throttling set needs at least one NAME=VALUE');
      const shown = await showThrottling(store, entityId);
      if (!shown.entityExists) throw new Error(`no entity ${entityId}: throttling not changed`);
      const own: Record<string, unknown> = { ...(shown.settings?.limits ?? {}) };
      const risk: Record<string, Record<string, unknown>> = Object.fromEntries(
        Object.entries(shown.settings?.risk ?? {}).map(([rule, settings]) => [rule, { ...(settings as object) }]),
      );
      for (const assignment of assignments) {
        const match = /^([A-Za-z0-9.]+)=(.*)$/.exec(assignment);
        if (!match) throw usage(`throttling set: "${assignment.slice(0, 64)}" is not NAME=VALUE`);
        const [, name, raw] = match as unknown as [string, string, string];
        const value = /^-?\d+(\.\d+)?$/.test(raw) ? Number(raw) : raw;
        const path = name.split('.');
        if (path[0] === 'risk' && path.length === 2 && raw === 'off') delete risk[path[1] as string];
        else if (path[0] === 'risk' && path.length === 3) risk[path[1] as string] = { ...(risk[path[1] as string] ?? {}), [path[2] as string]: value };
        else if (path.length === 1 && raw === 'default') delete own[name];
        else if (path.length === 1) own[name] = value;
        else throw usage(`throttling set: ${name.slice(0, 64)} is neither a limit nor risk.RULE.SETTING`);
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
