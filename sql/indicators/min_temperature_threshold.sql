-- Days per period whose low temperature compares (variable 'comparator': lt, lte, gt, gte) to 'threshold' (K).
WITH per_model AS (
  FROM days_per_model(count(*) FILTER (WHERE compare(tasmin, getvariable('comparator'), getvariable('threshold'))),
                      getvariable('baseline_years'))
)
FROM period_stats('per_model')
