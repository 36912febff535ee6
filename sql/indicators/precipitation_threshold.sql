-- Days per period whose precipitation rate compares (variable 'comparator') to 'threshold' (kg m-2 s-1).
WITH per_model AS (
  FROM count_days_per_model(compare(pr, getvariable('comparator'), getvariable('threshold')),
                            getvariable('time_aggregation'), getvariable('baseline_years'))
)
FROM period_stats('per_model')
