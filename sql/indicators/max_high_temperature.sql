-- Highest daily high temperature (tasmax) per period and model; units F, C or K.
-- Whole-month periods take the extreme of the monthly extremes; offset years and custom spans read the days.
WITH per_model AS (
  SELECT period, model, max(max_tasmax) AS value
  FROM request_months(getvariable('baseline_years'))
  GROUP BY period, model
  UNION ALL
  SELECT period, model, max(tasmax) AS value
  FROM month_cutting_days(getvariable('time_aggregation'))
  GROUP BY period, model
),
in_units AS (SELECT period, model, temperature_from_k(value, getvariable('units')) AS value FROM per_model)
FROM period_stats('in_units')
