-- A map file's yearly values (src/maps/mapFiles.ts) of some cells, years and models: per row the
-- cell, the model's position in $models (0-based) and the year. $lo..$hi, the range of $ids, lets the scan
-- skip the row groups of other cells (the file is sorted by cell); the semi-joins keep the cells,
-- years and models asked for. A null value comes as NaN, which the typed column can hold.
SELECT f.cell_id, m.i, f.year::INTEGER AS year, coalesce(f.value, 'NaN'::DOUBLE) AS value
FROM read_parquet($file) f
JOIN (SELECT unnest($models::VARCHAR[]) AS model, unnest(range(len($models::VARCHAR[])))::INTEGER AS i) m USING (model)
WHERE f.cell_id BETWEEN $lo AND $hi
  AND f.cell_id IN (SELECT unnest($ids::INTEGER[]))
  AND f.year IN (SELECT unnest($years::INTEGER[]))
