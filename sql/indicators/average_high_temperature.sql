-- Mean of the daily high temperature (tasmax) per period and model; units F, C or K.
WITH per_model AS (
  FROM days_per_model(temperature_from_k(favg(tasmax), getvariable('units')),
                      getvariable('baseline_years'))
)
FROM period_stats('per_model')
