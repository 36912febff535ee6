INSERT INTO account (email, password_hash) VALUES (lower(trim($email)), $password_hash)
RETURNING id, email, password_hash, token_version, is_active, burst_rate, sustained_rate
