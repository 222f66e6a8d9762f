-- Throttling (COMPAT §17) and risk velocity rules, counted in the store so every gateway instance shares them.
--
-- Request limits are counted in fixed windows (a minute, a second) aligned on the clock: one row per bucket
-- ("requestsPerMinute:<entity>", "paymentReadsPerMinute:<entity>:<id>", "auth-failures:<address>", ...) and window,
-- raised by one INSERT ... ON CONFLICT DO UPDATE that never lets `hits` pass `cap` (throttling/counters.ts). The
-- table is unlogged: counters are worth less than the WAL flush they would cost each request, and a crash that
-- empties them only forgets the current window. Rows are pruned once expired.
CREATE UNLOGGED TABLE throttle_counters (
  bucket        text NOT NULL,
  window_start  bigint NOT NULL,
  hits          bigint NOT NULL,
  -- What the last statement added (0: it was refused), returned to the caller; `cap` is the limit it used.
  taken         bigint NOT NULL,
  cap           bigint NOT NULL,
  expires_at    timestamptz NOT NULL,
  PRIMARY KEY (bucket, window_start)
) WITH (fillfactor = 70);
CREATE INDEX throttle_counters_expiry_idx ON throttle_counters (expires_at);

-- The counted request rows of 0009 are replaced by the counters above.
DROP TABLE rate_limit_hits;

-- Risk velocity rules (risk/velocity.ts): payments (count) and amounts (volume) per entity, account, IP, e-mail,
-- acquirer, per fixed window. Logged: a crash must not reset what a fraudster has already used up.
CREATE TABLE risk_counters (
  bucket        text NOT NULL,
  window_start  bigint NOT NULL,
  total         bigint NOT NULL,
  expires_at    timestamptz NOT NULL,
  PRIMARY KEY (bucket, window_start)
);
CREATE INDEX risk_counters_expiry_idx ON risk_counters (expires_at);

-- Chargebacks of an entity in a time range (the chargeback rate per BIN): a small index, chargebacks only.
CREATE INDEX payments_chargebacks_idx ON payments (entity_id, created_at) WHERE payment_type = 'CB';

-- Per merchant entity: limits that differ from the gateway's defaults (THROTTLE_*), and its risk rules (none
-- unless set). `limits` maps a limit's name to its number (0: no limit); `risk` a rule's name to its settings.
CREATE TABLE throttling_settings (
  entity_id   char(32) PRIMARY KEY REFERENCES entities (id) ON DELETE CASCADE,
  limits      jsonb NOT NULL,
  risk        jsonb NOT NULL,
  updated_at  timestamptz NOT NULL
);
