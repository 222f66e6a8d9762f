-- Sealed card data in one table of its own (vault/): the card a 3-D Secure challenge waits with, and the cards of
-- registrations. Erasing a card deletes its row here, and the vault's compaction job then rewrites this small
-- table (VACUUM FULL) so that the deleted bytes are gone from the data files, not just marked dead.
CREATE TABLE vault_items (
  id          char(32) PRIMARY KEY,
  -- AES-256-GCM: the key's id (which key opens it), the IV, the tag and the ciphertext, base64.
  key_id      text NOT NULL,
  iv          text NOT NULL,
  tag         text NOT NULL,
  data        text NOT NULL,
  created_at  timestamptz NOT NULL
);
-- ANALYZE would copy sample values into pg_statistic, where no compaction of this table reaches them.
ALTER TABLE vault_items ALTER COLUMN iv SET STATISTICS 0, ALTER COLUMN tag SET STATISTICS 0, ALTER COLUMN data SET STATISTICS 0;

ALTER TABLE payment_redirects ADD COLUMN sealed_card_id char(32) REFERENCES vault_items (id);
ALTER TABLE registrations ADD COLUMN sealed_card_id char(32) REFERENCES vault_items (id);

INSERT INTO vault_items (id, key_id, iv, tag, data, created_at)
  SELECT md5(id || ':redirect-card'), sealed_card->>'keyId', sealed_card->>'iv', sealed_card->>'tag', sealed_card->>'data', created_at
    FROM payment_redirects WHERE sealed_card IS NOT NULL;
UPDATE payment_redirects SET sealed_card_id = md5(id || ':redirect-card') WHERE sealed_card IS NOT NULL;
INSERT INTO vault_items (id, key_id, iv, tag, data, created_at)
  SELECT md5(id || ':registration-card'), sealed_card->>'keyId', sealed_card->>'iv', sealed_card->>'tag', sealed_card->>'data', created_at
    FROM registrations;
UPDATE registrations SET sealed_card_id = md5(id || ':registration-card');

ALTER TABLE payment_redirects DROP COLUMN sealed_card;
ALTER TABLE payment_redirects ADD CHECK (outcome IS NULL OR sealed_card_id IS NULL);
ALTER TABLE registrations DROP COLUMN sealed_card;
ALTER TABLE registrations ALTER COLUMN sealed_card_id SET NOT NULL;

-- The dropped columns' bytes stay in those tables' files until they are rewritten: a compaction does it, for a
-- store that had any.
INSERT INTO jobs (id, kind, unique_key, payload, run_at, created_at)
  SELECT md5('vault.compact:0007'), 'vault.compact', 'vault.compact:0007', '{"tables":["payment_redirects","registrations"]}', now(), now()
   WHERE EXISTS (SELECT 1 FROM payment_redirects) OR EXISTS (SELECT 1 FROM registrations);
