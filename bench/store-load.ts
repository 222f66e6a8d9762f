import { randomBytes } from 'node:crypto';
import { PGlite } from '@electric-sql/pglite';
import type { Queryable, Store } from '../server/store/index.ts';
import { summarize, type Summary } from './stats.ts';

/**
 * Baseline B: the store's raw single-row insert+commit rate through the Store interface, one row per
 * transaction, driven by `concurrency` closed loops (as autocannon drives `connections` connections).
 * The row is shaped like a small payment row; the table lives next to the gateway's own tables.
 */

export const RAW_TABLE = 'bench_raw_payments';

const CREATE_TABLE = `CREATE TABLE IF NOT EXISTS ${RAW_TABLE} (
  id            char(32) PRIMARY KEY,
  entity_id     char(32) NOT NULL,
  payment_type  char(2) NOT NULL,
  amount_minor  bigint NOT NULL,
  currency      char(3) NOT NULL,
  result_code   text NOT NULL,
  approved      boolean NOT NULL,
  card          jsonb,
  ndc           text NOT NULL,
  created_at    timestamptz NOT NULL DEFAULT now()
)`;

const INSERT = `INSERT INTO ${RAW_TABLE} (id, entity_id, payment_type, amount_minor, currency, result_code, approved, card, ndc)
  VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9)`;

const CARD = JSON.stringify({ bin: '420000', last4Digits: '0000', holder: 'Jane Jones', expiryMonth: '05', expiryYear: '2034' });

function hex32(): string {
  return randomBytes(16).toString('hex');
}

function row(entityId: string): unknown[] {
  return [hex32(), entityId, 'DB', 9200, 'EUR', '000.100.110', true, CARD, `${entityId}_${hex32()}`];
}

export interface StoreLoadSpec {
  readonly concurrency: number;
  readonly warmupSeconds: number;
  readonly durationSeconds: number;
  readonly entityId: string;
}

export interface StoreLoadResult {
  readonly warmupOps: number;
  readonly measured: Summary;
  readonly rowsInTable: number;
}

/** What the loops need of a store: the gateway's, or a PGlite as it starts by default (durabilityBaseline). */
export type InsertTarget = Pick<Store, 'exec' | 'query' | 'transaction'>;

async function phase(store: InsertTarget, spec: StoreLoadSpec, seconds: number, latencies: number[] | undefined) {
  const started = performance.now();
  let deadline = started + seconds * 1000;
  let ops = 0;
  let failure: unknown;
  const loop = async () => {
    while (performance.now() < deadline) {
      const begin = performance.now();
      try {
        await store.transaction((tx) => tx.query(INSERT, row(spec.entityId)));
      } catch (error) {
        failure ??= error;
        deadline = 0; // stop every loop: a failing store is a broken bench, not a figure
        return;
      }
      latencies?.push(performance.now() - begin);
      ops += 1;
    }
  };
  await Promise.all(Array.from({ length: spec.concurrency }, loop));
  if (failure !== undefined) throw new Error('raw insert failed', { cause: failure });
  return { ops, seconds: (performance.now() - started) / 1000 };
}

export async function measureStoreInserts(store: InsertTarget, spec: StoreLoadSpec): Promise<StoreLoadResult> {
  await store.exec(CREATE_TABLE);
  const warmup = await phase(store, spec, spec.warmupSeconds, undefined);
  const latencies: number[] = [];
  const measured = await phase(store, spec, spec.durationSeconds, latencies);
  const counted = await store.query<{ n: number }>(`SELECT count(*)::int AS n FROM ${RAW_TABLE}`);
  return {
    warmupOps: warmup.ops,
    measured: summarize(latencies, measured.ops, measured.seconds),
    rowsInTable: counted.rows[0]?.n ?? 0,
  };
}

function adaptPGlite(db: Pick<PGlite, 'query' | 'exec'>): Queryable {
  return {
    async query<Row>(sql: string, params: readonly unknown[] = []) {
      const result = await db.query<Row>(sql, params as unknown[]);
      return { rows: result.rows, rowCount: result.affectedRows ?? 0 };
    },
    async exec(sql: string) {
      await db.exec(sql);
    },
  };
}

/**
 * PGlite as it starts by default, with fsync off (its `-F` start parameter): commits are not durable. Measured
 * beside the gateway's store, which writes its WAL synchronously, this shows what durable commits cost.
 */
export async function openNonDurablePGlite(dataDir: string): Promise<InsertTarget & { close(): Promise<void> }> {
  const db = await PGlite.create(dataDir);
  const root = adaptPGlite(db);
  return {
    query: root.query,
    exec: root.exec,
    transaction: (work) => db.transaction((tx) => work(adaptPGlite(tx))),
    close: () => db.close(),
  };
}
