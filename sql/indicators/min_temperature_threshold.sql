-- Days per period whose low temperature compares (variable 'comparator': lt, lte, gt, gte) to 'threshold' (K).
WITH per_model AS (
  FROM count_days_per_model(compare(tasmin, getvariable('comparator'), getvariable('threshold')),
                            getvariable('time_aggregation'), getvariable('baseline_years'))
)
FROM period_stats('per_model')
