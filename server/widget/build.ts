import { existsSync, readFileSync } from 'node:fs';
import { extname, join } from 'node:path';
import { gzipSync } from 'node:zlib';
import { packagePath } from '../paths.ts';

/** The built widget files (dist/widget, made by widget/build.ts), held in memory with their headers and gzipped. */

export interface StaticFile {
  readonly bytes: Uint8Array<ArrayBuffer>;
  readonly contentType: string;
  /**
   * The same bytes gzipped (level 9, once, when the build is loaded), for browsers that accept gzip; undefined for a
   * type that does not compress or when gzip would not be smaller.
   */
  readonly gzipped?: Uint8Array<ArrayBuffer>;
}

export interface WidgetBuild {
  readonly version: string;
  readonly files: ReadonlyMap<string, StaticFile>;
}

export const DEFAULT_WIDGET_DIST = packagePath('dist/widget/').pathname;

/** Text types, which compress. */
const COMPRESSIBLE = new Set(['.js', '.css', '.html', '.json', '.svg', '.ts']);

/** `bytes` gzipped at the highest level, when that is smaller (what the size budgets of widget/sizes.ts count). */
export function gzipIfSmaller(bytes: Uint8Array): Uint8Array<ArrayBuffer> | undefined {
  const gzipped = new Uint8Array(gzipSync(bytes, { level: 9 }));
  return gzipped.length < bytes.length ? gzipped : undefined;
}

/**
 * Whether an Accept-Encoding header accepts gzip (`gzip` or `*`, with a q-value above 0). Every browser sends
 * `gzip` for scripts, stylesheets and frames.
 */
export function acceptsGzip(header: string | undefined): boolean {
  if (!header) return false;
  let gzip: number | undefined;
  let any: number | undefined;
  for (const part of header.split(',')) {
    const [coding = '', ...parameters] = part.trim().toLowerCase().split(';');
    const qParameter = parameters.map((parameter) => parameter.trim()).find((parameter) => parameter.startsWith('q='));
    const q = qParameter === undefined ? 1 : Number(qParameter.slice(2));
    const weight = Number.isFinite(q) ? q : 0;
    if (coding.trim() === 'gzip' || coding.trim() === 'x-gzip') gzip = weight;
    else if (coding.trim() === '*') any = weight;
  }
  return (gzip ?? any ?? 0) > 0;
}

const CONTENT_TYPES: Record<string, string> = {
  '.js': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.html': 'text/html; charset=utf-8',
  '.json': 'application/json',
  '.svg': 'image/svg+xml',
  // types/wpwl.d.ts, the merchants' TypeScript declarations: text a browser shows and a developer saves.
  '.ts': 'text/plain; charset=utf-8',
};

/** The build in `dir`, or undefined when there is none (the widget was not built). */
export function loadWidgetBuild(dir: string = DEFAULT_WIDGET_DIST): WidgetBuild | undefined {
  const manifestPath = join(dir, 'manifest.json');
  if (!existsSync(manifestPath)) return undefined;
  const manifest = JSON.parse(readFileSync(manifestPath, 'utf8')) as { version: string; files: string[] };
  const files = new Map<string, StaticFile>();
  for (const file of manifest.files) {
    const bytes = new Uint8Array(readFileSync(join(dir, file)));
    const gzipped = COMPRESSIBLE.has(extname(file)) ? gzipIfSmaller(bytes) : undefined;
    files.set(file, { bytes, contentType: CONTENT_TYPES[extname(file)] ?? 'application/octet-stream', ...(gzipped ? { gzipped } : {}) });
  }
  return { version: manifest.version, files };
}
