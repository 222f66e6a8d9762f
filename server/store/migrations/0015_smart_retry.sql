-- Smart retry (COMPAT §15, spec 01 §1): per merchant entity, off unless a row here says otherwise. A DB or PA that
-- the default acquirer rejects with one of `codes` (or cannot reach) is tried once more at `fallback_acquirer`
-- (domain/smartRetry.ts, payments/smartRetry.ts).
CREATE TABLE smart_retry_settings (
  entity_id          char(32) PRIMARY KEY REFERENCES entities (id) ON DELETE CASCADE,
  enabled            boolean NOT NULL,
  -- The merchant's own list of soft-reject codes, or NULL for the default list (which follows the gateway's
  -- version). Never 900.100.300: after a timeout with an uncertain result the first acquirer may have charged.
  codes              text[] CHECK (codes IS NULL OR (cardinality(codes) > 0 AND NOT '900.100.300' = ANY (codes))),
  standalone         boolean NOT NULL,
  card_on_file       boolean NOT NULL,
  -- A name of ACQUIRERS, checked when set; a payment retries only while it is configured and not the default.
  fallback_acquirer  text NOT NULL,
  updated_at         timestamptz NOT NULL
);
