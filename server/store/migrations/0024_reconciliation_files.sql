-- The reconciliation file (COMPAT §14, spec doc 3 §2.17): where each merchant entity receives its daily CSV over FTP,
-- and what became of each day's file. The file's bytes are not kept: they are built again from the day's settlement
-- records (written once, never changed) whenever the file is uploaded or an operator downloads it.
CREATE TABLE reconciliation_ftp_settings (
  entity_id        char(32) PRIMARY KEY REFERENCES entities (id),
  host             text NOT NULL,
  port             integer NOT NULL CHECK (port BETWEEN 1 AND 65535),
  username         text NOT NULL,
  -- The password, sealed in the vault like card data (re-sealed by a key rotation), never stored in clear.
  password_id      char(32) NOT NULL REFERENCES vault_items (id),
  -- Where the file goes, from the login directory ('' : the login directory itself).
  folder           text NOT NULL,
  -- AUTH TLS on the control connection, then protected data connections (explicit FTPS).
  explicit_tls     boolean NOT NULL,
  -- PEM of the certificate (or its CA) the server presents, when no public CA signed it: trusted for this server only.
  tls_certificate  text,
  created_at       timestamptz NOT NULL,
  updated_at       timestamptz NOT NULL
);

CREATE TABLE reconciliation_files (
  entity_id        char(32) NOT NULL REFERENCES entities (id),
  settlement_date  date NOT NULL,
  -- pending: not tried yet; retrying: an attempt failed, the job tries again; uploaded; failed: given up.
  status           text NOT NULL CHECK (status IN ('pending', 'retrying', 'uploaded', 'failed')),
  -- Attempts of the current send (an operator's re-send starts again from 0).
  attempts         integer NOT NULL DEFAULT 0,
  last_error       text,
  -- Of the last upload (or of the file found already there): bytes, records, the path on the server.
  size_bytes       bigint,
  record_count     integer,
  remote_path      text,
  -- The unique key of the job sending it now: the day's scheduled job, or an operator's re-send. A job whose key is
  -- not this one any more has nothing to do (a re-send replaced it).
  job_key          text NOT NULL,
  created_at       timestamptz NOT NULL,
  updated_at       timestamptz NOT NULL,
  uploaded_at      timestamptz,
  PRIMARY KEY (entity_id, settlement_date)
);
-- An operator's list of one day's files, every entity.
CREATE INDEX reconciliation_files_by_day ON reconciliation_files (settlement_date, entity_id);
