-- Sum over the days of (base - daily mean temperature), for days below the base ('basetemp', K).
WITH per_model AS (
  SELECT period, model, coalesce(fsum(getvariable('basetemp') - (tasmax + tasmin) / 2) FILTER (WHERE (tasmax + tasmin) / 2 < getvariable('basetemp')), 0) AS value
  FROM request_days(getvariable('baseline_years'))
  GROUP BY period, model
),
in_units AS (SELECT period, model, temperature_delta_from_k(value, getvariable('units')) AS value FROM per_model)
FROM period_stats('in_units')
