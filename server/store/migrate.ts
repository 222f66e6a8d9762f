import { createHash } from 'node:crypto';
import { readdir, readFile } from 'node:fs/promises';
import type { Queryable, Store } from './types.ts';
import { packagePath } from '../paths.ts';

const MIGRATIONS_DIR = packagePath('server/store/migrations/');

/**
 * Applies every migrations/*.sql file not applied yet, in file-name order, each in its own transaction.
 * An advisory lock makes concurrent start-ups of several instances apply each migration once.
 */
/** The migration files this build knows, in the order they apply. */
async function migrationFiles(): Promise<string[]> {
  return (await readdir(MIGRATIONS_DIR)).filter((file) => file.endsWith('.sql')).sort();
}

/** A digest of every migration's name and text: what a migrated database image was made from (image.ts). */
export async function migrationsDigest(): Promise<string> {
  const hash = createHash('sha256');
  for (const file of await migrationFiles()) hash.update(file).update('\0').update(await readFile(new URL(file, MIGRATIONS_DIR))).update('\0');
  return hash.digest('hex');
}

/**
 * The migrations this build knows that the store has not applied (readiness: an instance of a newer build started on
 * a store another instance has not migrated yet). Reading the applied names is also the proof the store answers.
 */
export async function pendingMigrations(store: Queryable): Promise<string[]> {
  const applied = await store.query<{ name: string }>('SELECT name FROM schema_migrations');
  const names = new Set(applied.rows.map((row) => row.name));
  return (await migrationFiles()).filter((file) => !names.has(file));
}

export async function migrate(store: Store, options: { readonly stopBefore?: string } = {}): Promise<string[]> {
  // A store with every migration applied (every start but the first) is told by one read, not a locked transaction
  // per migration.
  if (options.stopBefore === undefined && (await pendingMigrations(store).catch(() => undefined))?.length === 0) return [];
  const files = (await migrationFiles())
    // Tests of a migration bring a store to the schema before it.
    .filter((file) => options.stopBefore === undefined || file < options.stopBefore);
  const applied: string[] = [];
  for (const file of files) {
    const sql = await readFile(new URL(file, MIGRATIONS_DIR), 'utf8');
    const didApply = await store.transaction(async (tx) => {
      await tx.query("SELECT pg_advisory_xact_lock(hashtext('gateway-schema-migrations'))");
      await tx.exec(
        'CREATE TABLE IF NOT EXISTS schema_migrations (name text PRIMARY KEY, applied_at timestamptz NOT NULL DEFAULT now())',
      );
      const done = await tx.query('SELECT 1 FROM schema_migrations WHERE name = $1', [file]);
      if (done.rows.length > 0) return false;
      await tx.exec(sql);
      await tx.query('INSERT INTO schema_migrations (name) VALUES ($1)', [file]);
      return true;
    });
    if (didApply) applied.push(file);
  }
  return applied;
}
