-- Days per period whose heat index (daily_heat_index in macros.sql) compares (variable 'comparator':
-- lt, lte, gt, gte) to 'threshold' (K).
WITH per_model AS (
  FROM days_per_model(count(*) FILTER (WHERE compare(daily_heat_index(tasmax, huss), getvariable('comparator'), getvariable('threshold'))),
                      getvariable('baseline_years'))
)
FROM period_stats('per_model')
