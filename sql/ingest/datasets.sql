-- The catalog's datasets after an ingest: $dataset's description no longer says its data is only
-- synthetic ($synthetic_note is the build's note, $ingested_note its replacement).
SELECT name, label,
       CASE WHEN name = $dataset THEN replace(description, $synthetic_note, $ingested_note) ELSE description END AS description,
       url, cell_size, models
FROM read_parquet($dir || '/catalog/dataset.parquet')
