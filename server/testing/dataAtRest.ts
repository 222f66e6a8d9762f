import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import pg from 'pg';
import { TEST_DATABASE_URL, type StoreLocation } from './harness.ts';

/**
 * Where tests look for data that must not be kept: the store's files as someone holding them would read them, and
 * every value inside a JSON document (an answer, a log line, a row).
 */

export function filesBelow(dir: string): string[] {
  return readdirSync(dir).flatMap((entry) => {
    const path = join(dir, entry);
    return statSync(path).isDirectory() ? filesBelow(path) : [path];
  });
}

/**
 * The files a value could be read back from: the embedded store's whole directory (read it after the gateway
 * closed, or after a compaction), or on PostgreSQL the files of `tables` in the location's schema, after a
 * checkpoint.
 */
export async function storeFiles(location: StoreLocation, tables: readonly string[]): Promise<Buffer[]> {
  if (!location.schema) return filesBelow(location.dataDir).map((file) => readFileSync(file));
  const admin = new pg.Client({ connectionString: TEST_DATABASE_URL });
  await admin.connect();
  try {
    await admin.query('CHECKPOINT');
    const found = await admin.query<{ dir: string; path: string }>(
      `SELECT current_setting('data_directory') AS dir, pg_relation_filepath(c.oid) AS path
         FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
        WHERE n.nspname = $1 AND c.relname = ANY($2::text[])`,
      [location.schema, tables],
    );
    return found.rows.map(({ dir, path }) => join(dir, path)).filter((file) => existsSync(file)).map((file) => readFileSync(file));
  } finally {
    await admin.end();
  }
}

export const containsAny = (files: readonly Buffer[], values: readonly string[]): boolean =>
  files.some((file) => values.some((value) => file.includes(value)));

/** Every string (and number) value anywhere inside a parsed JSON document. */
export function valuesOf(node: unknown): string[] {
  if (typeof node === 'string') return [node];
  if (typeof node === 'number') return [String(node)];
  if (Array.isArray(node)) return node.flatMap(valuesOf);
  if (node && typeof node === 'object') return Object.values(node).flatMap(valuesOf);
  return [];
}

/** Every key anywhere inside a parsed JSON document. */
export function keysOf(node: unknown): string[] {
  if (Array.isArray(node)) return node.flatMap(keysOf);
  if (node && typeof node === 'object') {
    return Object.entries(node).flatMap(([key, value]) => [key, ...keysOf(value)]);
  }
  return [];
}
