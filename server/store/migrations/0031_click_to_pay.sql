-- Click to Pay in the test environment (issue 35 point 6, server/clickToPay/): a shopper's session with the simulated
-- SRC system, bound to one checkout. It names the SRC profile and the chosen card by the simulator's keys, never an
-- e-mail address, a card number or a token: the network token and its cryptogram are made when the checkout's submit
-- redeems the correlation id, and never stored.
CREATE TABLE click_to_pay_sessions (
  -- The session the widget holds while the shopper validates their identity (random, the capability).
  id              char(32) PRIMARY KEY,
  checkout_id     text NOT NULL,
  profile_key     text NOT NULL,
  -- Wrong one-time codes so far; the third locks the session (locked_at).
  otp_failures    integer NOT NULL DEFAULT 0,
  validated_at    timestamptz,
  locked_at       timestamptz,
  -- The card the shopper chose (the SRC system's id) and the correlation id the widget pays with, once, for this
  -- checkout, until correlation_expires_at.
  card_id         text,
  correlation_id  char(32) UNIQUE,
  correlation_expires_at timestamptz,
  redeemed_at     timestamptz,
  created_at      timestamptz NOT NULL,
  expires_at      timestamptz NOT NULL
);
CREATE INDEX click_to_pay_sessions_created_idx ON click_to_pay_sessions (created_at);
