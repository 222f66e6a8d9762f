import { ensureDashboardBuilt } from './dashboard/freshness.ts';
import { runGateway } from './run.ts';
import { ensureWidgetBuilt } from './widget/freshness.ts';

/**
 * `npm start` / `npm run start:ci` (`--in-memory`): the gateway run from its sources with tsx, the widget and the
 * dashboard rebuilt first when their sources changed. The installed package's command is bin.ts, compiled.
 */
runGateway({
  inMemory: process.argv.includes('--in-memory'),
  cli: 'npm run gateway --',
  prepare: async (say) => {
    await ensureWidgetBuilt(say);
    await ensureDashboardBuilt(say);
  },
});
