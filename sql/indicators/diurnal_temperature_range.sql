-- Mean of the daily difference between high and low temperature; units are a temperature difference.
WITH per_model AS (
  FROM days_per_model(temperature_delta_from_k(favg(tasmax - tasmin), getvariable('units')),
                      getvariable('baseline_years'))
)
FROM period_stats('per_model')
