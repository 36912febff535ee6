UPDATE account SET password_hash = $2 WHERE id = $1
RETURNING id, email, password_hash, token_version, is_active, burst_rate, sustained_rate
