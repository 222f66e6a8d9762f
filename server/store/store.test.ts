import { readdirSync, rmSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { freshStoreLocation, STORE_KINDS, warnIfPostgresSkipped, type StoreLocation } from '../testing/harness.ts';
import { migrate } from './migrate.ts';
import { openPGliteStore } from './pglite.ts';
import { openStore, type Store } from './index.ts';

warnIfPostgresSkipped('store.test.ts');

describe.each(STORE_KINDS)('the store on %s', (kind) => {
  let location: StoreLocation;
  let store: Store;
  beforeAll(async () => {
    location = await freshStoreLocation(kind);
    store = await openStore(location);
  });
  afterAll(async () => {
    await store?.close();
    await location?.dispose();
  });

  it('applies the migration set at start-up, once', async () => {
    expect(store.kind).toBe(kind === 'PGlite' ? 'pglite' : 'postgres');
    const applied = await store.query<{ name: string }>('SELECT name FROM schema_migrations ORDER BY name');
    expect(applied.rows.map((row) => row.name)).toContain('0001_merchants_and_payments.sql');
    expect(await migrate(store)).toEqual([]);
    const tables = await store.query<{ table_name: string }>(
      'SELECT table_name FROM information_schema.tables WHERE table_schema = current_schema() ORDER BY table_name',
    );
    expect(tables.rows.map((row) => row.table_name)).toEqual(
      expect.arrayContaining(['access_token_entities', 'access_tokens', 'entities', 'payments', 'schema_migrations']),
    );
  });

  it('commits a transaction that succeeds and rolls back one that throws', async () => {
    await store.transaction((tx) => tx.query("INSERT INTO entities (id, name) VALUES ('aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa', 'kept')"));
    await expect(
      store.transaction(async (tx) => {
        await tx.query("INSERT INTO entities (id, name) VALUES ('bbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbb', 'rolled back')");
        throw new Error('abort');
      }),
    ).rejects.toThrow('abort');
    const names = await store.query<{ name: string }>('SELECT name FROM entities ORDER BY name');
    expect(names.rows.map((row) => row.name)).toEqual(['kept']);
  });

  it('returns bigint columns as numbers and reports affected rows', async () => {
    const result = await store.query<{ big: number }>('SELECT 9007199254740::bigint AS big');
    expect(result.rows[0]?.big).toBe(9007199254740);
    const updated = await store.query("UPDATE entities SET name = 'renamed' WHERE name = 'kept'");
    expect(updated.rowCount).toBe(1);
  });

  it('keeps the database usable after a failed statement', async () => {
    await expect(store.query('SELECT * FROM no_such_table')).rejects.toThrow();
    await expect(store.transaction((tx) => tx.query('SELECT 1/0'))).rejects.toThrow();
    expect((await store.query<{ one: number }>('SELECT 1 AS one')).rows).toEqual([{ one: 1 }]);
  });
});

describe('the embedded store directory', () => {
  it('cannot be opened by a second gateway while the first holds it, and can after it closed', async () => {
    const location = await freshStoreLocation('PGlite');
    try {
      const first = await openPGliteStore(location.dataDir);
      await expect(openPGliteStore(location.dataDir)).rejects.toThrow(/in use by process/);
      await first.close();
      const second = await openPGliteStore(location.dataDir);
      await second.close();
    } finally {
      await location.dispose();
    }
  });

  it('is readable by the gateway user only: the directory 0700, every file in it 0600', async () => {
    const location = await freshStoreLocation('PGlite');
    try {
      const store = await openPGliteStore(location.dataDir);
      expect(statSync(location.dataDir).mode & 0o777).toBe(0o700);
      await store.query('CREATE TABLE modes (x int)');
      await store.close();
      const modes = new Map<string, number>();
      const visit = (dir: string) => {
        for (const entry of readdirSync(dir, { withFileTypes: true })) {
          const path = join(dir, entry.name);
          modes.set(path, statSync(path).mode & 0o777);
          if (entry.isDirectory()) visit(path);
        }
      };
      visit(location.dataDir);
      expect(modes.size).toBeGreaterThan(100);
      const open = [...modes].filter(([, mode]) => (mode & 0o077) !== 0).map(([path, mode]) => `${path} ${mode.toString(8)}`);
      expect(open).toEqual([]);
    } finally {
      await location.dispose();
    }
  });

  it('commits durably: the WAL is written synchronously (fsync on, open_datasync), and recycles no segment', async () => {
    const location = await freshStoreLocation('PGlite');
    try {
      const store = await openPGliteStore(location.dataDir);
      const setting = async (name: string) => (await store.query<{ value: string }>(`SELECT current_setting('${name}') AS value`)).rows[0]?.value;
      expect(await setting('fsync')).toBe('on');
      expect(await setting('wal_sync_method')).toBe('open_datasync');
      expect(await setting('synchronous_commit')).toBe('on');
      expect(await setting('wal_recycle')).toBe('off');
      await store.close();
    } finally {
      await location.dispose();
    }
  });

  it('tells of a periodic checkpoint that failed instead of swallowing it', async () => {
    vi.useFakeTimers({ toFake: ['setInterval', 'clearInterval'] });
    const location = await freshStoreLocation('PGlite');
    const failures: unknown[] = [];
    try {
      const store = await openPGliteStore(location.dataDir, { onCheckpointFailed: (error) => failures.push(error) });
      await store.query('CREATE TABLE checkpointed (x int)');
      await vi.advanceTimersByTimeAsync(5 * 60_000);
      await store.query('SELECT 1');
      expect(failures).toEqual([]);
      // The sync after the checkpoint cannot open this entry of the directory.
      const dangling = join(location.dataDir, 'dangling');
      symlinkSync(join(location.dataDir, 'no-such-file'), dangling);
      await vi.advanceTimersByTimeAsync(5 * 60_000);
      await vi.waitFor(() => expect(failures).toHaveLength(1));
      expect((failures[0] as NodeJS.ErrnoException).code).toBe('ENOENT');
      rmSync(dangling);
      await store.close();
    } finally {
      vi.useRealTimers();
      await location.dispose();
    }
  });

  it('takes over the pid file a crashed gateway left behind', async () => {
    const location = await freshStoreLocation('PGlite');
    try {
      const first = await openPGliteStore(location.dataDir);
      await first.close();
      // A process that no longer runs, and this very process in an earlier life (same pid, e.g. pid 1 in a container).
      for (const stalePid of [2 ** 22 + 1, process.pid]) {
        writeFileSync(join(location.dataDir, 'gateway.pid'), String(stalePid));
        const reopened = await openPGliteStore(location.dataDir);
        await reopened.close();
      }
    } finally {
      await location.dispose();
    }
  });
});
