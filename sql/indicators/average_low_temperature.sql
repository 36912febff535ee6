-- Mean of the daily low temperature (tasmin) per period and model; units F, C or K.
WITH per_model AS (
  FROM days_per_model(temperature_from_k(favg(tasmin), getvariable('units')),
                      getvariable('baseline_years'))
)
FROM period_stats('per_model')
