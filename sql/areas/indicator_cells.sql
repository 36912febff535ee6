-- An indicator over an area: each model's values per period at every cell of the area (each cell's
-- rows from its own run of the indicator's template, without its last step; see
-- src/areas/areaIndicator.ts), combined over the cells, then the template's last step,
-- period_stats, on the combined values: windows, the change against a baseline and the statistics
-- across models are the same as for one cell.
-- Session variables, set by the service as the templates' are (values bound as parameters):
--   area_cells, area_periods, area_models, area_values, area_weights: one list per column of the
--     cells' rows, item i of each being one row (cell id, period id, model, value, the cell's weight);
--   area_agg: 'mean' (weighted by the cells' weights), 'min' or 'max' across the cells;
--   and the variables period_stats reads (time_aggregation, aggs, windows, baseline_years, change).
-- A cell without a value for a (period, model) is left out of that combination, its weight with it;
-- where no cell has one, the model's value is NULL, as it is for one cell.
WITH cell_values AS (
  SELECT unnest(getvariable('area_cells')) AS cell, unnest(getvariable('area_periods')) AS period,
         unnest(getvariable('area_models')) AS model, unnest(getvariable('area_values')) AS value,
         unnest(getvariable('area_weights')) AS weight
),
per_model AS (
  -- Sums over the cells in cell order, so that an answer does not depend on the order rows arrive in.
  SELECT period, model, CASE getvariable('area_agg')
           WHEN 'mean' THEN list_sum(list_transform(list_sort(list({'c': cell, 'vw': value * weight}) FILTER (WHERE value IS NOT NULL)), x -> x.vw))
                            / list_sum(list_transform(list_sort(list({'c': cell, 'w': weight}) FILTER (WHERE value IS NOT NULL)), x -> x.w))
           WHEN 'min' THEN min(value)
           WHEN 'max' THEN max(value)
         END AS value
  FROM cell_values
  GROUP BY period, model
)
FROM period_stats('per_model')
