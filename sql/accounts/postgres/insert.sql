INSERT INTO account (email, password_hash) VALUES (lower(trim($1)), $2)
RETURNING id, email, password_hash, token_version, is_active, burst_rate, sustained_rate
