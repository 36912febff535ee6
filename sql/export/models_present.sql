-- The models that have rows in the climate files of an export's cells for one scenario: a model
-- of the dataset's list without any is left out of the export (src/export/exportPlan.ts).
-- $files VARCHAR[]: the scenario's cell files. Files are sorted by model, so the column is a few
-- dictionary pages per file.
SELECT DISTINCT model FROM read_parquet($files) ORDER BY model
