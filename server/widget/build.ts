import { existsSync, readFileSync } from 'node:fs';
import { extname, join } from 'node:path';

/** The built widget files (dist/widget, made by widget/build.ts), held in memory with their headers. */

export interface StaticFile {
  readonly bytes: Uint8Array<ArrayBuffer>;
  readonly contentType: string;
}

export interface WidgetBuild {
  readonly version: string;
  readonly files: ReadonlyMap<string, StaticFile>;
}

export const DEFAULT_WIDGET_DIST = new URL('../../dist/widget/', import.meta.url).pathname;

const CONTENT_TYPES: Record<string, string> = {
  '.js': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.html': 'text/html; charset=utf-8',
  '.json': 'application/json',
  '.svg': 'image/svg+xml',
};

/** The build in `dir`, or undefined when there is none (the widget was not built). */
export function loadWidgetBuild(dir: string = DEFAULT_WIDGET_DIST): WidgetBuild | undefined {
  const manifestPath = join(dir, 'manifest.json');
  if (!existsSync(manifestPath)) return undefined;
  const manifest = JSON.parse(readFileSync(manifestPath, 'utf8')) as { version: string; files: string[] };
  const files = new Map<string, StaticFile>();
  for (const file of manifest.files) {
    const bytes = new Uint8Array(readFileSync(join(dir, file)));
    files.set(file, { bytes, contentType: CONTENT_TYPES[extname(file)] ?? 'application/octet-stream' });
  }
  return { version: manifest.version, files };
}
