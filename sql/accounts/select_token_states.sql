-- Everything the token check needs, for every account: loaded into memory once, then refreshed.
SELECT id, email, token_version, is_active, burst_rate, sustained_rate FROM account
