-- Days per period whose precipitation rate compares (variable 'comparator') to 'threshold' (kg m-2 s-1).
WITH per_model AS (
  FROM days_per_model(count(*) FILTER (WHERE compare(pr, getvariable('comparator'), getvariable('threshold'))),
                      getvariable('baseline_years'))
)
FROM period_stats('per_model')
