-- An export's raw daily values of a group of map cells as positions in its NetCDF arrays
-- (src/export/netcdfWriter.ts): which file (cell), which model, which day since 1950-01-01.
-- Placeholder, filled by the service from allow-lists only: variables (in double braces), the variables of
-- VARIABLES (src/climate/params.ts), comma-separated.
-- $files: the cells' files; $models VARCHAR[]; $years INTEGER[] (sorted).
SELECT (list_position($files, filename) - 1)::INTEGER AS file_index,
       (list_position($models, model) - 1)::INTEGER AS model_index,
       (date - DATE '1950-01-01')::INTEGER AS day,
       {{variables}}
FROM read_parquet($files, filename = true)
WHERE date BETWEEN make_date(list_min($years), 1, 1) AND make_date(list_max($years), 12, 31)
  AND list_contains($years, year(date)::INTEGER)
  AND list_contains($models, model)
