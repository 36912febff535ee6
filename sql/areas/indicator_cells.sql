-- An indicator over an area, its last step: each model's values per period, already combined over
-- the area's cells (src/areas/areaIndicator.ts: the cells' values from runs of the indicator's
-- template without its last step, then the weighted mean, min or max over the cells), go through
-- the templates' last step, period_stats, as the values of one cell (cell 0): windows, the change
-- against a baseline (baseline periods have negative ids) and the statistics across models are the
-- same as for one cell, and the service runs this file as it runs the templates (servedStatement).
-- Session variables, set by the service as the templates' are (values bound as parameters):
--   area_periods (BIGINT[]), area_models (VARCHAR[]), area_values (DOUBLE[]): one list per column of
--     the combined rows, item i of each being one row (period id, model, value);
--   and the variables period_stats reads (time_aggregation, aggs, windows, baseline_years, change).
WITH per_model AS (
  SELECT 0 AS cell, unnest(getvariable('area_periods')) AS period, unnest(getvariable('area_models')) AS model,
         unnest(getvariable('area_values')) AS value
)
FROM period_stats('per_model')
