-- Asynchronous brands by family (COMPAT §7). Besides a provider page, a pending payment may wait for money the
-- shopper pays later: a cash voucher (the page shows the voucher) or a prepayment (no page at all). A provider page
-- the shopper left "pending" waits for the provider's word the same way. Such waits end by the simulated arrival
-- (a job), the operator's word, or their deadline (expires_at, then extended past the page's ten minutes).
ALTER TABLE payment_redirects DROP CONSTRAINT payment_redirects_kind_check;
ALTER TABLE payment_redirects ADD CONSTRAINT payment_redirects_kind_check
  CHECK (kind IN ('threeDSecure', 'provider', 'cashVoucher', 'prepayment'));
-- When the shopper left the provider's page with the payment pending (a transfer the bank has not confirmed yet).
ALTER TABLE payment_redirects ADD COLUMN left_pending_at timestamptz;

-- The brands an entity offers (COMPAT §7), when the operator has said so; without a row, the default of the
-- gateway's environment (every brand in test; in live every brand but the simulated asynchronous ones).
CREATE TABLE entity_brands (
  entity_id   char(32) PRIMARY KEY REFERENCES entities (id) ON DELETE CASCADE,
  brands      text[] NOT NULL,
  updated_at  timestamptz NOT NULL
);
