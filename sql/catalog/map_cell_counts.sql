-- How many map cells with data each dataset has, in the order of sql/catalog/map_cells.sql.
SELECT dataset, count(*)::INTEGER AS cells
FROM read_parquet($dir || '/catalog/map_cell.parquet')
WHERE has_data AND cell_id IS NOT NULL AND lat IS NOT NULL AND lon IS NOT NULL
GROUP BY dataset
ORDER BY dataset
