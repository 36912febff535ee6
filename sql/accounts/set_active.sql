UPDATE account SET is_active = $active WHERE id = $id
RETURNING id, email, password_hash, token_version, is_active, burst_rate, sustained_rate
