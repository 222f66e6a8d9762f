-- A payment has at most one acquirer attempt open at a time (payments/attempts.ts). Two runs making the same payment
-- (a schedule execution taken over while the first run still held the acquirer's call, a resumed Idempotency-Key)
-- could each check that no attempt was open and then open one, and the acquirer charged twice: the check and the
-- opening were not one step. Now the second opening conflicts here, and its run never asks the acquirer.
--
-- Attempts such a race left open before this index are closed first: all but the oldest open attempt of a payment.
-- They can never be finished otherwise (the ledger keeps the payment the other attempt recorded, so their own answer
-- is never written and the recovery job would take them up again and again). 'recorded' when the payment is written
-- (what the outcome means), else 'unknown'; either way the acquirer's record of them is where a double charge shows.
WITH ranked AS (
  SELECT a.id, EXISTS (SELECT 1 FROM payments p WHERE p.id = a.payment_id) AS payment_written,
         row_number() OVER (PARTITION BY a.payment_id ORDER BY a.created_at, a.id) AS rank
    FROM acquirer_attempts a
   WHERE a.finished_at IS NULL
)
UPDATE acquirer_attempts a
   SET finished_at = now(), outcome = CASE WHEN ranked.payment_written THEN 'recorded' ELSE 'unknown' END
  FROM ranked
 WHERE a.id = ranked.id AND ranked.rank > 1;

CREATE UNIQUE INDEX acquirer_attempts_one_open_idx ON acquirer_attempts (payment_id) WHERE finished_at IS NULL;
