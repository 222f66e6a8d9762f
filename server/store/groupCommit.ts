import type { Queryable, Store } from './types.ts';

/**
 * Group commit: items submitted while writes are in flight are written together, in the next single transaction,
 * so a burst costs one round trip per statement and one commit instead of one each. Every caller still waits for
 * its own item to be committed, and gets its own result.
 *
 * The writers of one store share its transactions: each writer is a lane (opening acquirer attempts, the ledger, a
 * smart retry's switch, the simulated acquirer's records when they are durable), and a transaction takes what every
 * lane has queued. A payment passes through
 * several lanes one after the other (its attempt, the acquirer's answer, its row), so with lanes of their own each
 * commit would carry a fraction of the requests in flight; shared, every commit moves each of them a step on.
 *
 * A transaction that would carry a single statement (one lane's batch its writer writes in one: GroupCommitOptions) is
 * sent as that statement alone, atomic by itself, without BEGIN and COMMIT.
 *
 * A transaction that fails is retried item by item, each in a transaction of its own, so one bad item fails only its
 * own caller. `concurrent` transactions may be in flight at once: PostgreSQL commits several in parallel on separate
 * connections; PGlite, a single connection, gains nothing from more than one.
 */

export interface GroupCommit<T, R> {
  /** Resolves once the item is committed, with what the lane's writer made of it. */
  submit(item: T): Promise<R>;
}

/** Writes a batch inside the transaction it is given; returns one result per item, in order. */
export type BatchWriter<T, R> = (tx: Queryable, items: readonly T[]) => Promise<readonly R[]>;

interface Queued<T, R> {
  readonly item: T;
  readonly resolve: (result: R) => void;
  readonly reject: (error: unknown) => void;
}

interface Lane<T, R> {
  readonly write: BatchWriter<T, R>;
  readonly queue: Queued<T, R>[];
  /** Whether the writer writes these items in one statement (then sent alone, it needs no BEGIN and COMMIT). */
  readonly oneStatement?: (items: readonly T[]) => boolean;
}

export interface GroupCommitOptions<T> {
  /**
   * Whether the writer writes `items` in a single statement. A transaction that would carry only such a batch is sent
   * as that statement alone, atomic by itself: two round trips fewer (BEGIN, COMMIT).
   */
  readonly oneStatement?: (items: readonly T[]) => boolean;
}

/** A lane's share of one transaction. */
interface Taken<T, R> {
  readonly lane: Lane<T, R>;
  readonly batch: readonly Queued<T, R>[];
}

/** Items per lane and transaction: each batch is a handful of multi-row statements, far below PostgreSQL's limits. */
const MAX_BATCH = 200;

interface Committer {
  addLane<T, R>(write: BatchWriter<T, R>, options: GroupCommitOptions<T>): Lane<T, R>;
  schedule(): void;
}

function createCommitter(store: Store, concurrent: number): Committer {
  // Lanes have different item types; the committer only moves items between a lane's queue and its writer.
  const lanes: Lane<unknown, unknown>[] = [];
  let inFlight = 0;
  let scheduled = false;

  async function writeOneByOne(taken: readonly Taken<unknown, unknown>[]): Promise<void> {
    for (const { lane, batch } of taken) {
      for (const queued of batch) {
        try {
          const [result] = await store.transaction((tx) => lane.write(tx, [queued.item]));
          queued.resolve(result);
        } catch (error) {
          queued.reject(error);
        }
      }
    }
  }

  async function flush(): Promise<void> {
    const taken = lanes.filter((lane) => lane.queue.length > 0).map((lane) => ({ lane, batch: lane.queue.splice(0, MAX_BATCH) }));
    if (taken.length === 0) return;
    inFlight++;
    try {
      const only = taken.length === 1 ? taken[0] : undefined;
      const alone = only?.lane.oneStatement?.(only.batch.map((queued) => queued.item)) === true;
      const results = alone
        ? [await only.lane.write(store, only.batch.map((queued) => queued.item))]
        : await store.transaction(async (tx) => {
            const written: (readonly unknown[])[] = [];
            for (const { lane, batch } of taken) written.push(await lane.write(tx, batch.map((queued) => queued.item)));
            return written;
          });
      taken.forEach(({ batch }, laneIndex) => batch.forEach((queued, index) => queued.resolve(results[laneIndex]?.[index])));
    } catch (error) {
      const only = taken.length === 1 && taken[0]?.batch.length === 1 ? taken[0].batch[0] : undefined;
      if (only) only.reject(error);
      else await writeOneByOne(taken);
    } finally {
      inFlight--;
      schedule();
    }
  }

  // Start on the next turn of the event loop, so requests parsed in the same turn share a transaction.
  function schedule(): void {
    if (scheduled || inFlight >= concurrent || !lanes.some((lane) => lane.queue.length > 0)) return;
    scheduled = true;
    setImmediate(() => {
      scheduled = false;
      void flush();
      schedule();
    });
  }

  return {
    addLane<T, R>(write: BatchWriter<T, R>, options: GroupCommitOptions<T>): Lane<T, R> {
      const lane: Lane<T, R> = { write, queue: [], ...(options.oneStatement ? { oneStatement: options.oneStatement } : {}) };
      lanes.push(lane as unknown as Lane<unknown, unknown>);
      return lane;
    },
    schedule,
  };
}

const committers = new WeakMap<Store, Committer>();

/** A writer whose items are group-committed, in the transactions of every other writer of the store. */
export function createGroupCommit<T, R>(store: Store, write: BatchWriter<T, R>, options: GroupCommitOptions<T> = {}): GroupCommit<T, R> {
  let committer = committers.get(store);
  if (!committer) {
    committer = createCommitter(store, store.kind === 'postgres' ? 8 : 1);
    committers.set(store, committer);
  }
  const shared = committer;
  const lane = shared.addLane(write, options);
  return {
    submit(item) {
      return new Promise<R>((resolve, reject) => {
        lane.queue.push({ item, resolve, reject });
        shared.schedule();
      });
    },
  };
}
