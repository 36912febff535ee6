-- Days per period with tasmax strictly above the historic percentile ('percentile') of the historic
-- range ('historic_file' for the cell's historical data, 'historic_start'..'historic_end').
WITH baseline AS (
  SELECT historic_percentile(getvariable('historic_file'), getvariable('historic_start'), getvariable('historic_end'), 'tasmax', getvariable('percentile')) AS threshold
),
per_model AS (
  SELECT period, model, count(*) FILTER (WHERE tasmax > baseline.threshold) AS value
  FROM indicator_days(getvariable('file'), getvariable('monthly_file'), getvariable('models'), getvariable('years'), getvariable('time_aggregation'), getvariable('spans')), baseline
  GROUP BY period, model
)
SELECT period_label(getvariable('time_aggregation'), period) AS period, across_models(list(value), getvariable('aggs')) AS stats
FROM per_model
GROUP BY period
ORDER BY period
