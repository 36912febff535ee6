-- The percentile (variable 'percentile', 1..99) of the daily high temperature per period and model, linear interpolation.
WITH per_model AS (
  FROM days_per_model(temperature_from_k(quantile_cont(tasmax, getvariable('percentile') / 100), getvariable('units')),
                      getvariable('baseline_years'))
)
FROM period_stats('per_model')
