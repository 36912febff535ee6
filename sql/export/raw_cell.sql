-- One map cell's raw daily values for an export's NetCDF file (src/export/rawValues.ts): each
-- row's model as its position in the file's model dimension, its date as days since 1950-01-01,
-- and the variables with 1e20 (the files' _FillValue) where a value is missing, so that the
-- service copies the typed columns as they come. The cell's file is sorted by model, then date.
-- Placeholder, filled by the service from allow-lists only: variables (in double braces), the variables of
-- VARIABLES (src/climate/params.ts), comma-separated.
-- $file: the cell's file; $models VARCHAR[]; $years INTEGER[] (sorted).
SELECT model_index, day, coalesce(COLUMNS(* EXCLUDE (model_index, day)), 1e20::FLOAT)
FROM (
  SELECT (list_position($models, model) - 1)::INTEGER AS model_index,
         (date - DATE '1950-01-01')::INTEGER AS day,
         {{variables}}
  FROM read_parquet($file)
  WHERE date BETWEEN make_date(list_min($years), 1, 1) AND make_date(list_max($years), 12, 31)
    -- $years holds distinct years, so a span without gaps is the BETWEEN alone: DuckDB folds the
    -- test of $years, and the per-row lookup (3/4 of a scan's CPU) runs only for years with gaps.
    AND (len($years) = list_max($years) - list_min($years) + 1 OR list_contains($years, year(date)::INTEGER))
    AND list_contains($models, model)
)
