import { PGlite } from '@electric-sql/pglite';
import { mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
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
function lockDataDir(dataDir: string): () => void {
  mkdirSync(dataDir, { recursive: true });
  const lockFile = join(dataDir, 'gateway.pid');
  const key = resolve(dataDir);
  try {
    writeFileSync(lockFile, String(process.pid), { flag: 'wx' });
  } catch {
    const holder = Number(readFileSync(lockFile, 'utf8'));
    const held = holder === process.pid ? heldByThisProcess.has(key) : Number.isInteger(holder) && isRunning(holder);
    if (held) {
      throw new Error(
        `the embedded store in ${dataDir} is in use by process ${holder}; stop that gateway first, or share a PostgreSQL server through DATABASE_URL`,
      );
    }
    writeFileSync(lockFile, String(process.pid));
  }
  heldByThisProcess.add(key);
  return () => {
    heldByThisProcess.delete(key);
    rmSync(lockFile, { force: true });
  };
}

/**
 * The embedded store: PostgreSQL compiled to WebAssembly, persisted in `dataDir` (or in memory for
 * `memory://`). It is a single connection, so transactions run one after another; row locks still
 * behave as in PostgreSQL.
 */
export async function openPGliteStore(dataDir: string): Promise<Store> {
  const unlock = dataDir.startsWith('memory://') ? () => undefined : lockDataDir(dataDir);
  let db: PGlite;
  try {
    db = await PGlite.create(dataDir);
  } catch (error) {
    unlock();
    throw error;
  }
  const root = adapt(db);
  return {
    kind: 'pglite',
    query: root.query,
    exec: root.exec,
    transaction: (work) => db.transaction((tx) => work(adapt(tx))),
    async close() {
      await db.close();
      unlock();
    },
  };
}
