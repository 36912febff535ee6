-- Daily values of one map cell and scenario across all of its models, as the JSON arrays of the
-- cell's ensemble_json summary (sql/build/ensemble_json.sql), one row per year.
-- The columns placeholder below is filled by the service from allow-lists only: <variable>_<agg> AS <variable>,
-- agg in (avg, min, max), variable in (tasmax, tasmin, pr).
-- $file: the cell's ensemble_json Parquet; $years: INTEGER[] (sorted).
SELECT year, {{columns}}
FROM read_parquet($file)
WHERE year BETWEEN list_min($years) AND list_max($years)
  AND list_contains($years, year)
ORDER BY year
