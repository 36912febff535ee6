-- The map cells with data (the only ones a request can read), as columns for src/reference/mapCells.ts.
SELECT dataset, cell_id::INTEGER AS cell_id, lat, lon, ocean, coastal
FROM read_parquet($dir || '/catalog/map_cell.parquet')
WHERE has_data
ORDER BY dataset, cell_id
