import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { buildDashboard } from '../../dashboard/build.ts';
import { buildWidget } from '../../widget/build.ts';
import { compileServer } from '../compile.ts';
import { openStore } from '../store/index.ts';
import { buildStoreImage, hasStoreImage } from '../store/image.ts';
import { staleDashboardBuild } from '../dashboard/freshness.ts';
import { staleWidgetBuild } from '../widget/freshness.ts';

/**
 * Creating a PGlite database runs initdb inside WebAssembly, which takes seconds. The suite creates one
 * migrated database here, once, and every test copies its directory instead (see harness.ts).
 */
export default async function setup(): Promise<() => void> {
  // The widget's static files are part of what the gateway serves; tests run against a build of these sources (npm
  // ci's `npm run build` made one; built again only when the sources changed since).
  if (staleWidgetBuild() !== undefined) await buildWidget();
  // The back office's app likewise (dashboard/build.ts): the gateway serves it at /dashboard.
  if (staleDashboardBuild() !== undefined) await buildDashboard();
  // The compiled gateway (dist/server, dist/ci: the installed package's command and helpers), once for every file that
  // runs it — the command line's tests, the fixtures, the package — never while one of them reads it.
  await compileServer();
  // The in-memory start's database image, for the tests of that start (npm run build makes it too).
  if (!(await hasStoreImage())) await buildStoreImage();
  const template = mkdtempSync(join(tmpdir(), 'gateway-template-'));
  const store = await openStore({ dataDir: template, databaseUrl: undefined });
  await store.close();
  process.env.GATEWAY_TEST_PGLITE_TEMPLATE = template;
  return () => rmSync(template, { recursive: true, force: true });
}
