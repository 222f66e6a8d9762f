-- A merchant entity's Apple Pay merchant identity (PUT /admin/v1/entities/{id}/applePay; issue 35 point 2): what the
-- gateway validates the merchant with when a live Apple Pay sheet opens (POST /v1/wallets/applepay/session). The
-- identity certificate and its private key are sealed together in the vault like card data (rotated with it, erased
-- when replaced or removed) and never shown again; what is shown is the merchant identifier, the display name, the
-- domains registered with Apple, and the certificate's subject and expiry.
CREATE TABLE apple_pay_identities (
  entity_id              char(32) PRIMARY KEY REFERENCES entities (id) ON DELETE CASCADE,
  merchant_identifier    text NOT NULL,
  -- Sent to Apple when the page gives no display name; NULL: the page's domain is.
  display_name           text,
  -- The page domains registered (and verified) with Apple for the merchant identifier, lowercase.
  domains                text[] NOT NULL,
  -- The vault item holding {certificate, privateKey}, PEM.
  identity_id            char(32) NOT NULL,
  certificate_subject    text NOT NULL,
  certificate_expires_at timestamptz NOT NULL,
  updated_at             timestamptz NOT NULL
);
