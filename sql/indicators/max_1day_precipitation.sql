-- Largest precipitation of one day (Rx1day) per period and model: the greatest daily mean rate
-- times 86400 s (kg/m^2 = mm); units kg/m^2, mm or in.
-- Whole-month periods take the greatest of the monthly maxima; offset years and custom spans read the days.
WITH per_model AS (
  FROM months_per_model(precipitation_amount_from_si(max(max_pr) * 86400.0, getvariable('units')),
                        precipitation_amount_from_si(max(pr) * 86400.0, getvariable('units')),
                        getvariable('time_aggregation'), getvariable('baseline_years'))
)
FROM period_stats('per_model')
