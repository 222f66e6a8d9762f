-- Merchant users of the back office, roles, a second factor and per-account sign-in delays (issue 34 §2 and §4).

-- A person of a merchant (an entity): signs in with an e-mail address and a password (a salted scrypt hash, set by
-- accepting an invitation; null until then), with a role: viewer (reads), refunds (and captures, refunds, reverses),
-- admin (and the entity's users and webhooks). A removed user's row stays: their actions keep naming them.
CREATE TABLE merchant_users (
  id                char(32) PRIMARY KEY,
  entity_id         char(32) NOT NULL REFERENCES entities (id),
  email             text NOT NULL,
  role              text NOT NULL CHECK (role IN ('viewer', 'refunds', 'admin')),
  password_hash     text,
  invited_by        text NOT NULL,
  created_at        timestamptz NOT NULL,
  activated_at      timestamptz,
  removed_at        timestamptz,
  -- The TOTP secret (RFC 6238) sealed in the vault, once enrolled; the last time step a code was accepted for.
  totp_secret_id    char(32),
  totp_enrolled_at  timestamptz,
  totp_last_step    bigint
);
-- One live account per address (a removed user's address may be invited again).
CREATE UNIQUE INDEX merchant_users_email_idx ON merchant_users (email) WHERE removed_at IS NULL;
CREATE INDEX merchant_users_entity_idx ON merchant_users (entity_id, created_at);

ALTER TABLE operators ADD COLUMN totp_secret_id char(32);
ALTER TABLE operators ADD COLUMN totp_enrolled_at timestamptz;
ALTER TABLE operators ADD COLUMN totp_last_step bigint;

-- An invitation: the one-time code (kept as its SHA-256) that lets the invited person set their password, until it
-- expires. A new invitation of the same user replaces the open one.
CREATE TABLE merchant_user_invitations (
  code_hash   char(64) PRIMARY KEY,
  user_id     char(32) NOT NULL REFERENCES merchant_users (id) ON DELETE CASCADE,
  created_at  timestamptz NOT NULL,
  expires_at  timestamptz NOT NULL,
  used_at     timestamptz
);
CREATE INDEX merchant_user_invitations_user_idx ON merchant_user_invitations (user_id);

-- A session is an operator's or a merchant user's. Sessions opened with an access token (before merchant users) end.
ALTER TABLE dashboard_sessions ADD COLUMN user_id char(32) REFERENCES merchant_users (id) ON DELETE CASCADE;
UPDATE dashboard_sessions SET ended_at = now() WHERE token_hash IS NOT NULL AND ended_at IS NULL;
ALTER TABLE dashboard_sessions DROP CONSTRAINT dashboard_sessions_check;
ALTER TABLE dashboard_sessions ADD CONSTRAINT dashboard_sessions_principal_check CHECK (num_nonnulls(operator_id, token_hash, user_id) = 1);

-- Between a right password and the second factor: the challenge (kept as its SHA-256) the code is sent with, and, at
-- the first sign-in, the secret being enrolled (sealed in the vault) until a code of it is accepted.
CREATE TABLE dashboard_sign_in_challenges (
  id_hash          char(64) PRIMARY KEY,
  operator_id      char(32) REFERENCES operators (id) ON DELETE CASCADE,
  user_id          char(32) REFERENCES merchant_users (id) ON DELETE CASCADE,
  enrol_secret_id  char(32),
  codes_tried      integer NOT NULL DEFAULT 0,
  created_at       timestamptz NOT NULL,
  expires_at       timestamptz NOT NULL,
  CHECK (num_nonnulls(operator_id, user_id) = 1)
);

-- Sign-in attempts per account name (known or not), counted before the password is hashed: past the free ones, the
-- next attempt waits (next_at). A full sign-in deletes the row; so does a day without attempts (the pruning job).
CREATE TABLE dashboard_sign_in_delays (
  account     text PRIMARY KEY,
  attempts    integer NOT NULL,
  next_at     timestamptz NOT NULL,
  updated_at  timestamptz NOT NULL
);

-- Sign-ins and an operator's own account actions belong to no entity.
ALTER TABLE dashboard_actions ALTER COLUMN entity_id DROP NOT NULL;
