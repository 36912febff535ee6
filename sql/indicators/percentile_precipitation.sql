-- The percentile (variable 'percentile', 1..99) of the daily precipitation rate over all days (dry days included).
WITH per_model AS (
  SELECT period, model, quantile_cont(pr, getvariable('percentile') / 100) AS value
  FROM request_days(getvariable('baseline_years'))
  GROUP BY period, model
),
in_units AS (SELECT period, model, precipitation_rate_from_si(value, getvariable('units')) AS value FROM per_model)
FROM period_stats('in_units')
