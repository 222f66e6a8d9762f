-- Merchants: entities (channels) and the access tokens allowed to act for them.
CREATE TABLE entities (
  id          char(32) PRIMARY KEY CHECK (id ~ '^[0-9a-f]{32}$'),
  name        text NOT NULL,
  created_at  timestamptz NOT NULL DEFAULT now()
);

-- Tokens are stored only as SHA-256 hashes: they are long random strings, so a fast hash suffices
-- and a database dump does not reveal a usable token.
CREATE TABLE access_tokens (
  id          char(32) PRIMARY KEY,
  token_hash  char(64) NOT NULL UNIQUE,
  label       text NOT NULL,
  created_at  timestamptz NOT NULL DEFAULT now(),
  revoked_at  timestamptz
);

CREATE TABLE access_token_entities (
  token_id   char(32) NOT NULL REFERENCES access_tokens (id) ON DELETE CASCADE,
  entity_id  char(32) NOT NULL REFERENCES entities (id) ON DELETE CASCADE,
  PRIMARY KEY (token_id, entity_id)
);

-- Every payment transaction: initial ones (PA, DB, CD) and back-office ones (CP, RV, RF) that
-- reference their parent. Amounts are integer minor units. No card number or security code is
-- stored here: `card` holds bin, last four digits, holder and expiry only.
-- entity_id has no foreign key on purpose: every payment's entity comes from an authenticated token,
-- entities are never deleted, and the key's share lock on one hot merchant row, taken by every
-- concurrent insert, costs PostgreSQL more than the rest of the insert.
CREATE TABLE payments (
  id                       char(32) PRIMARY KEY,
  entity_id                char(32) NOT NULL,
  parent_id                char(32) REFERENCES payments (id),
  payment_type             char(2) NOT NULL,
  payment_brand            text,
  amount_minor             bigint NOT NULL CHECK (amount_minor >= 0),
  currency                 char(3) NOT NULL,
  result_code              text NOT NULL,
  result_description       text NOT NULL,
  -- true when the acquirer approved it: only approved rows count towards captured/refunded totals.
  approved                 boolean NOT NULL,
  final_in_sequence        boolean NOT NULL DEFAULT false,
  max_captures             integer,
  acquirer                 text NOT NULL,
  test_mode                text,
  merchant_transaction_id  text,
  card                     jsonb,
  request_echo             jsonb NOT NULL,
  result_details           jsonb,
  ndc                      text NOT NULL,
  created_at               timestamptz NOT NULL DEFAULT now()
);

CREATE INDEX payments_parent_idx ON payments (parent_id) WHERE parent_id IS NOT NULL;
CREATE INDEX payments_entity_created_idx ON payments (entity_id, created_at);
CREATE INDEX payments_entity_merchant_tx_idx ON payments (entity_id, merchant_transaction_id)
  WHERE merchant_transaction_id IS NOT NULL;
