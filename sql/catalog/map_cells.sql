SELECT dataset, cell_id::INTEGER AS cell_id, lat, lon, ocean, coastal, has_data
FROM read_parquet($dir || '/catalog/map_cell.parquet')
ORDER BY dataset, cell_id
