import { PGlite } from '@electric-sql/pglite';
import { randomUUID } from 'node:crypto';
import { chmodSync, closeSync, fsyncSync, mkdirSync, openSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import type { Queryable, QueryResult, Store } from './types.ts';

type PGliteQueryable = Pick<PGlite, 'query' | 'exec'>;

function adapt(db: PGliteQueryable): Queryable {
  return {
    async query<Row>(sql: string, params: readonly unknown[] = []): Promise<QueryResult<Row>> {
      const result = await db.query<Row>(sql, params as unknown[]);
      return { rows: result.rows, rowCount: result.affectedRows ?? 0 };
    },
    async exec(sql: string): Promise<void> {
      await db.exec(sql);
    },
  };
}

function isRunning(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/** Directories this process holds open: a pid file naming this process is stale unless listed here. */
const heldByThisProcess = new Set<string>();

/**
 * PGlite is one process's database: a second opener of the same directory would corrupt it.
 * A pid file guards the directory; a stale one (its process gone, e.g. after a crash) is taken over.
 */
/** The embedded store's directory is another running process's (a gateway): one process opens it at a time. */
export class StoreInUseError extends Error {
  constructor(
    readonly dataDir: string,
    readonly pid: number,
  ) {
    super(`the embedded store in ${dataDir} is in use by process ${pid}; stop that gateway first, or share a PostgreSQL server through DATABASE_URL`);
    this.name = 'StoreInUseError';
  }
}

function lockDataDir(dataDir: string): () => void {
  mkdirSync(dataDir, { recursive: true, mode: 0o700 });
  const lockFile = join(dataDir, 'gateway.pid');
  const key = resolve(dataDir);
  try {
    writeFileSync(lockFile, String(process.pid), { flag: 'wx' });
  } catch {
    const holder = Number(readFileSync(lockFile, 'utf8'));
    const held = holder === process.pid ? heldByThisProcess.has(key) : Number.isInteger(holder) && isRunning(holder);
    if (held) throw new StoreInUseError(dataDir, holder);
    writeFileSync(lockFile, String(process.pid));
  }
  heldByThisProcess.add(key);
  return () => {
    heldByThisProcess.delete(key);
    rmSync(lockFile, { force: true });
  };
}

/**
 * PGlite starts PostgreSQL with fsync off (`-F`), and the fsync of its WebAssembly file layer does nothing. Writing
 * the WAL with O_DSYNC (open_datasync) is what reaches the disk: a commit returns only once its WAL is on stable
 * storage. Data files are written at checkpoints without a sync of their own, so the store syncs them itself
 * after each checkpoint it runs (syncFiles below) and at close.
 */
const DURABLE_START_PARAMS = [
  ...PGlite.defaultStartParams.filter((parameter) => parameter !== '-F'),
  '-c',
  'fsync=on',
  '-c',
  'wal_sync_method=open_datasync',
];

/** How often the store checkpoints and syncs its data files, bounding what a checkpoint PGlite ran itself could leave unsynced. */
const CHECKPOINT_INTERVAL_MS = 5 * 60_000;

function walk(dir: string, visit: (path: string, isDirectory: boolean) => void): void {
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) walk(path, visit);
    visit(path, entry.isDirectory());
  }
}

/** The data directory is the gateway user's alone: PGlite creates its files 0666 whatever the umask. */
function restrictToOwner(dataDir: string): void {
  chmodSync(dataDir, 0o700);
  walk(dataDir, (path, isDirectory) => chmodSync(path, isDirectory ? 0o700 : 0o600));
}

/** fsync of every file and directory below `dataDir`, from outside the WebAssembly layer whose own fsync does nothing. */
function syncFiles(dataDir: string): void {
  const sync = (path: string) => {
    const fd = openSync(path, 'r');
    try {
      fsyncSync(fd);
    } finally {
      closeSync(fd);
    }
  };
  walk(dataDir, (path) => sync(path));
  sync(dataDir);
}

const TABLE_NAME = /^[a-z_][a-z0-9_]*$/;

export interface PGliteStoreOptions {
  /**
   * A periodic checkpoint (or the sync of the data files after it) failed: what it would have made durable waits
   * for the next one, or the close. Told, not thrown: nothing awaits the timer that runs it.
   */
  readonly onCheckpointFailed?: (error: unknown) => void;
  /** A database to start from instead of an empty one (a migrated image: image.ts), for `memory://` only. */
  readonly image?: Blob;
}

/** The embedded store, which can also hand out its whole database as a file (image.ts). */
export interface PGliteStore extends Store {
  /** The data directory as an uncompressed tar. */
  dumpDataDir(): Promise<Blob>;
}

/**
 * The embedded store: PostgreSQL compiled to WebAssembly, persisted in `dataDir` (or in memory for
 * `memory://`). It is a single connection, so transactions run one after another; row locks still
 * behave as in PostgreSQL.
 */
export async function openPGliteStore(dataDir: string, options: PGliteStoreOptions = {}): Promise<PGliteStore> {
  const inMemory = dataDir.startsWith('memory://');
  if (options.image && !inMemory) throw new Error('a database image is loaded into memory://, never over a data directory');
  const unlock = inMemory ? () => undefined : lockDataDir(dataDir);
  let db: PGlite;
  try {
    db = await PGlite.create({ dataDir, startParams: DURABLE_START_PARAMS, ...(options.image ? { loadDataDir: options.image } : {}) });
    // A checkpoint then removes WAL segments it no longer needs instead of renaming them for reuse with their
    // old contents (data deleted from the tables must not live on in a recycled segment; see reclaimSpace).
    await db.exec('SET wal_recycle = off');
  } catch (error) {
    unlock();
    throw error;
  }
  const onDisk = (work: () => void) => {
    if (!inMemory) work();
  };
  onDisk(() => restrictToOwner(dataDir));
  const checkpoint = async () => {
    await db.exec('CHECKPOINT');
    onDisk(() => syncFiles(dataDir));
  };
  const timer = setInterval(() => {
    checkpoint().catch((error: unknown) => options.onCheckpointFailed?.(error));
  }, CHECKPOINT_INTERVAL_MS);
  timer.unref();
  const root = adapt(db);
  // One process at a time opens the directory (the pid file): any other instance that recorded work here is gone.
  const instanceId = randomUUID().replace(/-/g, '');
  return {
    kind: 'pglite',
    instanceId,
    isInstanceAlive: async (id) => id === instanceId,
    query: root.query,
    exec: root.exec,
    transaction: (work) => db.transaction((tx) => work(adapt(tx))),
    async reclaimSpace(tables) {
      for (const table of tables) {
        if (!TABLE_NAME.test(table)) throw new Error(`not a table name: ${table}`);
        await db.exec(`VACUUM FULL ${table}`);
      }
      // The WAL still holds the deleted rows as they were written: close its segment, and the checkpoint removes it.
      await db.query('SELECT pg_switch_wal()');
      await checkpoint();
    },
    async dumpDataDir() {
      return (await db.dumpDataDir('none')) as Blob;
    },
    async vacuum() {
      // Not ANALYZE: it would hold the process for a few hundred milliseconds each time (PGlite runs on its thread),
      // and the gateway's queries go by key, for which the table sizes VACUUM records are enough.
      await db.exec('VACUUM');
    },
    async close() {
      clearInterval(timer);
      await db.close();
      onDisk(() => {
        syncFiles(dataDir);
        restrictToOwner(dataDir);
      });
      unlock();
    },
  };
}
