import { createHash } from 'node:crypto';
import { mkdirSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { build, type InlineConfig } from 'vite';
import { dashboardSourcesDigest } from './sources.ts';

/**
 * Builds the back office (dashboard/app/main.tsx) into dist/dashboard/: its script and stylesheet under assets/,
 * named by content hash (the gateway serves them as immutable, server/dashboard/pages.ts), and manifest.json naming
 * the entry's script and stylesheet (the page links them), every file, and the digest of the sources (sources.ts).
 * Its own entry and output: the widget's build (widget/build.ts) and its size budgets are not touched.
 */

export const DASHBOARD_DIST = new URL('../dist/dashboard/', import.meta.url).pathname;
const ROOT = new URL('..', import.meta.url).pathname;

export interface DashboardManifest {
  /** The content hash of the files. */
  readonly version: string;
  /** What the page loads, relative to dist/dashboard/ (`assets/main-<hash>.js`). */
  readonly entry: { readonly js: string; readonly css: readonly string[] };
  readonly files: readonly string[];
  readonly sources: string;
}

const config: InlineConfig = {
  configFile: false,
  root: ROOT,
  base: '/dashboard/',
  publicDir: false,
  logLevel: 'warn',
  oxc: { jsx: { runtime: 'automatic', importSource: 'preact' } },
  define: { 'process.env.NODE_ENV': '"production"' },
  build: {
    outDir: DASHBOARD_DIST,
    emptyOutDir: false,
    target: 'es2022',
    minify: true,
    sourcemap: false,
    // One stylesheet, linked by the page (no style is injected by script: the CSP allows none).
    cssCodeSplit: false,
    // No preload helper: the page's one script needs none, and the helper would add inline-built links.
    modulePreload: false,
    copyPublicDir: false,
    reportCompressedSize: false,
    rollupOptions: {
      input: join(ROOT, 'dashboard/app/main.tsx'),
      output: {
        entryFileNames: 'assets/[name]-[hash].js',
        chunkFileNames: 'assets/[name]-[hash].js',
        assetFileNames: 'assets/[name]-[hash][extname]',
      },
    },
  },
};

function filesBelow(dir: string): string[] {
  return readdirSync(dir).flatMap((entry) => {
    const path = join(dir, entry);
    return statSync(path).isDirectory() ? filesBelow(path) : [path];
  });
}

/** Builds for production whoever runs it (Vitest sets NODE_ENV=test, which Vite would build differently for). */
async function buildForProduction(inline: InlineConfig): Promise<void> {
  const before = process.env.NODE_ENV;
  process.env.NODE_ENV = 'production';
  try {
    await build(inline);
  } finally {
    if (before === undefined) delete process.env.NODE_ENV;
    else process.env.NODE_ENV = before;
  }
}

export async function buildDashboard(): Promise<DashboardManifest> {
  rmSync(DASHBOARD_DIST, { recursive: true, force: true });
  mkdirSync(DASHBOARD_DIST, { recursive: true });
  await buildForProduction(config);
  const files = filesBelow(DASHBOARD_DIST)
    .map((path) => relative(DASHBOARD_DIST, path))
    .filter((file) => file !== 'manifest.json')
    .sort();
  const scripts = files.filter((file) => /^assets\/main-[^/]+\.js$/.test(file));
  if (scripts.length !== 1) throw new Error(`expected one entry script assets/main-*.js, found ${scripts.join(', ') || 'none'}`);
  const css = files.filter((file) => file.endsWith('.css'));
  const hash = createHash('sha256');
  for (const file of files) hash.update(file).update(readFileSync(join(DASHBOARD_DIST, file)));
  const manifest: DashboardManifest = {
    version: hash.digest('hex').slice(0, 16),
    entry: { js: scripts[0] as string, css },
    files,
    sources: dashboardSourcesDigest(ROOT),
  };
  writeFileSync(join(DASHBOARD_DIST, 'manifest.json'), JSON.stringify(manifest, null, 2));
  return manifest;
}

if (process.argv[1] && import.meta.url.endsWith(process.argv[1].split('/').pop() ?? '')) {
  buildDashboard().then(
    ({ version, files }) => process.stdout.write(`dashboard ${version}: ${files.join(', ')}\n`),
    (error: unknown) => {
      process.stderr.write(`dashboard build failed: ${error instanceof Error ? error.message : String(error)}\n`);
      process.exitCode = 1;
    },
  );
}
