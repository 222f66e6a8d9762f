-- Registrations of SEPA bank accounts (COMPAT §16): a registration keeps a card or a bank account. What is shown of
-- the account (holder, masked IBAN, BIC, country, mandate) is in bank_account; the account itself is sealed in the
-- vault like a card (sealed_card_id).
ALTER TABLE registrations ALTER COLUMN card DROP NOT NULL;
ALTER TABLE registrations ADD COLUMN bank_account jsonb;
