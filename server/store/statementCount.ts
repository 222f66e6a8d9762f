import type { Queryable, Store } from './types.ts';

/**
 * What a store was asked, counted by `countStatements`: the bench divides the growth of these over a measured window
 * by the payments made in it (issue 23: statements and round trips per payment).
 */
export interface StatementCounts {
  /** Calls of `query` (one SQL statement each) and of `exec` (a script: counted as one), inside transactions or not. */
  readonly statements: number;
  /** Transactions run (`transaction`), each a BEGIN and a COMMIT (or ROLLBACK) the store sends besides its statements. */
  readonly transactions: number;
  /**
   * Trips to the database and back: each statement is one (neither driver pipelines), and each transaction adds two,
   * its BEGIN and its COMMIT (on PostgreSQL each is a message of its own and a wait for the answer; PGlite runs them
   * as calls into its engine).
   */
  readonly roundTrips: number;
}

export interface CountedStore {
  readonly store: Store;
  counts(): StatementCounts;
}

/**
 * The store with every statement it is asked counted. Only what measures wraps its store this way
 * (GatewayOptions.wrapStore): an unwrapped store pays nothing for it.
 */
export function countStatements(store: Store): CountedStore {
  let statements = 0;
  let transactions = 0;
  const counted = (target: Queryable): Queryable => ({
    query: (sql, params, options) => {
      statements += 1;
      return target.query(sql, params, options);
    },
    exec: (sql) => {
      statements += 1;
      return target.exec(sql);
    },
  });
  const root = counted(store);
  return {
    store: {
      kind: store.kind,
      instanceId: store.instanceId,
      isInstanceAlive: (id) => store.isInstanceAlive(id),
      query: root.query,
      exec: root.exec,
      transaction: (work) => {
        transactions += 1;
        return store.transaction((tx) => work(counted(tx)));
      },
      reclaimSpace: (tables) => store.reclaimSpace(tables),
      vacuum: () => store.vacuum(),
      close: () => store.close(),
    },
    counts: () => ({ statements, transactions, roundTrips: statements + 2 * transactions }),
  };
}
