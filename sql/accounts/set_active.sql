UPDATE account SET is_active = $active WHERE id = $id
