-- Settlements (COMPAT §14, spec doc 3 §2.10, §2.17): what an acquirer reports it settled for a merchant entity on a day
-- — one batch (the reports API's "aggregation") per entity, clearing institute, settlement day and settlement
-- currency, and its records in the order the acquirer listed them, each matched against the gateway's payments.
-- Written once per batch, in one transaction with its records; read by the reports API and the reconciliation file.
CREATE TABLE settlement_batches (
  id                      char(32) PRIMARY KEY,
  entity_id               char(32) NOT NULL REFERENCES entities (id),
  -- The acquirer's name in the registry (the clearing institute).
  clearing_institute      text NOT NULL,
  settlement_date         date NOT NULL,
  settlement_currency     char(3) NOT NULL,
  -- What reaches the merchant: the positive records minus the negative ones and the fees, in the settlement currency.
  settlement_amount_minor bigint NOT NULL,
  transaction_count       integer NOT NULL,
  -- Test entities and testMode payments settle into test batches (the reports' testMode).
  test                    boolean NOT NULL,
  created_at              timestamptz NOT NULL,
  UNIQUE (entity_id, clearing_institute, settlement_date, settlement_currency, test)
);
CREATE INDEX settlement_batches_by_day ON settlement_batches (entity_id, settlement_date);

CREATE TABLE settlement_records (
  id                        char(32) PRIMARY KEY,
  batch_id                  char(32) NOT NULL REFERENCES settlement_batches (id),
  -- The record's place in the acquirer's list (the detail report's and the file's default order).
  position                  integer NOT NULL,
  record_type               text NOT NULL CHECK (record_type IN ('SETTLED', 'CHARGEBACK', 'CHARGEBACK REVERSAL', 'FEE')),
  transaction_type          text NOT NULL,
  cashflow                  text NOT NULL CHECK (cashflow IN ('POS', 'NEG')),
  clearing_merchant_id      text NOT NULL,
  settlement_tx_id          text,
  -- The gateway payment the acquirer names (UniqueID) and what it says of it; matching decides what it really is.
  payment_id                char(32),
  short_id                  text,
  connector_tx_id1          text,
  connector_tx_id2          text,
  connector_tx_id3          text,
  merchant_transaction_id   text,
  merchant_invoice_id       text,
  amount_minor              bigint NOT NULL,
  currency                  char(3) NOT NULL,
  brand                     text,
  presentment_at            timestamptz,
  settlement_amount_minor   bigint NOT NULL,
  settlement_currency       char(3) NOT NULL,
  settlement_fee_minor      bigint,
  -- Settlement currency per transaction currency unit, as the acquirer quotes it (1 when they are the same).
  fx_rate                   numeric(20, 10) NOT NULL,
  settlement_date           date NOT NULL,
  settlement_status         text NOT NULL CHECK (settlement_status IN ('SUCCESS', 'FAILED')),
  descriptor                text,
  account_last4             text,
  bank_code                 text,
  account_holder            text,
  reason_code               text,
  reason_desc               text,
  settlement_format         text NOT NULL,
  matching_status           text CHECK (matching_status IN ('MATCHED', 'MULTIPLE_MATCHES', 'NOT_MATCHED')),
  matched_payment_ids       char(32)[] NOT NULL DEFAULT '{}',
  chargeback_id             char(32),
  UNIQUE (batch_id, position)
);
