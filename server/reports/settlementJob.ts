import type { JobHandler } from '../jobs/registry.ts';
import { runSettlement, settlementDaysDue, type SettlementRunDeps } from './settlementRun.ts';

export const SETTLEMENT_JOB = 'settlement.daily';
/** How often the job looks for a day whose cut-off has passed: a day is settled at most this long after its cut-off. */
export const SETTLEMENT_CHECK_EVERY_MS = 15 * 60_000;
/**
 * Days looked back for a run that did not happen (no gateway ran at the cut-off): each is run, oldest first. Older
 * days are not run on their own; their operations go with the first day that runs (settlementRun.ts).
 */
export const SETTLEMENT_CATCH_UP_DAYS = 3;

/**
 * The daily settlement (test environment: the simulated acquirers settle what they processed): every 15 minutes, the
 * days whose cut-off has passed and that have not run yet are run. One run per interval whichever instances schedule
 * it (the recurring job's unique key); a run taken over after a crash, or a day run twice, settles nothing twice
 * (settlementRun.ts).
 */
export function settlementJobHandlers(deps: Omit<SettlementRunDeps, 'store' | 'now'>): JobHandler[] {
  return [
    {
      kind: SETTLEMENT_JOB,
      everyMs: SETTLEMENT_CHECK_EVERY_MS,
      maxAttempts: 3,
      retryDelayMs: () => 60_000,
      run: async (_job, context) => {
        const runDeps = { ...deps, store: context.store, now: context.now };
        for (const date of await settlementDaysDue(context.store, context.now(), deps.settlement.cutoffMinutesUtc, SETTLEMENT_CATCH_UP_DAYS)) {
          const result = await runSettlement(runDeps, date);
          context.logger.info('settlement run', { date, batches: result.batches.length, records: result.batches.reduce((sum, batch) => sum + batch.transactionCount, 0) });
        }
      },
    },
  ];
}
