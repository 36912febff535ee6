-- Highest daily high temperature (tasmax) per period and model; units F, C or K.
-- Whole-month periods take the extreme of the monthly extremes; offset years and custom spans read the days.
WITH per_model AS (
  SELECT period, model, max(max_tasmax) AS value
  FROM month_rows(getvariable('monthly_file'), getvariable('models'), getvariable('years'), getvariable('time_aggregation'))
  GROUP BY period, model
  UNION ALL
  SELECT period, model, max(tasmax) AS value
  FROM month_cutting_days(getvariable('time_aggregation'))
  GROUP BY period, model
)
SELECT period_label(getvariable('time_aggregation'), period) AS period, across_models(list(temperature_from_k(value, getvariable('units'))), getvariable('aggs')) AS stats
FROM per_model
GROUP BY period
ORDER BY period
