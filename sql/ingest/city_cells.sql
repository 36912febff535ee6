-- The map cells of the catalogue's cities in one dataset's grid.
SELECT DISTINCT cell_id::INTEGER AS cell_id
FROM read_parquet($dir || '/catalog/city_cell.parquet')
WHERE dataset = $dataset
ORDER BY cell_id
