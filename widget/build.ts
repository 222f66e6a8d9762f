import { createHash } from 'node:crypto';
import { mkdirSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { build, type InlineConfig } from 'vite';

/**
 * Builds the widget's static files into dist/widget/: the widget bundle (js/static.min.js, Preact +
 * signals, English texts), its stylesheet (css/static.min.css), the hosted-field page and its script
 * (fields.html, js/fields.min.js), and for other languages the i18next engine (js/i18n.min.js) and one
 * file per language (locales/<code>.json).
 * Both scripts are classic IIFE scripts: merchant pages load them with a plain script tag.
 * manifest.json names the content version the gateway serves them under: /v1/static/<version>/...
 */

export const WIDGET_DIST = new URL('../dist/widget/', import.meta.url).pathname;
const ROOT = new URL('..', import.meta.url).pathname;

function bundle(entry: string, fileName: string, cssFileName?: string): InlineConfig {
  return {
    configFile: false,
    root: ROOT,
    logLevel: 'warn',
    oxc: { jsx: { runtime: 'automatic', importSource: 'preact' } },
    define: { 'process.env.NODE_ENV': '"production"' },
    build: {
      outDir: WIDGET_DIST,
      emptyOutDir: false,
      minify: true,
      target: 'es2019',
      sourcemap: false,
      cssCodeSplit: false,
      lib: {
        entry: join(ROOT, entry),
        formats: ['iife'],
        name: 'wpwlWidget',
        fileName: () => fileName,
        ...(cssFileName ? { cssFileName } : {}),
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

export async function buildWidget(): Promise<{ version: string; files: string[] }> {
  rmSync(WIDGET_DIST, { recursive: true, force: true });
  mkdirSync(WIDGET_DIST, { recursive: true });
  await build(bundle('widget/app/index.tsx', 'js/static.min.js', 'css/static.min'));
  await build(bundle('widget/fields/index.ts', 'js/fields.min.js', 'css/fields.min'));
  await build(bundle('widget/i18n/engine.ts', 'js/i18n.min.js'));
  writeFileSync(join(WIDGET_DIST, 'fields.html'), FIELDS_PAGE);
  // English is bundled; the other languages are fetched on demand from <version>/locales/<code>.json.
  mkdirSync(join(WIDGET_DIST, 'locales'), { recursive: true });
  for (const file of readdirSync(join(ROOT, 'locales')).filter((name) => name.endsWith('.json') && name !== 'en.json')) {
    writeFileSync(join(WIDGET_DIST, 'locales', file), JSON.stringify(JSON.parse(readFileSync(join(ROOT, 'locales', file), 'utf8'))));
  }
  const files = filesBelow(WIDGET_DIST)
    .map((path) => relative(WIDGET_DIST, path))
    .filter((file) => file !== 'manifest.json')
    .sort();
  const hash = createHash('sha256');
  for (const file of files) hash.update(file).update(readFileSync(join(WIDGET_DIST, file)));
  const version = hash.digest('hex').slice(0, 16);
  writeFileSync(join(WIDGET_DIST, 'manifest.json'), JSON.stringify({ version, files }, null, 2));
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
