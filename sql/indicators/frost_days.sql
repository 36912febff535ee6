-- Days per period with a low temperature at or below freezing (tasmin <= 273.15 K).
-- Whole-month periods add up the monthly counts; offset years and custom spans count the days.
WITH per_model AS (
  SELECT period, model, sum(frost_days)::BIGINT AS value
  FROM request_months(getvariable('baseline_years'))
  GROUP BY period, model
  UNION ALL
  SELECT period, model, count(*) FILTER (WHERE tasmin <= 273.15) AS value
  FROM month_cutting_days(getvariable('time_aggregation'))
  GROUP BY period, model
)
FROM period_stats('per_model')
