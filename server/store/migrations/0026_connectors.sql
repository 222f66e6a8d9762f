-- Connectors to real providers (issue 33).
--
-- An acquirer attempt may wait for its provider's final word after the call: the provider answered pending (its 3-D
-- Secure challenge, its page for an asynchronous brand), or the answer was lost after the request was sent (a
-- timeout, a reset, an answer that could not be read). Its payment is recorded pending meanwhile; the attempt stays
-- open, and the recovery job asks the provider again at next_inquiry_at (the shopper's return and the provider's
-- notification may settle it sooner). An attempt is never sent twice: only asked about.
ALTER TABLE acquirer_attempts ADD COLUMN next_inquiry_at timestamptz;
ALTER TABLE acquirer_attempts ADD COLUMN inquiries integer NOT NULL DEFAULT 0;
CREATE INDEX acquirer_attempts_inquiry_idx ON acquirer_attempts (next_inquiry_at) WHERE finished_at IS NULL AND next_inquiry_at IS NOT NULL;
-- refused: the provider refused the request as it stood (a parameter it would not take), so nothing was made.
ALTER TABLE acquirer_attempts DROP CONSTRAINT acquirer_attempts_outcome_check;
ALTER TABLE acquirer_attempts ADD CONSTRAINT acquirer_attempts_outcome_check CHECK (outcome IN ('recorded', 'unknown', 'refused'));

-- A merchant entity's credentials at a provider (PUT /admin/v1/entities/{id}/acquirers/{name}): the provider's entity
-- id, and its access token sealed in the vault like card data (rotated with it), never shown again.
CREATE TABLE acquirer_credentials (
  entity_id          char(32) NOT NULL REFERENCES entities (id) ON DELETE CASCADE,
  -- A name of ACQUIRERS that ACQUIRERS_FILE describes as a connector.
  acquirer           text NOT NULL,
  upstream_entity_id text NOT NULL,
  access_token_id    char(32) NOT NULL,
  updated_at         timestamptz NOT NULL,
  PRIMARY KEY (entity_id, acquirer)
);

-- Per entity, which acquirer a new payment goes to, by brand, currency and amount (the first rule that matches; the
-- default acquirer when none does): domain/routingRules.ts.
CREATE TABLE routing_rules (
  entity_id  char(32) PRIMARY KEY REFERENCES entities (id) ON DELETE CASCADE,
  rules      jsonb NOT NULL,
  updated_at timestamptz NOT NULL
);

-- A provider's notification or settlement record names its own reference: the payment it decided is found by it.
CREATE INDEX payments_acquirer_reference_idx ON payments (acquirer_reference) WHERE acquirer_reference IS NOT NULL;
