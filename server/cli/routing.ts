import { formatAmount } from '../domain/money.ts';
import type { RoutingRule } from '../domain/routingRules.ts';
import { removeRoutingRules, ROUTING_CACHE_MS, RoutingRulesRefusedError, saveRoutingRules, showRoutingRules, type RoutingSettings } from '../merchants/routingRules.ts';
import type { Store } from '../store/index.ts';
import { entityIdArgument, optionFile, type CommandFiles, type Usage } from './command.ts';

/** `npm run gateway -- routing ...`: which acquirer an entity's new payments go to (issue 33). */

export const ROUTING_USAGE = `  routing show ENTITY_ID                     the entity's routing rules in the order they are tried, and
                                             the default acquirer a payment no rule matches goes to
  routing set ENTITY_ID --rules-file FILE    replace the rules with those of FILE (- for standard
                                             input), a JSON array of {"acquirer", "brands"?,
                                             "currencies"?, "minAmount"?, "maxAmount"?}: the first rule
                                             whose conditions all hold routes a payment. Running
                                             gateways apply it within ${ROUTING_CACHE_MS / 1000} s
  routing remove ENTITY_ID                   drop the rules: every payment goes to DEFAULT_ACQUIRER
`;

function describeRule(rule: RoutingRule, index: number): string {
  const conditions = [
    ...(rule.brands ? [`brand ${rule.brands.join(' or ')}`] : []),
    ...(rule.currencies ? [`currency ${rule.currencies.join(' or ')}`] : []),
    ...(rule.minAmountMinor !== undefined ? [`amount from ${formatAmount(rule.minAmountMinor)}`] : []),
    ...(rule.maxAmountMinor !== undefined ? [`amount up to ${formatAmount(rule.maxAmountMinor)}`] : []),
  ];
  return `${String(index + 1).padStart(3)}  ${rule.acquirer}  ${conditions.length > 0 ? `when ${conditions.join(', ')}` : 'every payment'}`;
}

function describeRouting(entityId: string, settings: RoutingSettings | undefined, defaultAcquirer: string): string {
  const rules = settings?.rules ?? [];
  const head = settings ? `${entityId}  ${rules.length} routing rule(s), set ${settings.updatedAt.toISOString()}` : `${entityId}  no routing rules`;
  return [head, ...rules.map(describeRule), `otherwise  ${defaultAcquirer} (DEFAULT_ACQUIRER)`].join('\n');
}

/** The rules file's JSON (or standard input's); what is wrong with it as one line. */
function rulesFrom(path: string | undefined, files: CommandFiles, usage: Usage): unknown {
  if (path === undefined) throw usage('routing set needs --rules-file FILE (a JSON array of rules; - for standard input)');
  const text = optionFile(files, path, '--rules-file');
  try {
    return JSON.parse(text);
  } catch (error) {
    throw new Error(`routing refused: --rules-file ${path} is not JSON (${error instanceof SyntaxError ? error.message : 'unreadable'})`);
  }
}

/** Runs `routing <action>`: see merchants/routingRules.ts. */
export async function routingCommand(
  action: string | undefined,
  positionals: readonly string[],
  rulesFile: string | undefined,
  context: { readonly store: Store; readonly acquirers: readonly string[]; readonly defaultAcquirer: string; readonly now: () => Date; readonly files: CommandFiles },
  usage: Usage,
): Promise<string> {
  if (action !== 'show' && action !== 'set' && action !== 'remove') throw usage(`unknown command: routing ${action ?? ''}`.trim());
  const entityId = entityIdArgument(positionals[0], `routing ${action}`, usage);
  const { store, defaultAcquirer } = context;
  switch (action) {
    case 'show': {
      const shown = await showRoutingRules(store, entityId);
      if (!shown.entityExists) throw new Error(`no entity ${entityId}`);
      return describeRouting(entityId, shown.settings, defaultAcquirer);
    }
    case 'set': {
      const rules = rulesFrom(rulesFile, context.files, usage);
      try {
        return describeRouting(entityId, await saveRoutingRules(store, context.acquirers, entityId, rules, context.now()), defaultAcquirer);
      } catch (error) {
        if (!(error instanceof RoutingRulesRefusedError)) throw error;
        if (error.unknownEntity) throw new Error(`no entity ${entityId}: routing not changed`);
        throw new Error(`routing refused: ${error.problems.map((problem) => `${problem.name} ${problem.message}`).join('; ')}`);
      }
    }
    case 'remove': {
      const removed = await removeRoutingRules(store, entityId);
      if (!removed.entityExists) throw new Error(`no entity ${entityId}`);
      return `${entityId}  ${removed.removed ? 'routing rules removed' : 'had no routing rules'}: every payment goes to ${defaultAcquirer} (DEFAULT_ACQUIRER)`;
    }
  }
}
