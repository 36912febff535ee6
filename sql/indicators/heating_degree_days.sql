-- Sum over the days of (base - daily mean temperature), for days below the base ('basetemp', K).
WITH per_model AS (
  FROM days_per_model(temperature_delta_from_k(coalesce(fsum(getvariable('basetemp') - (tasmax + tasmin) / 2) FILTER (WHERE (tasmax + tasmin) / 2 < getvariable('basetemp')), 0), getvariable('units')),
                      getvariable('baseline_years'))
)
FROM period_stats('per_model')
