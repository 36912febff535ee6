-- Mean of the daily difference between high and low temperature; units are a temperature difference.
WITH per_model AS (
  SELECT period, model, favg(tasmax - tasmin) AS value
  FROM request_days(getvariable('baseline_years'))
  GROUP BY period, model
),
in_units AS (SELECT period, model, temperature_delta_from_k(value, getvariable('units')) AS value FROM per_model)
FROM period_stats('in_units')
