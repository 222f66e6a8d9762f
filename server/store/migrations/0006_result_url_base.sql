-- Doc 1 §3 rule 3: the base address (ending with a slash) a merchant registers for its shoppers' returns. The
-- 29-minute call goes to a result URL the payment page posted only when it lies under this base: the page is
-- the shopper's, and the gateway must not call whatever address a shopper names (checkouts/callbacks.ts).
ALTER TABLE entities ADD COLUMN shopper_result_url_base text;
