-- The payment core (issue 10): a state column decided once by domain/paymentState.ts, the acquirer's reference, where
-- a payment came from; the event outbox; acquirer attempts written before every acquirer call; the simulated
-- acquirers' own record of what they were asked.

ALTER TABLE payments ADD COLUMN status text;
UPDATE payments SET status = CASE WHEN approved THEN 'approved' WHEN result_code LIKE '000.200.%' THEN 'pending' ELSE 'declined' END;
ALTER TABLE payments ALTER COLUMN status SET NOT NULL;
ALTER TABLE payments ADD CHECK (status IN ('pending', 'approved', 'declined'));
ALTER TABLE payments DROP COLUMN approved;
ALTER TABLE payments ADD COLUMN acquirer_reference text;
-- OPPUI (the widget), API (server to server), SYSTEM (the gateway itself, e.g. a schedule): notifications' `source`.
ALTER TABLE payments ADD COLUMN source text NOT NULL DEFAULT 'API' CHECK (source IN ('OPPUI', 'API', 'SYSTEM'));
ALTER TABLE payments ADD COLUMN checkout_id text;
UPDATE payments p SET source = 'OPPUI', checkout_id = a.checkout_id FROM checkout_payments a WHERE a.payment_id = p.id;
CREATE INDEX payments_pending_idx ON payments (created_at) WHERE status = 'pending';

-- Every change of a payment, registration or schedule, appended in the transaction that makes it (events/outbox.ts).
CREATE TABLE events (
  id           bigserial PRIMARY KEY,
  type         text NOT NULL CHECK (type IN ('PAYMENT', 'REGISTRATION', 'SCHEDULE')),
  action       text NOT NULL CHECK (action IN ('CREATED', 'UPDATED', 'DELETED')),
  entity_id    char(32) NOT NULL,
  resource_id  char(32) NOT NULL,
  -- The resource as the API showed it after the change: what notifications carry.
  payload      jsonb NOT NULL,
  created_at   timestamptz NOT NULL
);
CREATE INDEX events_resource_idx ON events (resource_id);
CREATE INDEX events_entity_created_idx ON events (entity_id, created_at);

-- One row per call to an acquirer, committed before the call: if the process dies before the answer is recorded,
-- the recovery job asks the acquirer what became of the attempt and records it (payments/attempts.ts). The id is the
-- reference the acquirer is given, so asking twice cannot charge twice.
CREATE TABLE acquirer_attempts (
  id           char(32) PRIMARY KEY,
  entity_id    char(32) NOT NULL,
  acquirer     text NOT NULL,
  -- The payment the answer becomes (for a back-office operation: the child, and its parent, type and amount, which
  -- an open attempt holds against the parent's totals until it is answered: domain/backOffice.ts).
  payment_id   char(32) NOT NULL,
  parent_id    char(32),
  payment_type char(2) NOT NULL,
  amount_minor bigint NOT NULL,
  final_in_sequence boolean NOT NULL DEFAULT false,
  -- What to record with the answer (the payment as it will be written, minus its result), never card data.
  plan         jsonb NOT NULL,
  instance_id  text NOT NULL,
  created_at   timestamptz NOT NULL,
  finished_at  timestamptz,
  -- recorded: its payment is written; unknown: the acquirer never saw it, so no money moved.
  outcome      text CHECK (outcome IN ('recorded', 'unknown')),
  CHECK ((finished_at IS NULL) = (outcome IS NULL))
);
CREATE INDEX acquirer_attempts_open_idx ON acquirer_attempts (created_at) WHERE finished_at IS NULL;
CREATE INDEX acquirer_attempts_open_parent_idx ON acquirer_attempts (parent_id) WHERE finished_at IS NULL;
CREATE INDEX acquirer_attempts_payment_idx ON acquirer_attempts (payment_id);

-- A pending payment's intents, kept with its page until it is final; and a decided but unfinished outcome (the
-- acquirer is being asked) no longer counts as finished.
ALTER TABLE payment_redirects ADD COLUMN create_registration boolean NOT NULL DEFAULT false;
ALTER TABLE payment_redirects ADD COLUMN capture_at_once boolean NOT NULL DEFAULT false;
UPDATE payment_redirects r SET create_registration = true FROM payments p WHERE p.id = r.payment_id AND p.request_echo->>'createRegistration' = 'true';
ALTER TABLE payment_redirects DROP CONSTRAINT payment_redirects_check;
ALTER TABLE payment_redirects DROP CONSTRAINT payment_redirects_check1;
ALTER TABLE payment_redirects ADD CHECK (finished_at IS NULL OR outcome IS NOT NULL);
ALTER TABLE payment_redirects ADD CHECK (finished_at IS NULL OR sealed_card_id IS NULL);

-- The simulated acquirers' side: what each was asked, under the attempt's id, and what it answered. A real acquirer
-- keeps such a record on its own systems; the simulators keep theirs here, so they can be asked after a crash.
CREATE TABLE simulator_operations (
  acquirer     text NOT NULL,
  attempt_id   char(32) NOT NULL,
  operation    text NOT NULL,
  reference    text NOT NULL UNIQUE,
  answer       jsonb NOT NULL,
  created_at   timestamptz NOT NULL,
  PRIMARY KEY (acquirer, attempt_id)
);
