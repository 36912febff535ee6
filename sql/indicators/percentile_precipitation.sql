-- The percentile (variable 'percentile', 1..99) of the daily precipitation rate over all days (dry days included).
WITH per_model AS (
  FROM days_per_model(precipitation_rate_from_si(quantile_cont(pr, getvariable('percentile') / 100), getvariable('units')),
                      getvariable('baseline_years'))
)
FROM period_stats('per_model')
