import { simulatedAcquirers, type GatewayConfig } from '../config.ts';
import { ENTITY_ID } from '../domain/ids.ts';
import { formatSignedAmount } from '../reports/settlementMoney.ts';
import { findSettlementBatchesOfDay, type SettlementBatch } from '../reports/settlementRecords.ts';
import { isSettlementDay, runSettlement, settlementDateProblem, type SettledBatch } from '../reports/settlementRun.ts';
import {
  checkSettlementSettings,
  removeSettlementSettings,
  saveSettlementSettings,
  SettlementSettingsError,
  showSettlementSettings,
  type SettlementSettings,
} from '../reports/settlementSettings.ts';
import type { Store } from '../store/index.ts';
import { entityIdArgument, type Usage } from './command.ts';

/** `npm run gateway -- settlement ...`: the simulated acquirers' settlements (issue 21). */

export const SETTLEMENT_USAGE = `  settlement run DATE                        in test, run the simulated acquirers' settlement of DATE
                                             (yyyy-MM-dd) now: what was made up to its cut-off
                                             (SETTLEMENT_CUTOFF_UTC) and is not settled yet
  settlement list DATE [--entity ID]         the day's settlements (batches), every entity's or one's
  settlement show ENTITY_ID                  the entity's settlement currency and test records
  settlement set ENTITY_ID [currency=CODE] [unmatched=N] [duplicates=N]
                                             replace them: settle in CODE (where SETTLEMENT_FX_RATES
                                             quotes the pair), and add N records naming no payment and
                                             N debits listed again by reference to each batch (tests)
  settlement reset ENTITY_ID                 back to the defaults (each transaction's own currency)
`;

function describeSettlement(batch: SettlementBatch | SettledBatch): string {
  return `${batch.id}  entity ${batch.entityId}  ${batch.clearingInstitute}  ${batch.settlementCurrency} ${formatSignedAmount(batch.settlementAmountMinor)}  ${batch.transactionCount} records${batch.test ? '  (test)' : ''}`;
}

function describeSettings(entityId: string, settings: SettlementSettings): string {
  return `${entityId}  settles in ${settings.settlementCurrency ?? "each transaction's own currency"}  unmatched records ${settings.unmatchedRecords}  duplicate records ${settings.duplicateRecords}`;
}

const SETTING_NAMES: Readonly<Record<string, 'currency' | 'unmatchedRecords' | 'duplicateRecords'>> = {
  currency: 'currency',
  unmatched: 'unmatchedRecords',
  duplicates: 'duplicateRecords',
};

/** Runs `settlement <action>`. */
export async function settlementCommand(
  action: string | undefined,
  values: { readonly entity?: string[] | undefined },
  positionals: readonly string[],
  store: Store,
  config: Pick<GatewayConfig, 'environment' | 'acquirers' | 'connectors' | 'settlement'>,
  now: () => Date,
  usage: Usage,
): Promise<string> {
  switch (action) {
    case 'run': {
      const date = positionals[0] ?? '';
      const problem = settlementDateProblem(date, now());
      if (problem) throw usage(`settlement run: DATE ${problem}`);
      if (config.environment === 'live') {
        throw usage("settlement run: a live gateway has no simulated acquirer; its providers' reports are imported every 15 minutes (POST /admin/v1/settlements/runs imports a day's now)");
      }
      const result = await runSettlement({ store, acquirers: simulatedAcquirers(config), settlement: config.settlement, now }, date);
      const head = `settlement of ${date} (operations up to ${result.until.toISOString()}): ${result.batches.length} new batch(es)`;
      return [head, ...result.batches.map(describeSettlement)].join('\n');
    }
    case 'list': {
      const date = positionals[0] ?? '';
      if (!isSettlementDay(date)) throw usage('settlement list needs a DATE (yyyy-MM-dd)');
      const entityId = values.entity?.[0];
      if ((values.entity?.length ?? 0) > 1) throw usage('settlement list takes at most one --entity ID');
      if (entityId !== undefined && !ENTITY_ID.test(entityId)) throw usage('--entity must be 32 lowercase hexadecimal characters');
      return (await findSettlementBatchesOfDay(store, date, entityId)).map(describeSettlement).join('\n') || `(no settlements on ${date})`;
    }
    case 'show': {
      const entityId = entityIdArgument(positionals[0], 'settlement show', usage);
      const settings = await showSettlementSettings(store, entityId);
      if (!settings) throw usage(`no entity ${entityId}`);
      return describeSettings(entityId, settings);
    }
    case 'set': {
      const entityId = entityIdArgument(positionals[0], 'settlement set', usage);
      const input: Record<string, unknown> = {};
      for (const pair of positionals.slice(1)) {
        const [name = '', value = ''] = pair.split('=', 2);
        const field = SETTING_NAMES[name];
        if (!field || !pair.includes('=')) throw usage(`settlement set: "${pair.slice(0, 40)}" is not currency=CODE, unmatched=N or duplicates=N`);
        input[field] = field === 'currency' ? value : /^[0-9]{1,9}$/.test(value) ? Number(value) : value;
      }
      let settings: SettlementSettings;
      try {
        settings = checkSettlementSettings(input);
      } catch (error) {
        if (error instanceof SettlementSettingsError) throw usage(`settlement set: ${error.message}`);
        throw error;
      }
      if (!(await saveSettlementSettings(store, entityId, settings, now()))) throw usage(`no entity ${entityId}`);
      return describeSettings(entityId, settings);
    }
    case 'reset': {
      const entityId = entityIdArgument(positionals[0], 'settlement reset', usage);
      if (!(await removeSettlementSettings(store, entityId))) throw usage(`no entity ${entityId}`);
      return describeSettings(entityId, checkSettlementSettings({}));
    }
    default:
      throw usage(`unknown command: settlement ${action ?? ''}`.trim());
  }
}
