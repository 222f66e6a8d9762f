import { sourcesDigest } from '../widget/sources.ts';

/**
 * What the dashboard build is made from: every file of dashboard/ but its tests and docs, and the lockfile (the
 * versions of Preact, @preact/signals, i18next and Vite). The build records their digest in its manifest (build.ts);
 * a start compares it with the sources it finds (server/dashboard/freshness.ts) and builds again when they differ.
 * Node only, no Vite: the gateway reads this at every start.
 */

const ROOT = new URL('..', import.meta.url).pathname;
const SKIPPED = /(\.test\.tsx?|\.md)$|^dashboard\/test\//;

export function dashboardSourcesDigest(root: string = ROOT): string {
  return sourcesDigest(root, ['dashboard'], SKIPPED);
}
