-- Click to Pay in live (issue 35 point 6): what a merchant entity has with the card networks' SRC systems
-- (PUT /admin/v1/entities/{id}/clickToPay; server/clickToPay/settings.ts). Per network the DPA registration (srcDpaId,
-- srcInitiatorId), the SDK the widget loads, and the network's public key that signs its checkout responses; for the
-- entity, the private key whose public half the networks encrypt the checkout payload to (its kid as registered),
-- sealed in the vault like card data and never shown again.
CREATE TABLE click_to_pay_settings (
  entity_id       char(32) PRIMARY KEY REFERENCES entities (id) ON DELETE CASCADE,
  dpa_name        text,
  -- [{network, srcDpaId, srcInitiatorId, sdkUrl, signingKey}]: nothing secret (the signing key is the network's public one).
  networks        jsonb NOT NULL,
  key_id          text NOT NULL,
  -- The vault item holding {privateKey}, PEM.
  private_key_id  char(32) NOT NULL,
  updated_at      timestamptz NOT NULL
);

-- A session with a network's SRC system (live) has no simulator profile: it is the srciTransactionId the widget's SDKs
-- are initialised with, and ends with the network's decrypted payload sealed in the vault (payload_id) until the
-- checkout's submit pays it, or the housekeeping erases it. src_correlation_id, the network's id of that checkout,
-- is kept so a payload is accepted once.
ALTER TABLE click_to_pay_sessions ALTER COLUMN profile_key DROP NOT NULL;
ALTER TABLE click_to_pay_sessions ADD COLUMN network text;
ALTER TABLE click_to_pay_sessions ADD COLUMN payload_id char(32);
ALTER TABLE click_to_pay_sessions ADD COLUMN src_correlation_id text UNIQUE;
