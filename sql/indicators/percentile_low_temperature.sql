-- The percentile (variable 'percentile', 1..99) of the daily low temperature per period and model, linear interpolation.
-- Years at the default percentile (50) read each year's median from the monthly summaries
-- (p50_tasmin_year, on the row of the year's first month); other percentiles and periods read the days.
WITH per_model AS (
  FROM months_per_model(temperature_from_k(max(p50_tasmin_year), getvariable('units')),
                        temperature_from_k(quantile_cont(tasmin, getvariable('percentile') / 100), getvariable('units')),
                        summarised_agg(getvariable('time_aggregation'), getvariable('time_aggregation') = 'yearly' AND getvariable('percentile') = 50),
                        getvariable('baseline_years'))
)
FROM period_stats('per_model')
