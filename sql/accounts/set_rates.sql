UPDATE account SET burst_rate = $burst_rate, sustained_rate = $sustained_rate WHERE id = $id
RETURNING id, email, password_hash, token_version, is_active, burst_rate, sustained_rate
