-- Stored payment details (doc 3 §2.5, createRegistration=true): a card kept for later one-click and
-- merchant-initiated payments. The card number is kept only sealed (AES-256-GCM with the card-data key, the key
-- id beside it); `card` holds what may be shown (bin, last four digits, holder, expiry). Never a security code.
CREATE TABLE registrations (
  id             char(32) PRIMARY KEY,
  entity_id      char(32) NOT NULL,
  payment_brand  text NOT NULL,
  card           jsonb NOT NULL,
  sealed_card    jsonb NOT NULL,
  created_at     timestamptz NOT NULL,
  deleted_at     timestamptz
);

CREATE INDEX registrations_entity_idx ON registrations (entity_id);

-- The registration a payment created (createRegistration=true) or was paid with (registrationId).
ALTER TABLE payments ADD COLUMN registration_id char(32);
