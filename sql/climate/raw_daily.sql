-- Daily values of one map cell and scenario, aggregated across the chosen models.
-- The columns placeholder below is filled by the service from allow-lists only: <agg>(<variable>)::FLOAT AS <variable>,
-- agg in (avg, min, max), variable in (tasmax, tasmin, pr); as text (the shortest decimal of the
-- float32) when the service writes JSON.
-- $file: the cell's Parquet file; $models: VARCHAR[]; $years: INTEGER[] (sorted); slot is the
-- 0-based day of year (Feb 29 = 59 in leap years; 365 only exists in leap years).
SELECT year(date)::INTEGER AS year,
       (dayofyear(date) - 1)::INTEGER AS slot,
       {{columns}}
FROM read_parquet($file)
WHERE date BETWEEN make_date(list_min($years), 1, 1) AND make_date(list_max($years), 12, 31)
  -- $years holds distinct years, so a span without gaps is the BETWEEN alone: DuckDB folds the
  -- test of $years, and the per-row lookup (3/4 of a scan's CPU) runs only for years with gaps.
  AND (len($years) = list_max($years) - list_min($years) + 1 OR list_contains($years, year(date)::INTEGER))
  AND list_contains($models, model)
GROUP BY ALL
ORDER BY year, slot
