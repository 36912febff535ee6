-- Accounts of the embedded store. Passwords are scrypt hashes; API tokens are signed, never stored.
CREATE SEQUENCE IF NOT EXISTS account_id_seq START 1;
CREATE TABLE IF NOT EXISTS account (
  id INTEGER PRIMARY KEY DEFAULT nextval('account_id_seq'),
  email VARCHAR NOT NULL UNIQUE,
  password_hash VARCHAR NOT NULL,
  token_version INTEGER NOT NULL DEFAULT 1,
  is_active BOOLEAN NOT NULL DEFAULT true,
  burst_rate VARCHAR,
  sustained_rate VARCHAR,
  created TIMESTAMP NOT NULL DEFAULT current_timestamp
);
CREATE TABLE IF NOT EXISTS meta (
  key VARCHAR PRIMARY KEY,
  value VARCHAR NOT NULL
);
