-- Accounts of the embedded store (src/auth/duckdbAccountStore.ts). Passwords are scrypt hashes
-- (`scrypt$N$r$p$salt$hash`); API tokens are signed with the secret in `meta`, never stored.
CREATE SEQUENCE IF NOT EXISTS account_id_seq START 1;
CREATE TABLE IF NOT EXISTS account (
  id INTEGER PRIMARY KEY DEFAULT nextval('account_id_seq'),
  email VARCHAR NOT NULL UNIQUE,          -- lowercased and trimmed on the way in
  password_hash VARCHAR NOT NULL,
  token_version INTEGER NOT NULL DEFAULT 1,
  is_active BOOLEAN NOT NULL DEFAULT true,
  burst_rate VARCHAR,                     -- per-account throttle overrides, NULL = service default
  sustained_rate VARCHAR,
  created TIMESTAMP NOT NULL DEFAULT current_timestamp
);
CREATE TABLE IF NOT EXISTS meta (
  key VARCHAR PRIMARY KEY,
  value VARCHAR NOT NULL
);
