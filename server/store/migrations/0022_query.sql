-- The query API (COMPAT §14, spec doc 3 §2.16, server/query/): every transaction the gateway made found by its id, the
-- merchant's reference (merchantTransactionId), its short id or a time range, within one entity, on a store of
-- millions of payments. Each lookup is one index range read; lists are read in (time, id) order from the index.

-- The short id (`dddd.dddd.dddd`): the payment id read as a 128-bit number, modulo 10^12, in three groups of four
-- digits — the same value as shortIdOf in payments/view.ts (statement descriptors and notifications carry it; a test
-- checks the two agree). Horner's rule over the id's eight 16-bit groups, modulo 10^12 at each step, so every
-- intermediate value stays below 2^56 and fits a bigint: about 6 µs a row in the embedded store, where numeric
-- arithmetic on the whole number, or a loop, cost 2 to 6 times more (every payment insert computes it).
CREATE FUNCTION payment_short_id(id text) RETURNS text
  LANGUAGE plpgsql IMMUTABLE STRICT PARALLEL SAFE
  AS $$
  DECLARE
    digits text := lpad(((((((((('x' || substr(id, 1, 4))::bit(16)::int::bigint
      * 65536 + ('x' || substr(id, 5, 4))::bit(16)::int) % 1000000000000
      * 65536 + ('x' || substr(id, 9, 4))::bit(16)::int) % 1000000000000
      * 65536 + ('x' || substr(id, 13, 4))::bit(16)::int) % 1000000000000
      * 65536 + ('x' || substr(id, 17, 4))::bit(16)::int) % 1000000000000
      * 65536 + ('x' || substr(id, 21, 4))::bit(16)::int) % 1000000000000
      * 65536 + ('x' || substr(id, 25, 4))::bit(16)::int) % 1000000000000
      * 65536 + ('x' || substr(id, 29, 4))::bit(16)::int) % 1000000000000
    )::text, 12, '0');
  BEGIN
    RETURN substr(digits, 1, 4) || '.' || substr(digits, 5, 4) || '.' || substr(digits, 9, 4);
  END
  $$;

-- Stored with the row (existing rows computed here): nothing that writes a payment can give it another value.
ALTER TABLE payments ADD COLUMN short_id text GENERATED ALWAYS AS (payment_short_id(id)) STORED;
CREATE INDEX payments_entity_short_id_idx ON payments (entity_id, short_id);

-- By reference and by time, in the order the answers list them (time, then id): the page is read from the index.
DROP INDEX payments_entity_merchant_tx_idx;
CREATE INDEX payments_entity_merchant_tx_idx ON payments (entity_id, merchant_transaction_id, created_at, id)
  WHERE merchant_transaction_id IS NOT NULL;
DROP INDEX payments_entity_created_idx;
CREATE INDEX payments_entity_created_idx ON payments (entity_id, created_at, id);

-- A smart retry's fallback names the rejected attempt (COMPAT §15): the two are linked transactions of each other.
CREATE INDEX payments_soft_decline_idx ON payments ((result_details->>'SoftDeclineTransactionId'))
  WHERE result_details ? 'SoftDeclineTransactionId';

-- Schedule records (SD at creation, DS at cancellation) and registration records (RG at creation, DR at deletion),
-- listed when paymentTypes names them.
CREATE INDEX schedules_entity_cancelled_idx ON schedules (entity_id, cancelled_at, id) WHERE cancelled_at IS NOT NULL;
CREATE INDEX schedules_entity_merchant_tx_idx ON schedules (entity_id, (request_echo->>'merchantTransactionId'));
CREATE INDEX schedules_entity_short_id_idx ON schedules (entity_id, payment_short_id(id));
CREATE INDEX registrations_entity_created_idx ON registrations (entity_id, created_at, id);
CREATE INDEX registrations_entity_deleted_idx ON registrations (entity_id, deleted_at, deregistration_id) WHERE deregistration_id IS NOT NULL;
CREATE INDEX registrations_entity_merchant_tx_idx ON registrations (entity_id, (request_echo->>'merchantTransactionId'));
CREATE INDEX registrations_entity_short_id_idx ON registrations (entity_id, payment_short_id(id));
CREATE INDEX registrations_deregistration_idx ON registrations (deregistration_id) WHERE deregistration_id IS NOT NULL;
CREATE INDEX registrations_entity_deregistration_short_id_idx ON registrations (entity_id, payment_short_id(deregistration_id))
  WHERE deregistration_id IS NOT NULL;
