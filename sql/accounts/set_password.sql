UPDATE account SET password_hash = $password_hash WHERE id = $id
RETURNING id, email, password_hash, token_version, is_active, burst_rate, sustained_rate
