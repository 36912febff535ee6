-- Lowest daily low temperature (tasmin) per period and model; units F, C or K.
-- Whole-month periods take the extreme of the monthly extremes; offset years and custom spans read the days.
WITH per_model AS (
  FROM months_per_model(temperature_from_k(min(min_tasmin), getvariable('units')),
                        temperature_from_k(min(tasmin), getvariable('units')),
                        getvariable('time_aggregation'), getvariable('baseline_years'))
)
FROM period_stats('per_model')
