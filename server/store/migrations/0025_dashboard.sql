-- The back office at /dashboard (issue 26): operator accounts, signed-in sessions, and what operators did.

-- An operator sees and acts for every entity; signs in with a name and a password kept only as a salted scrypt hash.
CREATE TABLE operators (
  id             char(32) PRIMARY KEY,
  name           text NOT NULL UNIQUE,
  password_hash  text NOT NULL,
  created_at     timestamptz NOT NULL,
  removed_at     timestamptz
);

-- One signed-in browser: the cookie holds a random id, kept here only as its SHA-256. A merchant's session holds the
-- hash of the access token it signed in with, so a revoked token ends it.
CREATE TABLE dashboard_sessions (
  id_hash        char(64) PRIMARY KEY,
  operator_id    char(32) REFERENCES operators (id) ON DELETE CASCADE,
  token_hash     char(64),
  csrf_token     text NOT NULL,
  created_at     timestamptz NOT NULL,
  last_seen_at   timestamptz NOT NULL,
  ended_at       timestamptz,
  CHECK ((operator_id IS NULL) <> (token_hash IS NULL))
);
CREATE INDEX dashboard_sessions_created_idx ON dashboard_sessions (created_at);

-- Who did what, when, through the dashboard: shown on the payment it was done to.
CREATE TABLE dashboard_actions (
  id             bigserial PRIMARY KEY,
  actor          text NOT NULL,
  entity_id      char(32) NOT NULL,
  payment_id     char(32),
  action         text NOT NULL,
  detail         jsonb NOT NULL,
  result_code    text,
  at             timestamptz NOT NULL
);
CREATE INDEX dashboard_actions_payment_idx ON dashboard_actions (payment_id, at) WHERE payment_id IS NOT NULL;
CREATE INDEX dashboard_actions_entity_idx ON dashboard_actions (entity_id, at);

-- The dashboard's list of every entity's payments, newest first.
CREATE INDEX payments_created_idx ON payments (created_at, id);
