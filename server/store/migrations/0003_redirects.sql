-- Payments that wait for the shopper: a 3-D Secure challenge at the (simulated) issuer, or the page of an
-- asynchronous payment method. Such a payment is inserted pending (000.200.*) and later becomes final exactly
-- once, by an UPDATE under the payment's row lock (the only update a payment row ever gets).

-- The authentication result shown as the response's threeDSecure object (eci, verificationId, ...).
ALTER TABLE payments ADD COLUMN three_d_secure jsonb;
-- While pending: the redirect {url, parameters} the response carries; cleared when the payment is final.
ALTER TABLE payments ADD COLUMN redirect jsonb;

-- One row per page the shopper must visit. The id is the capability in the page's URL.
CREATE TABLE payment_redirects (
  id            char(32) PRIMARY KEY,
  payment_id    char(32) NOT NULL UNIQUE REFERENCES payments (id),
  -- 'threeDSecure': a challenge, then an authorization; 'provider': an asynchronous payment method's page.
  kind          text NOT NULL CHECK (kind IN ('threeDSecure', 'provider')),
  -- Shown on the page.
  merchant_name text NOT NULL,
  -- Where the shopper's browser goes when the page is done (the merchant's shopperResultUrl with id and resourcePath).
  return_url    text NOT NULL,
  -- The 3-D Secure transaction ids chosen at the start (directory server, ACS, version), reused in the result.
  authentication jsonb,
  -- The card for the authorization after the challenge, sealed with the card-data key (AES-256-GCM; never the
  -- CVV). Erased as soon as the payment is final.
  sealed_card   jsonb,
  created_at    timestamptz NOT NULL,
  expires_at    timestamptz NOT NULL,
  -- Set once, when the page was answered or timed out: submit, fail, cancel or timeout.
  outcome       text CHECK (outcome IN ('success', 'failure', 'cancel', 'timeout')),
  finished_at   timestamptz,
  CHECK ((outcome IS NULL) = (finished_at IS NULL)),
  CHECK (outcome IS NULL OR sealed_card IS NULL)
);
