-- Days per period whose low temperature compares (variable 'comparator': lt, lte, gt, gte) to 'threshold' (K).
WITH per_model AS (
  SELECT period, model, count(*) FILTER (WHERE compare(tasmin, getvariable('comparator'), getvariable('threshold'))) AS value
  FROM indicator_days(getvariable('file'), getvariable('monthly_file'), getvariable('models'), getvariable('years'), getvariable('time_aggregation'), getvariable('spans'))
  GROUP BY period, model
)
SELECT period_label(getvariable('time_aggregation'), period) AS period, across_models(list(value), getvariable('aggs')) AS stats
FROM per_model
GROUP BY period
ORDER BY period
