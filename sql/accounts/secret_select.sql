SELECT value FROM meta WHERE key = 'token_secret'
