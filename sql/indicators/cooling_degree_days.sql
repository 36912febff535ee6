-- Sum over the days of (daily mean temperature - base), for days above the base ('basetemp', K).
WITH per_model AS (
  SELECT period, model, coalesce(fsum((tasmax + tasmin) / 2 - getvariable('basetemp')) FILTER (WHERE (tasmax + tasmin) / 2 > getvariable('basetemp')), 0) AS value
  FROM request_days(getvariable('baseline_years'))
  GROUP BY period, model
),
in_units AS (SELECT period, model, temperature_delta_from_k(value, getvariable('units')) AS value FROM per_model)
FROM period_stats('in_units')
