-- The catalog's map cells after an ingest: $dataset's cells in $cells get has_data, and cells the
-- catalog did not have yet (points given with POINTS) are added with their centre and proximity.
SELECT dataset::VARCHAR AS dataset, cell_id::INTEGER AS cell_id, lat::DOUBLE AS lat, lon::DOUBLE AS lon,
       ocean::BOOLEAN AS ocean, coastal::BOOLEAN AS coastal,
       (has_data OR (dataset = $dataset AND list_contains($cells, cell_id::INTEGER)))::BOOLEAN AS has_data
FROM read_parquet($dir || '/catalog/map_cell.parquet')
UNION ALL
SELECT $dataset, unnest($new_ids::INTEGER[]), unnest($new_lats::DOUBLE[]), unnest($new_lons::DOUBLE[]),
       unnest($new_ocean::BOOLEAN[]), unnest($new_coastal::BOOLEAN[]), true
ORDER BY dataset, cell_id
