-- The map cells with data (the only ones a request can read), by dataset and cell id, copied into
-- typed arrays by src/reference/catalog.ts (readMapCells), which needs every value non-NULL:
-- flags = ocean + 2 * coastal.
SELECT cell_id::INTEGER AS cell_id, lat::DOUBLE AS lat, lon::DOUBLE AS lon,
       (coalesce(ocean, false)::UTINYINT + 2 * coalesce(coastal, false)::UTINYINT)::UTINYINT AS flags
FROM read_parquet($dir || '/catalog/map_cell.parquet')
WHERE has_data AND cell_id IS NOT NULL AND lat IS NOT NULL AND lon IS NOT NULL
ORDER BY dataset, cell_id
