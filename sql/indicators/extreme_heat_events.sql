-- Days per period with tasmax strictly above the historic percentile ('percentile') of the historic
-- range ('historic_file' for the cell's historical data, 'historic_start'..'historic_end').
WITH per_model AS (FROM percentile_events('tasmax', tasmax > threshold, getvariable('baseline_years')))
FROM period_stats('per_model')
