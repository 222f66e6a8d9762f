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

/** A PostgreSQL server shared by any number of gateway instances. */
export async function openPostgresStore(connectionString: string, poolSize = 10): Promise<Store> {
  const pool = new pg.Pool({ connectionString, max: poolSize });
  // An idle client that loses its connection emits 'error' on the pool; without a listener that kills the process.
  pool.on('error', () => undefined);
  // Fail at start-up, not at the first request, when the server cannot be reached.
  const probe = await pool.connect();
  probe.release();
  const root = adapt(pool);
  return {
    kind: 'postgres',
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
      // the WAL moves on (README, "Card data at rest"). A user without the right to checkpoint leaves it to the server.
      await pool.query('CHECKPOINT').catch(() => undefined);
    },
    close: () => pool.end(),
  };
}
