import { mkdir, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { gunzipSync, gzipSync } from 'node:zlib';
import { migrate, migrationsDigest } from './migrate.ts';
import { openPGliteStore } from './pglite.ts';
import { packagePath } from '../paths.ts';

/**
 * A migrated, empty embedded database as a file (issue 24: the CI mode's start). Creating a PGlite database runs
 * initdb in WebAssembly and then every migration, about three seconds on the development machine; loading this
 * image instead takes about half a second. `npm run build` makes it (`npm install` runs the build); its name carries
 * the digest of the migrations it was made from, so an image of other migrations is never loaded: a start that finds
 * none for this build's migrations makes the database the slow way (and says how to make the image).
 */

export const STORE_IMAGE_DIR = packagePath('dist/store/');
const PREFIX = 'migrated-';
const SUFFIX = '.tar.gz';

function imageName(digest: string): string {
  return `${PREFIX}${digest.slice(0, 32)}${SUFFIX}`;
}

/** Makes the image for this build's migrations in `dir` (replacing older ones); resolves with its file's path. */
export async function buildStoreImage(dir: URL = STORE_IMAGE_DIR): Promise<string> {
  const store = await openPGliteStore('memory://');
  let dump: Blob;
  try {
    await migrate(store);
    dump = await store.dumpDataDir();
  } finally {
    await store.close();
  }
  const digest = await migrationsDigest();
  await mkdir(dir, { recursive: true });
  for (const old of (await readdir(dir)).filter((file) => file.startsWith(PREFIX))) await rm(new URL(old, dir), { force: true });
  const path = new URL(imageName(digest), dir);
  // Level 1: a 40 MB tar of mostly empty pages shrinks to a few MB as well at level 1 as at 9, in a tenth of the time.
  await writeFile(path, gzipSync(new Uint8Array(await dump.arrayBuffer()), { level: 1 }));
  return path.pathname;
}

/** Whether `dir` holds the image for this build's migrations. */
export async function hasStoreImage(dir: URL = STORE_IMAGE_DIR): Promise<boolean> {
  return (await readdir(dir).catch(() => [] as string[])).includes(imageName(await migrationsDigest()));
}

/** The image for this build's migrations, uncompressed (PGlite's own gunzip is slower than Node's), if there is one. */
export async function loadStoreImage(dir: URL = STORE_IMAGE_DIR): Promise<Blob | undefined> {
  const bytes = await readFile(new URL(imageName(await migrationsDigest()), dir)).catch(() => undefined);
  return bytes ? new Blob([gunzipSync(bytes)]) : undefined;
}

// `npm run build` (after the widget): tsx server/store/image.ts
if (process.argv[1] && /store[\\/]image\.ts$/.test(process.argv[1]) && import.meta.url.endsWith(process.argv[1].split('/').pop() ?? '')) {
  buildStoreImage().then(
    (path) => process.stdout.write(`store image ${path}\n`),
    (error: unknown) => {
      process.stderr.write(`store image build failed: ${error instanceof Error ? error.message : String(error)}\n`);
      process.exitCode = 1;
    },
  );
}
