-- Dry spells: runs of 5 or more consecutive days with no precipitation (pr = 0) per period and
-- model; no value for a period without precipitation data.
WITH per_model AS (
  FROM spells_per_model('dry', CASE WHEN n > 0 THEN runs5 END, pr = 0,
                        getvariable('time_aggregation'), getvariable('baseline_years'))
)
FROM period_stats('per_model')
