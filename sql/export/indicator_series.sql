-- The collected indicator values (sql/export/indicator_rows_table.sql) in the order of the NetCDF
-- file's series: each (indicator, model, cell) series whole, its periods in order
-- (src/export/indicatorValues.ts writes one series at a time).
SELECT indicator_index, model_index, cell_index, period_index, value
FROM export_indicator_rows
ORDER BY indicator_index, model_index, cell_index, period_index
