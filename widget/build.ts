import { createHash } from 'node:crypto';
import { copyFileSync, mkdirSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { build, type InlineConfig } from 'vite';
import { localeGroups } from './localeGroups.ts';
import { writeBrandLogos } from './logos.ts';
import { widgetSourcesDigest } from './sources.ts';

/**
 * Builds the widget's static files into dist/widget/: the widget bundle (js/static.min.js, an ES module with
 * Preact and its hooks, the method registry, the form shell and the English texts; and its chunks, loaded on
 * demand: one per method family, the submit path, the 3-D Secure frame), its stylesheet (css/static.min.css),
 * the hosted-field page and its script (fields.html, js/fields.min.js), the brand logos (img/brands/, logos.ts),
 * for other languages the i18next engine (js/i18n.min.js) and one file per language (locales/<code>.json), and the
 * merchants' TypeScript declarations (types/wpwl.d.ts).
 * The hosted-field script and the i18next engine are classic IIFE scripts.
 * manifest.json names the content version the gateway serves them under: /v1/static/<version>/...
 */

export const WIDGET_DIST = new URL('../dist/widget/', import.meta.url).pathname;
/** The merchants' declarations, in the repository; built as `types/wpwl.d.ts` (`/v1/static/<version>/types/wpwl.d.ts`). */
export const DECLARATIONS = 'widget/types/wpwl.d.ts';
const ROOT = new URL('..', import.meta.url).pathname;

function bundle(entry: string, fileName: string, cssFileName?: string, format: 'iife' | 'es' = 'iife'): InlineConfig {
  return {
    configFile: false,
    root: ROOT,
    logLevel: 'warn',
    // Classic JSX (h calls) in the widget bundle: Preact's createElement is there anyway, jsx-runtime is not.
    oxc: format === 'es' ? { jsx: { runtime: 'classic', pragma: 'h', pragmaFrag: 'Fragment' }, jsxInject: `import { h, Fragment } from 'preact'` } : {},
    define: { 'process.env.NODE_ENV': '"production"' },
    plugins: [localeGroups()],
    build: {
      outDir: WIDGET_DIST,
      emptyOutDir: false,
      minify: true,
      // ES modules (the widget bundle and its chunks) need dynamic import() and import.meta: ES2020.
      target: format === 'es' ? 'es2020' : 'es2019',
      sourcemap: false,
      cssCodeSplit: false,
      lib: {
        entry: join(ROOT, entry),
        formats: [format],
        name: 'wpwlWidget',
        fileName: () => fileName,
        ...(cssFileName ? { cssFileName } : {}),
      },
      rollupOptions: {
        // The entry's exports (payment/common.ts: what the chunks share) keep those modules in it: a page loads one
        // entry file, then one file per family it shows, never a waterfall of small shared chunks.
        preserveEntrySignatures: 'allow-extension',
        // Lib mode keeps whitespace in ES output; these files are only ever run, never bundled again.
        output: {
          chunkFileNames: 'js/[name]-[hash].min.js',
          minify: true,
          // Few, whole chunks (each file is gzipped on its own): the entry with what every page needs, then one chunk
          // per family. The card group holds the hosted-field code and the card-brand table (shared/cards.ts), which the
          // stored cards' chunk imports from it.
          // The `entry` group pins the entry's whole static import closure (`$initial`: Preact, its hooks, the signals, the
          // form shell...) into static.min.js: the group's chunk holds the entry module, so rolldown folds it into the
          // entry chunk. Without it, those modules reach the entry only through the chunk optimizer's merges, whose cycle
          // checks are order-dependent: a further chunk that loads Preact (every module imports it, through jsxInject) but
          // not the rest of the shell left Preact in a shared js/preact-*.min.js chunk, +~500 bytes on every page.
          ...(format === 'es'
            ? {
                codeSplitting: {
                  includeDependenciesRecursively: false,
                  groups: [
                    { name: 'entry', tags: ['$initial'], priority: 2 },
                    { name: 'card', test: /widget[\\/](app[\\/](card[\\/]|hostedField|brands)|shared[\\/](cards|luhn)\.ts)/, priority: 1 },
                  ],
                },
              }
            : {}),
        },
      },
    },
  };
}

/** The hosted-field page: no inline script or style, so its own strict CSP needs no exceptions. */
const FIELDS_PAGE =
  '<!doctype html><html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width">' +
  '<title>Card field</title><link rel="stylesheet" href="css/fields.min.css"><script src="js/fields.min.js" defer></script>' +
  '</head><body></body></html>\n';

function filesBelow(dir: string): string[] {
  return readdirSync(dir).flatMap((entry) => {
    const path = join(dir, entry);
    return statSync(path).isDirectory() ? filesBelow(path) : [path];
  });
}

/**
 * Vite builds for production only when NODE_ENV is unset or `production`: under Vitest (NODE_ENV=test, the suite's
 * globalSetup builds the widget) it would keep the `@__PURE__` annotation comments in the minified files, about 200 bytes
 * gzip more per file than `npm run build`. The build is the same whoever runs it.
 */
async function buildForProduction(config: InlineConfig): Promise<void> {
  const before = process.env.NODE_ENV;
  process.env.NODE_ENV = 'production';
  try {
    await build(config);
  } finally {
    if (before === undefined) delete process.env.NODE_ENV;
    else process.env.NODE_ENV = before;
  }
}

/** The locale groups of the widget's features loaded on demand, each served as its own file per language. */
export const WIDGET_FEATURE_GROUPS = ['billing', 'wallet', 'clickToPay', 'summary'] as const;

export async function buildWidget(): Promise<{ version: string; files: string[] }> {
  rmSync(WIDGET_DIST, { recursive: true, force: true });
  mkdirSync(WIDGET_DIST, { recursive: true });
  await buildForProduction(bundle('widget/app/index.tsx', 'js/static.min.js', 'css/static.min', 'es'));
  await buildForProduction(bundle('widget/fields/index.ts', 'js/fields.min.js', 'css/fields.min'));
  // The simulated wallet sheet's script and stylesheet (the gateway renders its page in test: server/wallets/).
  await buildForProduction(bundle('widget/walletSheet/index.ts', 'js/walletSheet.min.js', 'css/walletSheet.min'));
  await buildForProduction(bundle('widget/i18n/engine.ts', 'js/i18n.min.js'));
  writeFileSync(join(WIDGET_DIST, 'fields.html'), FIELDS_PAGE);
  writeBrandLogos(WIDGET_DIST);
  // English is bundled; the other languages are fetched on demand from <version>/locales/<code>.json, with the groups
  // the forms read (the gateway's own pages read the others from locales/ on the server). A feature loaded on demand
  // (extras/texts.ts) fetches its own group, <version>/locales/<group>/<code>.json (its chunk bundles the English, also
  // the fallback of a missing text): a language file does not grow with features a page does not use.
  mkdirSync(join(WIDGET_DIST, 'locales'), { recursive: true });
  for (const file of readdirSync(join(ROOT, 'locales')).filter((name) => name.endsWith('.json'))) {
    const groups = JSON.parse(readFileSync(join(ROOT, 'locales', file), 'utf8')) as Record<string, unknown>;
    if (file !== 'en.json') writeFileSync(join(WIDGET_DIST, 'locales', file), JSON.stringify({ labels: groups.labels, errorMessages: groups.errorMessages }));
    for (const group of WIDGET_FEATURE_GROUPS) {
      if (file === 'en.json' || groups[group] === undefined) continue;
      mkdirSync(join(WIDGET_DIST, 'locales', group), { recursive: true });
      writeFileSync(join(WIDGET_DIST, 'locales', group, file), JSON.stringify(groups[group]));
    }
  }
  // The merchants' TypeScript declarations (types/wpwl.d.ts: wpwlOptions, its callbacks, wpwl), served beside the
  // widget they describe; no runtime code imports them.
  mkdirSync(join(WIDGET_DIST, 'types'), { recursive: true });
  copyFileSync(join(ROOT, DECLARATIONS), join(WIDGET_DIST, DECLARATIONS.slice('widget/'.length)));
  const files = filesBelow(WIDGET_DIST)
    .map((path) => relative(WIDGET_DIST, path))
    .filter((file) => file !== 'manifest.json')
    .sort();
  const hash = createHash('sha256');
  for (const file of files) hash.update(file).update(readFileSync(join(WIDGET_DIST, file)));
  const version = hash.digest('hex').slice(0, 16);
  // What it was built from: a start that finds other sources builds again (server/widget/freshness.ts).
  writeFileSync(join(WIDGET_DIST, 'manifest.json'), JSON.stringify({ version, sources: widgetSourcesDigest(ROOT), files }, null, 2));
  return { version, files };
}

if (process.argv[1] && import.meta.url.endsWith(process.argv[1].split('/').pop() ?? '')) {
  buildWidget().then(
    ({ version, files }) => process.stdout.write(`widget ${version}: ${files.join(', ')}\n`),
    (error: unknown) => {
      process.stderr.write(`widget build failed: ${error instanceof Error ? error.message : String(error)}\n`);
      process.exitCode = 1;
    },
  );
}
