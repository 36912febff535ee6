-- Mean of the daily low temperature (tasmin) per period and model; units F, C or K.
WITH per_model AS (
  SELECT period, model, favg(tasmin) AS value
  FROM request_days(getvariable('baseline_years'))
  GROUP BY period, model
),
in_units AS (SELECT period, model, temperature_from_k(value, getvariable('units')) AS value FROM per_model)
FROM period_stats('in_units')
