-- Days per period with tasmin strictly below the historic percentile ('percentile') of the historic
-- range ('historic_file' for the cell's historical data, 'historic_start'..'historic_end').
WITH baseline AS (
  SELECT historic_percentile(getvariable('historic_file'), getvariable('historic_start'), getvariable('historic_end'), 'tasmin', getvariable('percentile')) AS threshold
),
per_model AS (
  SELECT period, model, count(*) FILTER (WHERE tasmin < baseline.threshold) AS value
  FROM request_days(getvariable('baseline_years')), baseline
  GROUP BY period, model
)
FROM period_stats('per_model')
