-- Accumulated freezing degree days: the largest sum, over consecutive days of the period, of
-- (273.15 K - daily mean temperature), a running total floored at 0; units are a temperature difference.
WITH per_model AS (
  SELECT cell, period, model, temperature_delta_from_k(value, getvariable('units')) AS value
  FROM max_running_sum(273.15 - (tasmax + tasmin) / 2, getvariable('baseline_years'))
)
FROM period_stats('per_model')
