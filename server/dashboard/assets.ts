import { existsSync, readFileSync } from 'node:fs';
import { extname, join } from 'node:path';
import { gzipIfSmaller, type StaticFile } from '../widget/build.ts';
import { packagePath } from '../paths.ts';

/**
 * The dashboard app's built files (dist/dashboard, made by dashboard/build.ts), held in memory with their types and
 * gzipped once: the page names the entry's script and stylesheet from the build's manifest.json.
 */

export interface DashboardBuild {
  readonly version: string;
  /** What the page loads: names under assets/ (`main-<hash>.js`, `style-<hash>.css`). */
  readonly script: string;
  readonly stylesheets: readonly string[];
  /** Every file under assets/, by its name there. */
  readonly files: ReadonlyMap<string, StaticFile>;
}

export const DEFAULT_DASHBOARD_DIST = packagePath('dist/dashboard/').pathname;

const CONTENT_TYPES: Readonly<Record<string, string>> = {
  '.js': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
};

interface Manifest {
  readonly version: string;
  readonly entry: { readonly js: string; readonly css: readonly string[] };
  readonly files: readonly string[];
}

const ASSET = /^assets\/([^/]+)$/;

/** The build in `dir`, or undefined when there is none (the dashboard was not built). */
export function loadDashboardBuild(dir: string = DEFAULT_DASHBOARD_DIST): DashboardBuild | undefined {
  const manifestPath = join(dir, 'manifest.json');
  if (!existsSync(manifestPath)) return undefined;
  const manifest = JSON.parse(readFileSync(manifestPath, 'utf8')) as Manifest;
  const files = new Map<string, StaticFile>();
  for (const file of manifest.files) {
    const name = ASSET.exec(file)?.[1];
    const contentType = CONTENT_TYPES[extname(file)];
    if (!name || !contentType) continue;
    const bytes = new Uint8Array(readFileSync(join(dir, file)));
    const gzipped = gzipIfSmaller(bytes);
    files.set(name, { bytes, contentType, ...(gzipped ? { gzipped } : {}) });
  }
  const inAssets = (file: string) => ASSET.exec(file)?.[1] ?? file;
  return { version: manifest.version, script: inAssets(manifest.entry.js), stylesheets: manifest.entry.css.map(inAssets), files };
}
