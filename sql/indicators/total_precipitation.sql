-- Total precipitation per period and model: the sum of the daily mean rates times 86400 s (kg/m^2 = mm).
WITH per_model AS (
  FROM days_per_model(precipitation_amount_from_si(coalesce(fsum(pr) * 86400.0, 0), getvariable('units')),
                      getvariable('baseline_years'))
)
FROM period_stats('per_model')
