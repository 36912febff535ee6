-- Days per period with tasmin strictly below the historic percentile ('percentile') of the historic
-- range ('historic_file' for the cell's historical data, 'historic_start'..'historic_end').
-- Whole months at the default percentile (1) add up the monthly summaries' extreme_cold_<start year>.
WITH per_model AS (FROM percentile_events('extreme_cold', 'tasmin', tasmin < threshold, getvariable('percentile') = 1, getvariable('baseline_years')))
FROM period_stats('per_model')
