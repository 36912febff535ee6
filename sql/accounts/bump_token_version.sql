UPDATE account SET token_version = token_version + 1 WHERE id = $id RETURNING token_version
