import type { Store } from '../store/index.ts';
import { insertPayments, type PaymentRecord } from './repository.ts';

/** Rows per INSERT; 20 columns each stays far below PostgreSQL's 65535 bind parameters. */
const MAX_BATCH = 200;

interface Pending {
  readonly payment: PaymentRecord;
  readonly resolve: () => void;
  readonly reject: (error: unknown) => void;
}

export interface PaymentWriter {
  /** Resolves once the payment is committed; only then may the caller answer the merchant. */
  write(payment: PaymentRecord): Promise<void>;
}

/**
 * Group commit for new payments: payments that arrive while writes are in flight are committed together in
 * the next single multi-row INSERT, so a burst costs one round trip and one commit instead of one each.
 * Every caller still waits for its own row to be durable. If a batch fails, its rows are retried one by
 * one, so one bad row cannot fail the others.
 *
 * `concurrentWrites` batches may be in flight at once: PostgreSQL commits several in parallel on separate
 * connections; PGlite, a single connection, gains nothing from more than one.
 */
export function createPaymentWriter(store: Store, concurrentWrites = store.kind === 'postgres' ? 8 : 1): PaymentWriter {
  const queue: Pending[] = [];
  let inFlight = 0;
  let scheduled = false;

  async function insertOneByOne(batch: readonly Pending[]): Promise<void> {
    for (const pending of batch) {
      try {
        await insertPayments(store, [pending.payment]);
        pending.resolve();
      } catch (error) {
        pending.reject(error);
      }
    }
  }

  async function writeBatch(): Promise<void> {
    const batch = queue.splice(0, MAX_BATCH);
    if (batch.length === 0) return;
    inFlight++;
    try {
      await insertPayments(store, batch.map((pending) => pending.payment));
      for (const pending of batch) pending.resolve();
    } catch (error) {
      if (batch.length === 1) batch[0]?.reject(error);
      else await insertOneByOne(batch);
    } finally {
      inFlight--;
      schedule();
    }
  }

  // Start on the next turn of the event loop, so requests parsed in the same turn share a batch.
  function schedule(): void {
    if (scheduled || inFlight >= concurrentWrites || queue.length === 0) return;
    scheduled = true;
    setImmediate(() => {
      scheduled = false;
      void writeBatch();
      schedule();
    });
  }

  return {
    write(payment) {
      return new Promise<void>((resolve, reject) => {
        queue.push({ payment, resolve, reject });
        schedule();
      });
    },
  };
}
