import type { Queryable } from '../store/index.ts';

/**
 * Many payments at once, for query tests and the query bench: copies of one payment the API made (its row, so every
 * column is one the gateway writes), each with its own id, time and merchantTransactionId, made by one set-based
 * INSERT ... SELECT over generate_series per batch — not a request per payment. The columns are read from the table,
 * so a column added later is copied too.
 */

export interface PaymentSeed {
  /** The payment whose row is copied. */
  readonly templateId: string;
  readonly count: number;
  /** Makes the ids: md5(`<idSeed>:<n>`), n from 1 to count. Seeds of one store must differ. */
  readonly idSeed: string;
  /** The time of copy 1; copy n is (n − 1) × stepMs later. */
  readonly firstAt: Date;
  readonly stepMs: number;
  /** Copy n's merchantTransactionId: `<prefix><n>` (shown in its answers too); none: the template's. */
  readonly merchantTransactionIdPrefix?: string;
  /** Copy n's paymentType: the list's entry n modulo its length; none: the template's. */
  readonly paymentTypes?: readonly string[];
}

const BATCH = 100_000;

/** Copies as the seed says, in batches of BATCH rows (one statement, and transaction, each). */
export async function seedPayments(db: Queryable, seed: PaymentSeed): Promise<void> {
  const columns = await db.query<{ column_name: string }>(
    `SELECT column_name FROM information_schema.columns
      WHERE table_schema = current_schema() AND table_name = 'payments' AND is_generated = 'NEVER'
      ORDER BY ordinal_position`,
  );
  // $1 id seed, $2 first time, $3 step (ms), $4 reference prefix, $5 payment types, $6 template, $7/$8 the batch's range.
  const overrides: Readonly<Record<string, string>> = {
    id: `md5($1 || ':' || g)`,
    parent_id: 'NULL',
    checkout_id: 'NULL',
    created_at: `$2::timestamptz + (g - 1) * $3::bigint * interval '1 millisecond'`,
    merchant_transaction_id: `coalesce($4::text || g, t.merchant_transaction_id)`,
    request_echo: `CASE WHEN $4::text IS NULL THEN t.request_echo ELSE jsonb_set(t.request_echo, '{merchantTransactionId}', to_jsonb($4::text || g)) END`,
    payment_type: `coalesce(($5::text[])[1 + g % greatest(cardinality($5::text[]), 1)], t.payment_type)`,
  };
  const names = columns.rows.map((row) => row.column_name);
  const sql = `INSERT INTO payments (${names.join(', ')})
    SELECT ${names.map((name) => overrides[name] ?? `t.${name}`).join(', ')}
      FROM payments t, generate_series($7::int, $8::int) AS g
     WHERE t.id = $6`;
  for (let first = 1; first <= seed.count; first += BATCH) {
    const last = Math.min(seed.count, first + BATCH - 1);
    await db.query(sql, [
      seed.idSeed,
      seed.firstAt.toISOString(),
      seed.stepMs,
      seed.merchantTransactionIdPrefix ?? null,
      seed.paymentTypes ?? null,
      seed.templateId,
      first,
      last,
    ]);
  }
}
