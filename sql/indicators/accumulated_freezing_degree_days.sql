-- Accumulated freezing degree days: the largest sum, over consecutive days of the period, of
-- (273.15 K - daily mean temperature), a running total floored at 0; units are a temperature difference.
WITH d AS (
  SELECT period, model, date, 273.15 - (tasmax + tasmin) / 2 AS cold
  FROM request_days(getvariable('baseline_years'))
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
),
in_units AS (SELECT period, model, temperature_delta_from_k(value, getvariable('units')) AS value FROM per_model)
FROM period_stats('in_units')
