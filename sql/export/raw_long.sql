-- An export's raw daily values in long form, one row per value: the rows of its Parquet and CSV
-- files (src/export/tableWriter.ts), for one scenario. Rows come in the cell files' own order
-- (file, then model, then date; a day's variables one after another), so DuckDB writes them as
-- it reads them, without a sort.
-- Placeholders, filled by the service from allow-lists only: variables (in double braces), the variables of
-- VARIABLES (src/climate/params.ts), comma-separated; location (in double braces),
-- `unnest($locations[f])::export_label AS location, ` for places and nothing for an area.
-- $files: the distinct cell files to read; $cell_ids, $lats, $lons: per file; $locations
-- VARCHAR[][]: per file, the labels of the places that read it (places only);
-- $models VARCHAR[]; $years INTEGER[] (sorted); $dataset, $scenario: the labels of every row.
-- The string columns are export_label (sql/export/labels_type.sql).
-- A model's value on a day is the stored float32, which is what the raw endpoints answer for
-- that model alone. Days a model's calendar lacks have no row (UNPIVOT drops NULLs).
WITH days AS (
  SELECT file_index::BIGINT + 1 AS f, model, date, {{variables}}
  FROM read_parquet($files)
  WHERE date BETWEEN make_date(list_min($years), 1, 1) AND make_date(list_max($years), 12, 31)
    AND list_contains($years, year(date)::INTEGER)
    AND list_contains($models, model)
)
SELECT $dataset::export_label AS dataset, $scenario::export_label AS scenario, model::export_label AS model,
       $cell_ids[f]::INTEGER AS cell_id, $lats[f]::DOUBLE AS lat, $lons[f]::DOUBLE AS lon, {{location}}date,
       variable::export_label AS variable, value::FLOAT AS value
FROM (UNPIVOT days ON {{variables}} INTO NAME variable VALUE value)
