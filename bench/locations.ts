import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { newResourceId } from '../server/domain/ids.ts';

/**
 * Fresh, empty store locations for one bench run: a PGlite temp directory, or a PostgreSQL schema of
 * its own (dropped afterwards). Like server/testing/harness.ts, but PostgreSQL may come from
 * TEST_DATABASE_URL or DATABASE_URL.
 */

export type StoreKind = 'PGlite' | 'PostgreSQL';

export interface PostgresSource {
  readonly variable: 'TEST_DATABASE_URL' | 'DATABASE_URL';
  readonly url: string;
}

/** TEST_DATABASE_URL wins over DATABASE_URL; undefined when neither is set. */
export function postgresSource(env: NodeJS.ProcessEnv = process.env): PostgresSource | undefined {
  if (env.TEST_DATABASE_URL) return { variable: 'TEST_DATABASE_URL', url: env.TEST_DATABASE_URL };
  if (env.DATABASE_URL) return { variable: 'DATABASE_URL', url: env.DATABASE_URL };
  return undefined;
}

/** The URL without its password, for printing. */
export function displayUrl(raw: string): string {
  try {
    const url = new URL(raw);
    if (url.password) url.password = '***';
    return url.toString();
  } catch {
    return '(unparsable URL)';
  }
}

export interface StoreLocation {
  readonly kind: StoreKind;
  readonly databaseUrl: string | undefined;
  readonly dataDir: string;
  /** Human-readable: the directory or the schema. */
  readonly where: string;
  dispose(): Promise<void>;
}

export async function freshLocation(kind: StoreKind, source: PostgresSource | undefined): Promise<StoreLocation> {
  const dataDir = mkdtempSync(join(tmpdir(), 'gateway-bench-'));
  const removeDir = () => rmSync(dataDir, { recursive: true, force: true });
  if (kind === 'PGlite') {
    return { kind, databaseUrl: undefined, dataDir, where: dataDir, dispose: async () => removeDir() };
  }
  if (!source) {
    removeDir();
    throw new Error('PostgreSQL requested without TEST_DATABASE_URL or DATABASE_URL');
  }
  const schema = `bench_${newResourceId().slice(0, 16)}`;
  const admin = new pg.Client({ connectionString: source.url });
  try {
    await admin.connect();
    await admin.query(`CREATE SCHEMA ${schema}`);
  } catch (error) {
    removeDir();
    throw error;
  } finally {
    await admin.end().catch(() => undefined);
  }
  const url = new URL(source.url);
  url.searchParams.set('options', `-c search_path=${schema}`);
  return {
    kind,
    databaseUrl: url.toString(),
    dataDir,
    where: `schema ${schema}`,
    async dispose() {
      removeDir();
      const cleanup = new pg.Client({ connectionString: source.url });
      try {
        await cleanup.connect();
        await cleanup.query(`DROP SCHEMA ${schema} CASCADE`);
      } finally {
        await cleanup.end().catch(() => undefined);
      }
    },
  };
}
