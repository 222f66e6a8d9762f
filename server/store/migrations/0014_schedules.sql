-- Schedules (COMPAT §12, doc 3 §2.13): a payment of a stored card made by the gateway at each fire time of a Quartz
-- cron job, until the merchant cancels it (DS), its job ends, or its registration is deleted or expires (DS).
CREATE TABLE schedules (
  id               char(32) PRIMARY KEY,
  entity_id        char(32) NOT NULL,
  registration_id  char(32) NOT NULL REFERENCES registrations (id),
  payment_type     text NOT NULL CHECK (payment_type IN ('PA', 'DB', 'CD')),
  amount_minor     bigint NOT NULL,
  currency         char(3) NOT NULL,
  test_mode        text,
  -- What every execution's payment carries and the answers echo: standingInstruction, descriptor,
  -- merchantTransactionId, customParameters.
  request_echo     jsonb NOT NULL,
  -- The job as the answers show it (the seven fields, the expression, name, notice and duration fields).
  job              jsonb NOT NULL,
  expression       text NOT NULL,
  start_at         timestamptz NOT NULL,
  end_at           timestamptz,
  -- The next fire time no instance has taken yet; null once the schedule is over.
  next_fire_at     timestamptz,
  status           text NOT NULL CHECK (status IN ('active', 'cancelled', 'ended')),
  created_at       timestamptz NOT NULL,
  -- The cancellation (DS): when, and why (the merchant's DELETE, the registration deleted or expired).
  cancelled_at     timestamptz,
  cancel_reason    text,
  ended_at         timestamptz,
  CHECK ((status = 'active') = (next_fire_at IS NOT NULL)),
  CHECK ((status = 'cancelled') = (cancelled_at IS NOT NULL))
);
CREATE INDEX schedules_due_idx ON schedules (next_fire_at) WHERE status = 'active';
CREATE INDEX schedules_registration_idx ON schedules (registration_id) WHERE status = 'active';
CREATE INDEX schedules_entity_idx ON schedules (entity_id, created_at);

-- One row per fire time taken: its primary key is what makes a fire time run once, whichever instances are up.
CREATE TABLE schedule_executions (
  schedule_id   char(32) NOT NULL REFERENCES schedules (id),
  fire_at       timestamptz NOT NULL,
  -- When an instance took the fire time and queued its payment job (fire drift = taken_at - fire_at).
  taken_at      timestamptz NOT NULL,
  -- The gateway instance that took it (store instance id).
  taken_by      text NOT NULL,
  -- Earlier fire times this execution stands for, missed while no gateway ran (catch-up runs one payment for them).
  missed        integer NOT NULL DEFAULT 0,
  -- The payment's id, derived from the idempotency key schedule:<id>:<fire time>: a retried job finds it.
  payment_id    char(32) NOT NULL UNIQUE,
  started_at    timestamptz,
  finished_at   timestamptz,
  -- paid (approved), pending, declined (the payment was refused or declined), skipped (no payment: the schedule was
  -- cancelled meanwhile, or its registration can no longer be used).
  outcome       text CHECK (outcome IN ('paid', 'pending', 'declined', 'skipped')),
  result_code   text,
  reason        text,
  PRIMARY KEY (schedule_id, fire_at)
);
CREATE INDEX schedule_executions_taken_idx ON schedule_executions (taken_at);
