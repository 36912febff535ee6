-- An export's raw daily values of one variable in long form, one row per value: the rows of its
-- Parquet and CSV files (src/export/tableWriter.ts), for one scenario. The service asks one such
-- SELECT per variable, joined by UNION ALL (a day's variables as rows: UNPIVOT did the same
-- 30% slower), and DuckDB writes the rows as its threads read them: in no particular order, with
-- no sort (keeping the files' order kept the writer to one thread, half the speed).
-- Placeholders, filled by the service from allow-lists only: variable (in double braces), one of
-- VARIABLES (src/climate/params.ts); location (in double braces),
-- `unnest($locations[file_index::BIGINT + 1])::export_label AS location, ` for places and nothing for an area;
-- constants (in double braces), `$dataset::export_label AS dataset, $scenario::export_label AS scenario, `
-- for Parquet and nothing for CSV, whose file name and record say them (a fifth of its bytes).
-- $files: the distinct cell files to read; $cell_ids, $lats, $lons: per file; $locations
-- VARCHAR[][]: per file, the labels of the places that read it (places only);
-- $models VARCHAR[]; $years INTEGER[] (sorted); $dataset, $scenario: the labels of every row (Parquet).
-- The string columns are export_label (sql/export/labels_type.sql).
-- A model's value on a day is the stored float32, which is what the raw endpoints answer for
-- that model alone. Days a model's calendar lacks have no row, nor has a missing value.
SELECT {{constants}}model::export_label AS model,
       $cell_ids[file_index::BIGINT + 1]::INTEGER AS cell_id, $lats[file_index::BIGINT + 1]::DOUBLE AS lat,
       $lons[file_index::BIGINT + 1]::DOUBLE AS lon, {{location}}date,
       '{{variable}}'::export_label AS variable, {{variable}}::FLOAT AS value
FROM read_parquet($files)
WHERE date BETWEEN make_date(list_min($years), 1, 1) AND make_date(list_max($years), 12, 31)
  -- $years holds distinct years, so a span without gaps is the BETWEEN alone: DuckDB folds the
  -- test of $years, and the per-row lookup (3/4 of a scan's CPU) runs only for years with gaps.
  AND (len($years) = list_max($years) - list_min($years) + 1 OR list_contains($years, year(date)::INTEGER))
  AND list_contains($models, model)
  AND {{variable}} IS NOT NULL
