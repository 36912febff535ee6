-- Mean of the daily low temperature (tasmin) per period and model; units F, C or K.
-- Whole-month periods divide the months' exact sums by their days; offset years and custom spans read the days.
WITH per_model AS (
  FROM months_per_model(temperature_from_k(fsum(sum_tasmin) / sum(n_tasmin), getvariable('units')),
                        temperature_from_k(favg(tasmin), getvariable('units')),
                        getvariable('time_aggregation'), getvariable('baseline_years'))
)
FROM period_stats('per_model')
