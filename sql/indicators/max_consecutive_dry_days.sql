-- Longest run of consecutive days without precipitation (not pr > 0) per period and model; 0 if none.
WITH per_model AS (
  FROM spells_per_model('not_wet', longest, NOT (pr > 0),
                        getvariable('time_aggregation'), getvariable('baseline_years'))
)
FROM period_stats('per_model')
