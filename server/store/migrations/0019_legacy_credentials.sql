-- Legacy credentials (COMPAT §1): authentication.userId / authentication.password, for clients that send no
-- Authorization header. The password is kept only as a salted scrypt hash (PHC string, merchants/passwordHash.ts):
-- unlike an access token it may be short or chosen by a person (the demo pair), so a fast hash would not do.
CREATE TABLE legacy_credentials (
  user_id        char(32) PRIMARY KEY CHECK (user_id ~ '^[0-9a-f]{32}$'),
  password_hash  text NOT NULL,
  label          text NOT NULL,
  -- The demo merchant's public pair (README, start banner): a live start revokes it (merchants/demo.ts).
  demo           boolean NOT NULL DEFAULT false,
  created_at     timestamptz NOT NULL DEFAULT now(),
  revoked_at     timestamptz
);

CREATE TABLE legacy_credential_entities (
  user_id    char(32) NOT NULL REFERENCES legacy_credentials (user_id) ON DELETE CASCADE,
  entity_id  char(32) NOT NULL REFERENCES entities (id) ON DELETE CASCADE,
  PRIMARY KEY (user_id, entity_id)
);
CREATE INDEX legacy_credential_entities_entity ON legacy_credential_entities (entity_id);
