import { existsSync } from 'node:fs';
import { mkdtemp, readdir, rm, writeFile, mkdir } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { migrationsDigest } from './store/migrate.ts';
import { buildStoreImage, hasStoreImage, loadStoreImage } from './store/image.ts';
import { openPGliteStore } from './store/pglite.ts';
import { startGatewayProcess } from './testing/gatewayProcess.ts';
import { cardPayment } from './testing/harness.ts';
import { staleWidgetBuild } from './widget/freshness.ts';

/**
 * Issue 24, the CI mode: `npm run start:ci` (server/main.ts --in-memory) starts a gateway whose database lives in
 * memory, loaded from the migrated image `npm run build` made, with the merchant of DEMO_* and nothing written to disk;
 * the image and the widget build are checked against what they were made from, so neither can be stale.
 */

const ENTITY = '0123456789abcdef0123456789abcdef';
const TOKEN = 'ci-pipeline-token-0123456789abcdef';

describe('the in-memory start (npm run start:ci)', () => {
  let work: string;
  beforeAll(async () => {
    work = await mkdtemp(join(tmpdir(), 'gateway-ci-'));
  });
  afterAll(async () => {
    await rm(work, { recursive: true, force: true });
  });

  it('takes payments for the merchant its environment names, and writes nothing to disk', async () => {
    const dataDir = join(work, 'data');
    const gateway = startGatewayProcess(
      { DATA_DIR: dataDir, DATABASE_URL: '', PORT: '0', HOST: '127.0.0.1', DEMO_ENTITY_ID: ENTITY, DEMO_ACCESS_TOKEN: TOKEN },
      'server/main.ts',
      ['--in-memory'],
    );
    try {
      const banner = await gateway.listening;
      expect(banner).toContain('embedded PGlite in memory (nothing kept)');
      expect(banner).not.toMatch(/making it now|building it now/);
      const url = /Gateway listening on (\S+)/.exec(banner)?.[1] as string;
      expect(await (await fetch(`${url}/ready`)).json()).toMatchObject({ status: 'ready' });
      const paid = await fetch(`${url}/v1/payments`, {
        method: 'POST',
        headers: { Authorization: `Bearer ${TOKEN}`, 'Content-Type': 'application/x-www-form-urlencoded' },
        body: new URLSearchParams(cardPayment(ENTITY)),
      });
      expect(paid.status).toBe(200);
      expect(((await paid.json()) as { result: { code: string } }).result.code).toBe('000.100.110');
    } finally {
      await gateway.kill();
    }
    // Neither the data directory nor a card-data key file (nor a directory named after memory://).
    expect(existsSync(dataDir)).toBe(false);
    expect(existsSync('memory:')).toBe(false);
  }, 60_000);

  it('is refused with a database URL or in live, in one line', async () => {
    const refused: Record<string, string>[] = [{ DATABASE_URL: 'postgres://127.0.0.1:1/none' }, { GATEWAY_ENV: 'live', CARD_DATA_KEY: 'ab'.repeat(32) }];
    for (const env of refused) {
      const gateway = startGatewayProcess({ PORT: '0', HOST: '127.0.0.1', DATABASE_URL: '', ...env }, 'server/main.ts', ['--in-memory']);
      expect(await gateway.exited).toBe(1);
      expect(gateway.stderr().trim().split('\n')).toHaveLength(1);
      expect(gateway.stderr()).toMatch(/^Configuration error: --in-memory /);
    }
  }, 60_000);
});

describe('the migrated database image', () => {
  let dir: URL;
  beforeAll(async () => {
    dir = pathToFileURL(`${await mkdtemp(join(tmpdir(), 'gateway-image-'))}/`);
  });
  afterAll(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  it('holds every migration, and loads into a store that needs none', async () => {
    expect(await hasStoreImage(dir)).toBe(false);
    expect(await loadStoreImage(dir)).toBeUndefined();
    const path = await buildStoreImage(dir);
    expect(path).toContain((await migrationsDigest()).slice(0, 32));
    expect(await hasStoreImage(dir)).toBe(true);
    const image = await loadStoreImage(dir);
    const store = await openPGliteStore('memory://', { image: image as Blob });
    try {
      const applied = await store.query<{ n: number }>('SELECT count(*)::int AS n FROM schema_migrations');
      const files = (await readdir(new URL('./store/migrations/', import.meta.url))).filter((file) => file.endsWith('.sql'));
      expect(applied.rows[0]?.n).toBe(files.length);
    } finally {
      await store.close();
    }
  }, 60_000);

  it('is never loaded for other migrations than those it was made from', async () => {
    // An image of other migrations (an older build's): its name carries another digest.
    const other = new URL('./other/', dir);
    await mkdir(other, { recursive: true });
    await writeFile(new URL(`migrated-${'0'.repeat(32)}.tar.gz`, other), 'an image of other migrations');
    expect(await hasStoreImage(other)).toBe(false);
    expect(await loadStoreImage(other)).toBeUndefined();
  });

  it('is refused over a data directory on disk', async () => {
    await expect(openPGliteStore(join(tmpdir(), 'never-made'), { image: new Blob([]) })).rejects.toThrow(/memory:\/\//);
  });
});

describe('the widget build, checked at start', () => {
  let dir: string;
  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'gateway-widget-'));
  });
  afterAll(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  it('is current when made from the sources beside it, stale when they changed, missing when never made', async () => {
    expect(staleWidgetBuild(dir, () => 'digest-a')).toBe('the widget is not built');
    await writeFile(join(dir, 'manifest.json'), JSON.stringify({ version: '0123456789abcdef', sources: 'digest-a', files: [] }));
    expect(staleWidgetBuild(dir, () => 'digest-a')).toBeUndefined();
    expect(staleWidgetBuild(dir, () => 'digest-b')).toBe('the widget sources changed since it was built');
    // The suite's own build (global setup) is current.
    expect(staleWidgetBuild()).toBeUndefined();
  });
});
