-- The percentile (variable 'percentile', 1..99) of the daily low temperature per period and model, linear interpolation.
WITH per_model AS (
  SELECT period, model, quantile_cont(tasmin, getvariable('percentile') / 100) AS value
  FROM request_days(getvariable('baseline_years'))
  GROUP BY period, model
),
in_units AS (SELECT period, model, temperature_from_k(value, getvariable('units')) AS value FROM per_model)
FROM period_stats('in_units')
