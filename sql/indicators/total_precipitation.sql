-- Total precipitation per period and model: the sum of the daily mean rates times 86400 s (kg/m^2 = mm).
WITH per_model AS (
  SELECT period, model, coalesce(fsum(pr) * 86400.0, 0) AS value
  FROM request_days(getvariable('baseline_years'))
  GROUP BY period, model
),
in_units AS (SELECT period, model, precipitation_amount_from_si(value, getvariable('units')) AS value FROM per_model)
FROM period_stats('in_units')
