import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { dashboardSourcesDigest } from '../../dashboard/sources.ts';
import { DEFAULT_DASHBOARD_DIST } from './assets.ts';

/**
 * The dashboard app is built ahead (`npm run build`), like the widget (server/widget/freshness.ts): a start only
 * checks that dist/dashboard was made from the sources beside it (dashboard/sources.ts) and builds again, saying so,
 * when it was not or there is none. Vite, a development dependency, is loaded only then.
 */

/** Why the build in `dir` cannot be served as it is, or undefined when it is current. */
export function staleDashboardBuild(dir: string = DEFAULT_DASHBOARD_DIST, sources: () => string = dashboardSourcesDigest): string | undefined {
  const manifestPath = join(dir, 'manifest.json');
  if (!existsSync(manifestPath)) return 'the dashboard is not built';
  const manifest = JSON.parse(readFileSync(manifestPath, 'utf8')) as { sources?: unknown };
  return manifest.sources === sources() ? undefined : 'the dashboard sources changed since it was built';
}

/** Builds the dashboard when its build is missing or stale, telling `say` what it does. */
export async function ensureDashboardBuilt(say: (line: string) => void): Promise<void> {
  const stale = staleDashboardBuild();
  if (stale === undefined) return;
  say(`${stale}: building it now (npm run build does it ahead) ...`);
  const started = performance.now();
  const { buildDashboard } = await import('../../dashboard/build.ts');
  const { version } = await buildDashboard();
  say(`dashboard ${version} built in ${((performance.now() - started) / 1000).toFixed(1)} s`);
}
