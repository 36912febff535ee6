-- Days per period whose wet-bulb temperature (daily_wet_bulb in macros.sql) compares (variable
-- 'comparator': lt, lte, gt, gte) to 'threshold' (K).
WITH per_model AS (
  FROM days_per_model(count(*) FILTER (WHERE compare(daily_wet_bulb(tas, hurs), getvariable('comparator'), getvariable('threshold'))),
                      getvariable('baseline_years'))
)
FROM period_stats('per_model')
