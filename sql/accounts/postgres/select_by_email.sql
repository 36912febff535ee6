SELECT id, email, password_hash, token_version, is_active, burst_rate, sustained_rate
FROM account WHERE email = lower(trim($1))
