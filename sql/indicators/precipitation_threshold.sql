-- Days per period whose precipitation rate compares (variable 'comparator') to 'threshold' (kg m-2 s-1).
WITH per_model AS (
  SELECT period, model, count(*) FILTER (WHERE compare(pr, getvariable('comparator'), getvariable('threshold'))) AS value
  FROM request_days(getvariable('baseline_years'))
  GROUP BY period, model
)
FROM period_stats('per_model')
