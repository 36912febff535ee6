-- The thresholds of the extreme events at their default percentiles over each historic range of
-- map cells, as historic_percentiles in sql/indicators/macros.sql takes them: each model's
-- percentile of the range's days (pr: wet days only), then their mean in model name order. The
-- monthly summaries of each scenario of the cell count each month's events against them
-- ($thresholds of monthly_summary.sql); src/ingest/historicThresholds.ts computes the same from
-- days in memory. One row per cell and range, in the order of $historic and $ranges.
-- $historic: the cells' historical daily Parquet files, `part` their position in the list (from
-- 1); $ranges: STRUCT(start_year INTEGER, end_year INTEGER)[]; $heat, $cold, $wet: the percentiles
-- of extreme_heat_events (tasmax), extreme_cold_events (tasmin) and extreme_precipitation_events (pr).
WITH ranges AS (
  SELECT unnest($ranges) AS r, generate_subscripts($ranges, 1) AS i
),
parts AS (
  SELECT generate_subscripts($historic, 1)::INTEGER AS part
),
per_model AS (
  SELECT list_position($historic, d.filename)::INTEGER AS part, i, model,
         quantile_cont(tasmax::DOUBLE, $heat / 100) AS heat,
         quantile_cont(tasmin::DOUBLE, $cold / 100) AS cold,
         quantile_cont(pr::DOUBLE, $wet / 100) FILTER (WHERE pr > 0) AS wet
  FROM ranges JOIN read_parquet($historic, filename = true) AS d ON d.date BETWEEN make_date(r.start_year, 1, 1) AND make_date(r.end_year, 12, 31)
  GROUP BY ALL
)
-- A range without days has its row too, of NULLs.
SELECT part, i, favg(heat ORDER BY model) AS heat, favg(cold ORDER BY model) AS cold, favg(wet ORDER BY model) AS wet
FROM parts CROSS JOIN ranges LEFT JOIN per_model USING (part, i)
GROUP BY part, i
ORDER BY part, i
