-- Days per period whose low temperature compares (variable 'comparator': lt, lte, gt, gte) to 'threshold' (K).
WITH per_model AS (
  SELECT period, model, count(*) FILTER (WHERE compare(tasmin, getvariable('comparator'), getvariable('threshold'))) AS value
  FROM request_days(getvariable('baseline_years'))
  GROUP BY period, model
)
FROM period_stats('per_model')
