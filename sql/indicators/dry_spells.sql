-- Dry spells: runs of 5 or more consecutive days with no precipitation (pr = 0) per period and model.
WITH per_model AS (
  SELECT period, model, len(list_filter(run_lengths(list(pr = 0 ORDER BY date) FILTER (WHERE pr IS NOT NULL)), n -> n >= 5)) AS value
  FROM indicator_days(getvariable('file'), getvariable('models'), getvariable('years'), getvariable('time_aggregation'), getvariable('spans'))
  GROUP BY period, model
)
SELECT period_label(getvariable('time_aggregation'), period) AS period, across_models(list(value ORDER BY model), getvariable('aggs')) AS stats
FROM per_model
GROUP BY period
ORDER BY period
