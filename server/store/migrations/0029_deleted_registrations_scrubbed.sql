-- A deleted registration keeps only what the query API and the back office show of it (docs/decisions.md): its brand,
-- its card's BIN and last four digits (a bank account's masked IBAN, BIC and country) and the merchant's reference
-- (merchantTransactionId); not the holder's name, the expiry, the mandate, nor what the request said of the customer.
-- Deletions do so since this migration (registrations/repository.ts markRegistrationDeleted, the same expressions);
-- here, the registrations deleted before it, and their REGISTRATION events, which show the same. Their sealed cards
-- were erased from the vault when they were deleted (0012). A bank account's card is a JSON null, and stays one.
UPDATE registrations
   SET card = CASE WHEN jsonb_typeof(card) = 'object'
                   THEN jsonb_build_object('bin', card->'bin', 'last4Digits', card->'last4Digits') ELSE card END,
       bank_account = CASE WHEN jsonb_typeof(bank_account) = 'object'
                   THEN jsonb_strip_nulls(jsonb_build_object('iban', bank_account->'iban', 'bic', bank_account->'bic',
                                                             'country', bank_account->'country'))
                   ELSE bank_account END,
       request_echo = jsonb_strip_nulls(jsonb_build_object('merchantTransactionId', request_echo->'merchantTransactionId'))
 WHERE deleted_at IS NOT NULL;

UPDATE events e
   SET payload = jsonb_strip_nulls(jsonb_build_object(
         'id', e.payload->'id',
         'paymentBrand', e.payload->'paymentBrand',
         'card', CASE WHEN jsonb_typeof(e.payload->'card') = 'object'
                      THEN jsonb_build_object('bin', e.payload->'card'->'bin', 'last4Digits', e.payload->'card'->'last4Digits') END,
         'bankAccount', CASE WHEN jsonb_typeof(e.payload->'bankAccount') = 'object'
                      THEN jsonb_strip_nulls(jsonb_build_object('iban', e.payload->'bankAccount'->'iban',
                                                                'bic', e.payload->'bankAccount'->'bic',
                                                                'country', e.payload->'bankAccount'->'country')) END,
         'merchantTransactionId', e.payload->'merchantTransactionId',
         'result', e.payload->'result'))
  FROM registrations r
 WHERE e.type = 'REGISTRATION' AND e.resource_id = r.id AND r.deleted_at IS NOT NULL;
