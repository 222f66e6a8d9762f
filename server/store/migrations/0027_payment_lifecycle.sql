-- What happened to a payment, as the back office lists and filters it (domain/backOffice.ts lifecycleOf): written by
-- the ledger in the transaction that records an approved child (a capture, refund, reversal, chargeback or its
-- reversal), under the payment's row lock. NULL: nothing has been done to it, its state is its status.
ALTER TABLE payments ADD COLUMN lifecycle text;

-- The payments that had children before this column: their state is worked out once, by the rule itself, in a job.
INSERT INTO jobs (id, kind, unique_key, payload, run_at, created_at)
VALUES (md5('payments.lifecycle-backfill'), 'payments.lifecycle-backfill', 'payments.lifecycle-backfill', '{}'::jsonb, now(), now());
