import type { JobHandler } from '../jobs/registry.ts';

export const PRUNE_LIMIT_HITS_JOB = 'throttling.prune';
const HOUR_MS = 60 * 60_000;

/** Forgets request counters and risk counters whose window has ended (Redis keys expire by themselves). */
export function throttlingJobHandlers(): JobHandler[] {
  return [
    {
      kind: PRUNE_LIMIT_HITS_JOB,
      everyMs: HOUR_MS,
      maxAttempts: 3,
      retryDelayMs: () => 5 * 60_000,
      run: async (_job, context) => {
        const now = context.now().toISOString();
        const counters = await context.store.query('DELETE FROM throttle_counters WHERE expires_at <= $1::timestamptz', [now]);
        const risk = await context.store.query('DELETE FROM risk_counters WHERE expires_at <= $1::timestamptz', [now]);
        context.logger.info('ended throttling windows pruned', { counters: counters.rowCount, risk: risk.rowCount });
      },
    },
  ];
}
