-- The percentile (variable 'percentile', 1..99) of the daily precipitation rate over all days (dry days included).
-- Years at the default percentile (50) read each year's median from the monthly summaries
-- (p50_pr_year, on the row of the year's first month); other percentiles and periods read the days.
WITH per_model AS (
  FROM months_per_model(precipitation_rate_from_si(max(p50_pr_year), getvariable('units')),
                        precipitation_rate_from_si(quantile_cont(pr, getvariable('percentile') / 100), getvariable('units')),
                        summarised_agg(getvariable('time_aggregation'), getvariable('time_aggregation') = 'yearly' AND getvariable('percentile') = 50),
                        getvariable('baseline_years'))
)
FROM period_stats('per_model')
