-- Accumulated freezing degree days: the largest sum, over consecutive days of the period, of
-- (273.15 K - daily mean temperature), a running total floored at 0; units are a temperature difference.
WITH d AS (
  SELECT period, model, date, 273.15 - (tasmax + tasmin) / 2 AS cold
  FROM indicator_days(getvariable('file'), getvariable('monthly_file'), getvariable('models'), getvariable('years'), getvariable('time_aggregation'), getvariable('spans'))
  WHERE tasmax IS NOT NULL AND tasmin IS NOT NULL
),
totals AS (
  SELECT period, model, date, sum(cold) OVER w AS s
  FROM d WINDOW w AS (PARTITION BY period, model ORDER BY date ROWS UNBOUNDED PRECEDING)
),
per_model AS (
  -- running total floored at 0 = prefix sum minus the lowest earlier prefix sum (0 before day 1)
  SELECT period, model, greatest(0, max(s - least(0, low))) AS value
  FROM (SELECT period, model, s, min(s) OVER (PARTITION BY period, model ORDER BY date ROWS UNBOUNDED PRECEDING) AS low FROM totals)
  GROUP BY period, model
)
SELECT period_label(getvariable('time_aggregation'), period) AS period, across_models(list(temperature_delta_from_k(value, getvariable('units'))), getvariable('aggs')) AS stats
FROM per_model
GROUP BY period
ORDER BY period
