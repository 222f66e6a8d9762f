-- Hosted checkouts (COMPAT §2). A checkout holds the merchant's validated parameters for the payment the
-- shopper will make in the widget; card data is never among them (the shopper's submit is not stored).
-- Whether it is open, paid or in progress is derived from its attempts (checkout_payments joined to
-- payments), never kept in a second copy that could disagree with the payment rows.
CREATE TABLE checkouts (
  id              text PRIMARY KEY CHECK (id ~ '^[0-9A-F]{32}\.[a-z0-9-]+$' AND length(id) BETWEEN 32 AND 48),
  entity_id       char(32) NOT NULL,
  -- [[name, value], ...] in the order sent: a jsonb array keeps order, a jsonb object would not.
  parameters      jsonb NOT NULL,
  -- The BootstrapSnapshot taken at creation: paymentWidgets.js is rendered from it, so its bytes (and the
  -- integrity hash handed out) never change for the checkout.
  bootstrap       jsonb NOT NULL,
  created_at      timestamptz NOT NULL,
  expires_at      timestamptz NOT NULL,
  updated_at      timestamptz NOT NULL,
  deleted_at      timestamptz,
  -- When the merchant read a final result: the status call is one-shot.
  result_read_at  timestamptz
);

-- One row per shopper submit that got past the checks. The payment id is chosen before the payment is
-- made, so the link exists before the payment row: a crash in between leaves an attempt without a payment,
-- which counts as in progress for a short lease and is ignored afterwards.
CREATE TABLE checkout_payments (
  checkout_id  text NOT NULL REFERENCES checkouts (id) ON DELETE CASCADE,
  attempt      integer NOT NULL CHECK (attempt > 0),
  payment_id   char(32) NOT NULL UNIQUE,
  started_at   timestamptz NOT NULL,
  PRIMARY KEY (checkout_id, attempt)
);

-- Status reads of GET /v1/checkouts/{id}/payment in the last minute, counted in the database so that
-- every gateway instance sharing it enforces the same limit. Rows older than the window are pruned
-- whenever the checkout is read.
CREATE TABLE checkout_status_reads (
  checkout_id  text NOT NULL REFERENCES checkouts (id) ON DELETE CASCADE,
  read_at      timestamptz NOT NULL
);

CREATE INDEX checkout_status_reads_checkout_idx ON checkout_status_reads (checkout_id, read_at);

-- Everything that happens later (DESIGN principle 4): claimed with FOR UPDATE SKIP LOCKED by any number of
-- workers, at-least-once, each job's effect idempotent. unique_key makes scheduling idempotent: a second
-- schedule with the same key is a no-op, whether the first job is pending, done or given up.
CREATE TABLE jobs (
  id            char(32) PRIMARY KEY,
  kind          text NOT NULL,
  unique_key    text UNIQUE,
  payload       jsonb NOT NULL,
  run_at        timestamptz NOT NULL,
  -- Counted when a worker claims the job, so a worker that dies mid-job still uses up an attempt.
  attempts      integer NOT NULL DEFAULT 0,
  -- A claim is a lease: past locked_until another worker may take the job over. claim_token tells a
  -- worker whose lease was taken over that its late result no longer counts.
  locked_until  timestamptz,
  claim_token   char(32),
  done_at       timestamptz,
  -- Given up: attempts exhausted or a permanent error; last_error says why.
  failed_at     timestamptz,
  last_error    text,
  created_at    timestamptz NOT NULL
);

CREATE INDEX jobs_due_idx ON jobs (run_at) WHERE done_at IS NULL AND failed_at IS NULL;
