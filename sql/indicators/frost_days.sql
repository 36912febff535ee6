-- Days per period with a low temperature at or below freezing (tasmin <= 273.15 K).
-- Whole-month periods add up the monthly counts; offset years and custom spans count the days.
WITH per_model AS (
  FROM months_per_model(sum(frost_days)::BIGINT,
                        count(*) FILTER (WHERE tasmin <= 273.15),
                        getvariable('time_aggregation'), getvariable('baseline_years'))
)
FROM period_stats('per_model')
