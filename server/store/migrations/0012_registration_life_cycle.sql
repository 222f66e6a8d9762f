-- The registration life cycle (COMPAT §10, §11): registrations made on their own (POST /v1/registrations, a
-- registration-only checkout), read, updated, deleted and expired; the scheme reference of the cardholder-initiated
-- payment that started a card-on-file agreement.

-- What the registration showed when it was made: customer, billing, customParameters, merchantTransactionId,
-- standingInstruction (masked like a payment's echo; never card data).
ALTER TABLE registrations ADD COLUMN request_echo jsonb NOT NULL DEFAULT '{}';
ALTER TABLE registrations ADD COLUMN test_mode text;
-- The result the registration was made with (the mode's success code; a refusal is never stored).
ALTER TABLE registrations ADD COLUMN result_code text NOT NULL DEFAULT '000.100.110';
-- The checkout it was made through, if any (the ndc of its answers there).
ALTER TABLE registrations ADD COLUMN checkout_id text;
-- The scheme reference of the cardholder-initiated INITIAL payment (or recurringMigration.connectorTxId1) that later
-- merchant-initiated payments name.
ALTER TABLE registrations ADD COLUMN initial_transaction_id text;
-- The expiry clock starts again at each successful payment (and extendlife): expired = last_used_at + lifetime.
ALTER TABLE registrations ADD COLUMN last_used_at timestamptz;
UPDATE registrations SET last_used_at = created_at;
ALTER TABLE registrations ALTER COLUMN last_used_at SET NOT NULL;
ALTER TABLE registrations ADD COLUMN updated_at timestamptz;
-- The deregistration (DR) a delete answered with: deleting twice is refused, the first answer's id stays known.
ALTER TABLE registrations ADD COLUMN deregistration_id char(32);
-- A deleted registration's card is erased from the vault, not just flagged.
ALTER TABLE registrations ALTER COLUMN sealed_card_id DROP NOT NULL;
CREATE TEMPORARY TABLE erased_cards AS SELECT sealed_card_id AS id FROM registrations WHERE deleted_at IS NOT NULL;
UPDATE registrations SET sealed_card_id = NULL WHERE deleted_at IS NOT NULL;
DELETE FROM vault_items WHERE id IN (SELECT id FROM erased_cards);
DROP TABLE erased_cards;
ALTER TABLE registrations ADD CHECK ((deleted_at IS NULL) = (sealed_card_id IS NOT NULL));
