-- The catalog's datasets after an ingest: $dataset's description no longer says its data is only
-- synthetic ($synthetic_note is the build's note, or $former_synthetic_note in a build made before
-- the note pointed at docs/; $ingested_note is their replacement). Every other column is kept as
-- the build wrote it (grid, generation, scenarios, ...).
SELECT * REPLACE (
       CASE WHEN name = $dataset
            THEN replace(replace(description, $synthetic_note, $ingested_note), $former_synthetic_note, $ingested_note)
            ELSE description END AS description)
FROM read_parquet($dir || '/catalog/dataset.parquet')
