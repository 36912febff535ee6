-- Mean of the daily high temperature (tasmax) per period and model; units F, C or K.
WITH per_model AS (
  SELECT period, model, favg(tasmax) AS value
  FROM request_days(getvariable('baseline_years'))
  GROUP BY period, model
),
in_units AS (SELECT period, model, temperature_from_k(value, getvariable('units')) AS value FROM per_model)
FROM period_stats('in_units')
