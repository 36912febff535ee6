-- Days per period with tasmax strictly above the historic percentile ('percentile') of the historic
-- range ('historic_file' for the cell's historical data, 'historic_start'..'historic_end').
-- Whole months at the default percentile (99) add up the monthly summaries' extreme_heat_<start year>.
WITH per_model AS (FROM percentile_events('extreme_heat', 'tasmax', tasmax > threshold, getvariable('percentile') = 99, getvariable('baseline_years')))
FROM period_stats('per_model')
