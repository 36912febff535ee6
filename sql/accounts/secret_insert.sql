INSERT INTO meta (key, value) VALUES ('token_secret', $value) ON CONFLICT DO NOTHING
