-- Highest daily heat index per period and model (the NWS algorithm from tasmax and the relative
-- humidity huss gives at tasmax: daily_heat_index in macros.sql); units F, C or K.
WITH per_model AS (
  FROM days_per_model(temperature_from_k(max(daily_heat_index(tasmax, huss)), getvariable('units')),
                      getvariable('baseline_years'))
)
FROM period_stats('per_model')
