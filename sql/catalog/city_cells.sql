SELECT cc.city_id::BIGINT AS city_id, cc.dataset, cc.cell_id::INTEGER AS cell_id
FROM read_parquet($dir || '/catalog/city_cell.parquet') cc
ORDER BY cc.city_id, cc.dataset DESC
