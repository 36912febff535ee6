-- Sum over the days of (base - daily mean temperature), for days below the base ('basetemp', K).
WITH per_model AS (
  SELECT period, model, coalesce(fsum(getvariable('basetemp') - (tasmax + tasmin) / 2) FILTER (WHERE (tasmax + tasmin) / 2 < getvariable('basetemp')), 0) AS value
  FROM indicator_days(getvariable('file'), getvariable('monthly_file'), getvariable('models'), getvariable('years'), getvariable('time_aggregation'), getvariable('spans'))
  GROUP BY period, model
)
SELECT period_label(getvariable('time_aggregation'), period) AS period, across_models(list(temperature_delta_from_k(value, getvariable('units'))), getvariable('aggs')) AS stats
FROM per_model
GROUP BY period
ORDER BY period
