import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { widgetSourcesDigest } from '../../widget/sources.ts';
import { DEFAULT_WIDGET_DIST } from './build.ts';

/**
 * The widget is built ahead (`npm run build`, which `npm install` runs), never at every start: a start only checks that
 * the build in dist/widget was made from the sources beside it (widget/sources.ts) and builds again, saying so, when
 * it was not (sources edited in a checkout) or there is none. Vite, a development dependency, is loaded only then.
 */

/** Why the build in `dir` cannot be served as it is, or undefined when it is current. */
export function staleWidgetBuild(dir: string = DEFAULT_WIDGET_DIST, sources: () => string = widgetSourcesDigest): string | undefined {
  const manifestPath = join(dir, 'manifest.json');
  if (!existsSync(manifestPath)) return 'the widget is not built';
  const manifest = JSON.parse(readFileSync(manifestPath, 'utf8')) as { sources?: unknown };
  return manifest.sources === sources() ? undefined : 'the widget sources changed since it was built';
}

/** Builds the widget when its build is missing or stale, telling `say` what it does. */
export async function ensureWidgetBuilt(say: (line: string) => void): Promise<void> {
  const stale = staleWidgetBuild();
  if (stale === undefined) return;
  say(`${stale}: building it now (npm run build does it ahead) ...`);
  const started = performance.now();
  const { buildWidget } = await import('../../widget/build.ts');
  const { version } = await buildWidget();
  say(`widget ${version} built in ${((performance.now() - started) / 1000).toFixed(1)} s`);
}
