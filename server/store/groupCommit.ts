import type { Queryable, Store } from './types.ts';

/**
 * Group commit: items submitted while writes are in flight are written together, in the next single transaction,
 * so a burst costs one round trip per statement and one commit instead of one each. Every caller still waits for
 * its own item to be committed, and gets its own result. A batch that fails is retried item by item, each in a
 * transaction of its own, so one bad item fails only its own caller.
 *
 * `concurrent` batches may be in flight at once: PostgreSQL commits several in parallel on separate connections;
 * PGlite, a single connection, gains nothing from more than one.
 */

export interface GroupCommit<T, R> {
  /** Resolves once the item is committed, with what `writeBatch` made of it. */
  submit(item: T): Promise<R>;
}

/** Writes a batch inside the transaction it is given; returns one result per item, in order. */
export type BatchWriter<T, R> = (tx: Queryable, items: readonly T[]) => Promise<readonly R[]>;

interface Queued<T, R> {
  readonly item: T;
  readonly resolve: (result: R) => void;
  readonly reject: (error: unknown) => void;
}

/** Items per batch: each batch is a handful of multi-row statements, far below PostgreSQL's limits. */
const MAX_BATCH = 200;

export function createGroupCommit<T, R>(
  store: Store,
  writeBatch: BatchWriter<T, R>,
  concurrent = store.kind === 'postgres' ? 8 : 1,
): GroupCommit<T, R> {
  const queue: Queued<T, R>[] = [];
  let inFlight = 0;
  let scheduled = false;

  async function writeOneByOne(batch: readonly Queued<T, R>[]): Promise<void> {
    for (const queued of batch) {
      try {
        const [result] = await store.transaction((tx) => writeBatch(tx, [queued.item]));
        queued.resolve(result as R);
      } catch (error) {
        queued.reject(error);
      }
    }
  }

  async function flush(): Promise<void> {
    const batch = queue.splice(0, MAX_BATCH);
    if (batch.length === 0) return;
    inFlight++;
    try {
      const results = await store.transaction((tx) => writeBatch(tx, batch.map((queued) => queued.item)));
      batch.forEach((queued, index) => queued.resolve(results[index] as R));
    } catch (error) {
      if (batch.length === 1) batch[0]?.reject(error);
      else await writeOneByOne(batch);
    } finally {
      inFlight--;
      schedule();
    }
  }

  // Start on the next turn of the event loop, so requests parsed in the same turn share a batch.
  function schedule(): void {
    if (scheduled || inFlight >= concurrent || queue.length === 0) return;
    scheduled = true;
    setImmediate(() => {
      scheduled = false;
      void flush();
      schedule();
    });
  }

  return {
    submit(item) {
      return new Promise<R>((resolve, reject) => {
        queue.push({ item, resolve, reject });
        schedule();
      });
    },
  };
}
