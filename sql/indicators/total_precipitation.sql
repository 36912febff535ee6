-- Total precipitation per period and model: the sum of the daily mean rates times 86400 s (kg/m^2 = mm).
WITH per_model AS (
  SELECT period, model, coalesce(fsum(pr) * 86400.0, 0) AS value
  FROM indicator_days(getvariable('file'), getvariable('monthly_file'), getvariable('models'), getvariable('years'), getvariable('time_aggregation'), getvariable('spans'))
  GROUP BY period, model
)
SELECT period_label(getvariable('time_aggregation'), period) AS period, across_models(list(precipitation_amount_from_si(value, getvariable('units'))), getvariable('aggs')) AS stats
FROM per_model
GROUP BY period
ORDER BY period
