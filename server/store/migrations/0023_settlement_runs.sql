-- The settlement simulation (issue 21, COMPAT §14): which operations the simulated acquirers settled (each once,
-- whichever run and instance settled it), the days the daily run has run, and what an entity settles in and what
-- its simulated acquirer is told to add for tests.

-- An operation (a DB, CP, CD, RF, CB or CR payment row) settled into a batch: written with the batch, in its
-- transaction; an operation without a row here is still to be settled by a run whose cut-off is past its time.
CREATE TABLE settled_operations (
  payment_id  char(32) PRIMARY KEY,
  batch_id    char(32) NOT NULL REFERENCES settlement_batches (id),
  settled_at  timestamptz NOT NULL
);

-- The days the settlement run has run for (the daily job runs each past cut-off once; an operator may run a day again).
CREATE TABLE settlement_runs (
  settlement_date  date PRIMARY KEY,
  first_run_at     timestamptz NOT NULL,
  last_run_at      timestamptz NOT NULL
);

-- An entity's settlement: the currency its acquirers pay out in (NULL: each transaction's own), and the records the
-- simulated acquirer adds to each of its batches for tests: ones naming no payment of the gateway (NOT_MATCHED), and
-- transactions listed a second time by the merchant's reference only (matched by reference: MULTIPLE_MATCHES when
-- that reference fits several payments).
CREATE TABLE settlement_settings (
  entity_id            char(32) PRIMARY KEY REFERENCES entities (id),
  settlement_currency  char(3),
  unmatched_records    integer NOT NULL DEFAULT 0 CHECK (unmatched_records BETWEEN 0 AND 100),
  duplicate_records    integer NOT NULL DEFAULT 0 CHECK (duplicate_records BETWEEN 0 AND 100),
  updated_at           timestamptz NOT NULL
);

-- The operator's list of a day's settlements across entities.
CREATE INDEX settlement_batches_by_date ON settlement_batches (settlement_date);
