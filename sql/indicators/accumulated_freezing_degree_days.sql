-- Accumulated freezing degree days: the largest sum, over consecutive days of the period, of
-- (273.15 K - daily mean temperature), a running total floored at 0; units are a temperature difference.
-- Years and offset years are read from the monthly summaries, months, quarters and custom spans from the days (freezing_per_model).
WITH per_model AS (
  SELECT cell, period, model, temperature_delta_from_k(value, getvariable('units')) AS value
  FROM freezing_per_model(getvariable('time_aggregation'), getvariable('baseline_years'))
)
FROM period_stats('per_model')
