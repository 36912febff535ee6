-- Largest precipitation of one day (Rx1day) per period and model: the greatest daily mean rate
-- times 86400 s (kg/m^2 = mm); units kg/m^2, mm or in.
WITH per_model AS (
  FROM days_per_model(precipitation_amount_from_si(max(pr) * 86400.0, getvariable('units')),
                      getvariable('baseline_years'))
)
FROM period_stats('per_model')
