import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { buildWidget } from '../../widget/build.ts';
import { openStore } from '../store/index.ts';

/**
 * Creating a PGlite database runs initdb inside WebAssembly, which takes seconds. The suite creates one
 * migrated database here, once, and every test copies its directory instead (see harness.ts).
 */
export default async function setup(): Promise<() => void> {
  // The widget's static files are part of what the gateway serves; tests run against a fresh build.
  await buildWidget();
  const template = mkdtempSync(join(tmpdir(), 'gateway-template-'));
  const store = await openStore({ dataDir: template, databaseUrl: undefined });
  await store.close();
  process.env.GATEWAY_TEST_PGLITE_TEMPLATE = template;
  return () => rmSync(template, { recursive: true, force: true });
}
