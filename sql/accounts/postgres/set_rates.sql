UPDATE account SET burst_rate = $2, sustained_rate = $3 WHERE id = $1
RETURNING id, email, password_hash, token_version, is_active, burst_rate, sustained_rate
