-- Days per period whose wet-bulb temperature (daily_wet_bulb in macros.sql) compares (variable
-- 'comparator': lt, lte, gt, gte) to 'threshold' (K). A model's period without a day that has both
-- tas and hurs (a year its publisher left without hurs) has no value, not 0.
WITH per_model AS (
  FROM days_per_model(count_where_known(daily_wet_bulb(tas, hurs),
                                        compare(daily_wet_bulb(tas, hurs), getvariable('comparator'), getvariable('threshold'))),
                      getvariable('baseline_years'))
)
FROM period_stats('per_model')
