import { findEntityName } from '../merchants/repository.ts';
import { integrationReport, reportText } from '../integration/report.ts';
import type { Store } from '../store/index.ts';
import { entityIdArgument, type Usage } from './command.ts';

/** `integration-report ENTITY_ID`: the merchant's integration report (issue 36 point 7), as text or JSON. */

export const INTEGRATION_REPORT_USAGE = `  integration-report ENTITY_ID [--format text|json]
                                             what the entity's integration leans on that a live provider
                                             may refuse or has retired, what it never tested, its failing
                                             webhooks (the last 30 days)
`;

export async function integrationReportCommand(positionals: readonly string[], format: string | undefined, store: Store, now: Date, usage: Usage): Promise<string> {
  const entityId = entityIdArgument(positionals[0], 'integration-report', usage);
  if (positionals.length > 1) throw usage(`integration-report takes one ENTITY_ID, not ${positionals.join(' ')}`);
  if (format !== undefined && format !== 'text' && format !== 'json') throw usage('--format is text or json');
  if ((await findEntityName(store, entityId)) === undefined) throw new Error(`no entity ${entityId}`);
  const report = await integrationReport(store, entityId, now);
  return format === 'json' ? JSON.stringify(report, null, 2) : reportText(report).trimEnd();
}
