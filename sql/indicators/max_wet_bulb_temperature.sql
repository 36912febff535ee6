-- Highest daily wet-bulb temperature per period and model (Stull 2011 from tas and hurs: daily_wet_bulb
-- in macros.sql); units F, C or K. Models without tas or hurs have no value.
WITH per_model AS (
  FROM days_per_model(temperature_from_k(max(daily_wet_bulb(tas, hurs)), getvariable('units')),
                      getvariable('baseline_years'))
)
FROM period_stats('per_model')
