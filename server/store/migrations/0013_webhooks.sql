-- Webhooks (COMPAT §13): per merchant entity, the URL the gateway notifies of every change of a payment,
-- registration or schedule, encrypted with the webhook's secret.
CREATE TABLE webhooks (
  id             char(32) PRIMARY KEY,
  entity_id      char(32) NOT NULL,
  url            text NOT NULL,
  -- The notification types sent (PAYMENT, REGISTRATION, SCHEDULE, RISK): only these.
  types          text[] NOT NULL,
  -- ALL, or NON_CUSTOMER_DATA (without customer, billing, shipping, card.holder).
  fields         text NOT NULL CHECK (fields IN ('ALL', 'NON_CUSTOMER_DATA')),
  wrapper        text NOT NULL CHECK (wrapper IN ('NONE', 'JSON')),
  -- The 64-hex secret, sealed in the vault like card data.
  secret_id      char(32) NOT NULL REFERENCES vault_items (id),
  -- pending: created, waiting for its activation message to get a 2xx; active: notified; inactive: switched off
  -- by the operator or after 5 days of failed deliveries (reason says which).
  status         text NOT NULL CHECK (status IN ('pending', 'active', 'inactive')),
  status_reason  text,
  -- The first failed delivery since the last successful one: 5 days of failures switch the webhook off.
  failing_since  timestamptz,
  created_at     timestamptz NOT NULL,
  updated_at     timestamptz NOT NULL
);
CREATE INDEX webhooks_entity_idx ON webhooks (entity_id) WHERE status = 'active';

-- One notification of one event to one webhook: created with the event, in its transaction (events/outbox.ts), and
-- sent by the job of the same id until a 2xx, or given up 30 days after it was created.
CREATE TABLE webhook_deliveries (
  id             char(32) PRIMARY KEY,
  webhook_id     char(32) NOT NULL REFERENCES webhooks (id) ON DELETE CASCADE,
  event_id       bigint NOT NULL REFERENCES events (id),
  created_at     timestamptz NOT NULL,
  delivered_at   timestamptz,
  given_up_at    timestamptz,
  UNIQUE (webhook_id, event_id)
);
CREATE INDEX webhook_deliveries_webhook_idx ON webhook_deliveries (webhook_id, created_at);

-- Every attempt: when, the HTTP status (null when none came), how long it took, why it failed. Never the plaintext.
CREATE TABLE webhook_attempts (
  id             bigserial PRIMARY KEY,
  delivery_id    char(32) NOT NULL REFERENCES webhook_deliveries (id) ON DELETE CASCADE,
  attempted_at   timestamptz NOT NULL,
  http_status    integer,
  latency_ms     integer NOT NULL,
  error          text
);
CREATE INDEX webhook_attempts_delivery_idx ON webhook_attempts (delivery_id, attempted_at);
