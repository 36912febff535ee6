-- Total precipitation per period and model: the sum of the daily mean rates times 86400 s (kg/m^2 = mm).
-- Whole-month periods add up the months' exact sums; offset years and custom spans read the days.
WITH per_model AS (
  FROM months_per_model(precipitation_amount_from_si(coalesce(fsum(sum_pr) * 86400.0, 0), getvariable('units')),
                        precipitation_amount_from_si(coalesce(fsum(pr) * 86400.0, 0), getvariable('units')),
                        getvariable('time_aggregation'), getvariable('baseline_years'))
)
FROM period_stats('per_model')
