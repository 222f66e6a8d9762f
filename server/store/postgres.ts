import { randomUUID } from 'node:crypto';
import pg from 'pg';
import type { Queryable, QueryOptions, QueryResult, Store } from './types.ts';

const INT8_OID = 20;
const NUMERIC_OID = 1700;

/**
 * bigint columns hold minor units and counts, far below 2^53, so both stores return them as numbers
 * (PGlite does so natively). numeric stays a string, as in PGlite.
 */
const typeParsers = {
  getTypeParser(oid: number, format?: 'text' | 'binary') {
    if (oid === INT8_OID) return (value: string) => Number(value);
    if (oid === NUMERIC_OID) return (value: string) => value;
    return pg.types.getTypeParser(oid, format);
  },
};

function adapt(client: pg.Pool | pg.PoolClient): Queryable {
  return {
    async query<Row>(sql: string, params: readonly unknown[] = [], options: QueryOptions = {}): Promise<QueryResult<Row>> {
      const result = await client.query({
        text: sql,
        values: params as unknown[],
        types: typeParsers,
        ...(options.preparedAs ? { name: options.preparedAs } : {}),
      });
      return { rows: result.rows as Row[], rowCount: result.rowCount ?? 0 };
    },
    async exec(sql: string): Promise<void> {
      // Without parameters node-postgres uses the simple protocol, which accepts several statements.
      await client.query(sql);
    },
  };
}

/** The name an instance's liveness lock is derived from (advisory lock keys are numbers: hashtextextended). */
const livenessLockName = (instanceId: string) => `gateway-instance:${instanceId}`;

export interface PostgresStoreOptions {
  readonly poolSize?: number;
  /** Called when the connection holding this instance's liveness lock is lost: other instances may now take over its work. */
  readonly onInstanceLockLost?: (error: Error) => void;
}

/**
 * A PostgreSQL server shared by any number of gateway instances. Each instance holds a session-level advisory
 * lock named after its id on a connection of its own for as long as it runs: when the process dies, the server
 * closes that session and the lock is free, which is how another instance knows the work it left is orphaned.
 */
export async function openPostgresStore(connectionString: string, options: PostgresStoreOptions = {}): Promise<Store> {
  const pool = new pg.Pool({ connectionString, max: options.poolSize ?? 10 });
  // An idle client that loses its connection emits 'error' on the pool; without a listener that kills the process.
  pool.on('error', () => undefined);
  // Fail at start-up, not at the first request, when the server cannot be reached.
  const probe = await pool.connect();
  probe.release();
  const instanceId = randomUUID().replace(/-/g, '');
  const liveness = new pg.Client({ connectionString });
  let closing = false;
  liveness.on('error', (error: Error) => {
    if (!closing) options.onInstanceLockLost?.(error);
  });
  await liveness.connect();
  await liveness.query('SELECT pg_advisory_lock(hashtextextended($1, 0))', [livenessLockName(instanceId)]);
  const root = adapt(pool);
  return {
    kind: 'postgres',
    instanceId,
    async isInstanceAlive(id) {
      if (id === instanceId) return true;
      const client = await pool.connect();
      try {
        const name = livenessLockName(id);
        const tried = await client.query<{ free: boolean }>('SELECT pg_try_advisory_lock(hashtextextended($1, 0)) AS free', [name]);
        if (!tried.rows[0]?.free) return true;
        await client.query('SELECT pg_advisory_unlock(hashtextextended($1, 0))', [name]);
        return false;
      } finally {
        client.release();
      }
    },
    query: root.query,
    exec: root.exec,
    async transaction(work) {
      const client = await pool.connect();
      let brokenConnection: Error | undefined;
      try {
        await client.query('BEGIN');
        const result = await work(adapt(client));
        await client.query('COMMIT');
        return result;
      } catch (error) {
        await client.query('ROLLBACK').catch((rollbackError: Error) => {
          brokenConnection = rollbackError;
        });
        throw error;
      } finally {
        // A connection that cannot even roll back is discarded instead of returned to the pool.
        client.release(brokenConnection);
      }
    },
    async reclaimSpace(tables) {
      for (const table of tables) {
        if (!/^[a-z_][a-z0-9_]*$/.test(table)) throw new Error(`not a table name: ${table}`);
        await pool.query(`VACUUM FULL ${table}`);
      }
      // Writes the rewritten tables out now. The server's WAL segments are its own: PostgreSQL overwrites them as
      // the WAL moves on (docs/operating.md, "Card data at rest"). A user without the right to checkpoint leaves it to the server.
      await pool.query('CHECKPOINT').catch(() => undefined);
    },
    // The server's autovacuum does this.
    vacuum: async () => undefined,
    async close() {
      closing = true;
      await liveness.end().catch(() => undefined);
      await pool.end();
    },
  };
}
