-- Idempotency-Key (Stripe's semantics, kept 24 hours): a request with a key the entity used before gets the answer
-- the first one got, and one resource, whatever happens in between (http/idempotency.ts). The resource's id is
-- chosen when the key is first seen, so a request that a crash interrupted is finished under the same id.
CREATE TABLE idempotency_keys (
  entity_id    char(32) NOT NULL,
  key          text NOT NULL,
  -- The endpoint the key was used on: POST /v1/payments, POST /v1/payments/{id}, POST /v1/checkouts.
  scope        text NOT NULL,
  -- HMAC of the request's parameters (keyed from the card-data key: a card number cannot be guessed from it).
  fingerprint  char(64) NOT NULL,
  resource_id  text NOT NULL,
  instance_id  text NOT NULL,
  -- {status, body} of the answer, once there is one.
  answer       jsonb,
  created_at   timestamptz NOT NULL,
  PRIMARY KEY (entity_id, key)
);
CREATE INDEX idempotency_keys_created_idx ON idempotency_keys (created_at);
