UPDATE account SET burst_rate = $burst_rate, sustained_rate = $sustained_rate WHERE id = $id
