import { createHash } from 'node:crypto';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';

/**
 * What the widget build is made from: every file of widget/ but its tests and docs, the texts in locales/, and the
 * lockfile (the versions of Preact, i18next and Vite). The build records their digest in its manifest (build.ts), and
 * a start compares it with the sources it finds (server/widget/freshness.ts): a checkout whose sources changed since
 * its last build gets a new build, never a stale one. Node only, no Vite: the gateway reads this at every start.
 */

const ROOT = new URL('..', import.meta.url).pathname;
const SKIPPED = /(\.test\.tsx?|\.md)$|^widget\/test\//;

function filesBelow(dir: string): string[] {
  return readdirSync(dir).flatMap((entry) => {
    const path = join(dir, entry);
    return statSync(path).isDirectory() ? filesBelow(path) : [path];
  });
}

/** The digest of the files below `folders` (and the lockfile), names and contents, those `skipped` matches left out. */
export function sourcesDigest(root: string, folders: readonly string[], skipped: RegExp): string {
  const files = [...folders.flatMap((folder) => filesBelow(join(root, folder))), join(root, 'package-lock.json')]
    .map((path) => relative(root, path))
    .filter((file) => !skipped.test(file))
    .sort();
  const hash = createHash('sha256');
  for (const file of files) hash.update(file).update('\0').update(readFileSync(join(root, file))).update('\0');
  return hash.digest('hex');
}

export function widgetSourcesDigest(root: string = ROOT): string {
  return sourcesDigest(root, ['widget', 'locales'], SKIPPED);
}
