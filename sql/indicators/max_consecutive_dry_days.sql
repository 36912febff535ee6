-- Longest run of consecutive days without precipitation (not pr > 0) per period and model; 0 if none.
WITH per_model AS (
  SELECT period, model, coalesce(list_max(run_lengths(list(NOT (pr > 0) ORDER BY date) FILTER (WHERE pr IS NOT NULL))), 0) AS value
  FROM indicator_days(getvariable('file'), getvariable('models'), getvariable('years'), getvariable('time_aggregation'), getvariable('spans'))
  GROUP BY period, model
)
SELECT period_label(getvariable('time_aggregation'), period) AS period, across_models(list(value ORDER BY model), getvariable('aggs')) AS stats
FROM per_model
GROUP BY period
ORDER BY period
