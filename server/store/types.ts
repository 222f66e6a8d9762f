/**
 * The one storage interface: PostgreSQL SQL, served either by embedded PGlite or by a PostgreSQL server.
 * Both speak the same dialect, so every query, lock and migration is written once.
 */

export interface QueryResult<Row> {
  readonly rows: Row[];
  /** Rows inserted, updated or deleted by the statement. */
  readonly rowCount: number;
}

export interface QueryOptions {
  /**
   * Name under which PostgreSQL keeps the statement prepared on each connection, so a hot statement is
   * parsed and planned once per connection instead of at every call. Only for constant SQL text.
   * (PGlite, in-process, gains nothing from it and ignores it.)
   */
  readonly preparedAs?: string;
}

export interface Queryable {
  query<Row = Record<string, unknown>>(
    sql: string,
    params?: readonly unknown[],
    options?: QueryOptions,
  ): Promise<QueryResult<Row>>;
  /** Runs a script of several statements without parameters (migrations). */
  exec(sql: string): Promise<void>;
}

export interface Store extends Queryable {
  readonly kind: 'pglite' | 'postgres';
  /** This process among the gateways sharing the store: recorded on work it starts and may not finish (a crash). */
  readonly instanceId: string;
  /**
   * Whether the gateway process that recorded `instanceId` is still running. False means it is gone for good (it
   * crashed or stopped), so work it left unfinished may be taken over.
   */
  isInstanceAlive(instanceId: string): Promise<boolean>;
  /**
   * Runs `work` in one transaction (BEGIN ... COMMIT, ROLLBACK when it throws). Row locks taken inside
   * (SELECT ... FOR UPDATE) hold until it ends.
   */
  transaction<T>(work: (tx: Queryable) => Promise<T>): Promise<T>;
  /**
   * Rewrites `tables` (VACUUM FULL) so that rows deleted or overwritten in them are gone from the data files, not
   * just marked dead, then checkpoints; the embedded store also drops the WAL segments that held them. Outside any
   * transaction; locks each table exclusively while it is rewritten.
   */
  reclaimSpace(tables: readonly string[]): Promise<void>;
  /**
   * What autovacuum does on a PostgreSQL server, for a store that has none: makes the space of deleted and updated
   * rows reusable (and records table sizes for the planner). The embedded store runs no background workers, so
   * without this its tables grow with every row ever deleted or updated; on PostgreSQL it does nothing.
   */
  vacuum(): Promise<void>;
  close(): Promise<void>;
}
