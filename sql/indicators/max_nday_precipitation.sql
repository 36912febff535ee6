-- Largest precipitation total of n consecutive days (variable 'n', 2..10; Rx5day for 5) whose last
-- day falls in the period, per model: the run may start in the period before (nday_totals).
-- Units kg/m^2, mm or in.
WITH per_model AS (
  SELECT cell, period, model, precipitation_amount_from_si(max(total) * 86400.0, getvariable('units')) AS value
  FROM request_nday_totals(getvariable('baseline_years'))
  GROUP BY cell, period, model
)
FROM period_stats('per_model')
