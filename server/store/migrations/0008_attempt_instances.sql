-- The gateway instance (store.instanceId) that is making an attempt's payment. If that process dies before the
-- payment is recorded, the next submit takes the checkout over at once instead of waiting for the attempt's lease.
-- Null for attempts from before this column: those still wait for the lease.
ALTER TABLE checkout_payments ADD COLUMN instance_id text;
