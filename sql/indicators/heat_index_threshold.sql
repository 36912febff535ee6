-- Days per period whose heat index (daily_heat_index in macros.sql) compares (variable 'comparator':
-- lt, lte, gt, gte) to 'threshold' (K). A model's period without a day that has both tasmax and
-- huss has no value, not 0.
WITH per_model AS (
  FROM days_per_model(count_where_known(daily_heat_index(tasmax, huss),
                                        compare(daily_heat_index(tasmax, huss), getvariable('comparator'), getvariable('threshold'))),
                      getvariable('baseline_years'))
)
FROM period_stats('per_model')
