import { existsSync, readFileSync } from 'node:fs';

/**
 * Where the gateway's own files are: the package's root (its package.json), found from this module upward, so the same
 * code finds them run from its sources (`server/…`, tsx) and compiled (`dist/server/…`, the `wpwl-gateway` command of
 * an installed package: npm run build). Every file the server reads at run time besides its modules is named from here.
 */
function packageRootOf(start: URL): URL {
  for (let directory = new URL('./', start); ; directory = new URL('../', directory)) {
    const manifest = new URL('package.json', directory);
    if (existsSync(manifest) && (JSON.parse(readFileSync(manifest, 'utf8')) as { name?: string }).name === 'payment-gateway') return directory;
    if (directory.pathname === '/') throw new Error(`the gateway's package.json was not found above ${start.pathname}`);
  }
}

export const PACKAGE_ROOT = packageRootOf(new URL(import.meta.url));

/** A file or directory of the package, by its path from the root (`docs/`, `dist/widget/`). */
export const packagePath = (path: string): URL => new URL(path, PACKAGE_ROOT);
