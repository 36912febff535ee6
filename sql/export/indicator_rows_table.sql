-- The indicator values of one export file before they are written (src/export/indicatorValues.ts
-- appends each group of cells' values as it is computed; the export engine runs one export at a
-- time, and the next file replaces the table). Positions, not names: the indicator in the
-- export's list, the model in the scenario's, the cell in the export's distinct cells, the period
-- in the indicator's periods as the endpoint answered them.
CREATE OR REPLACE TABLE export_indicator_rows (
  indicator_index INTEGER,
  model_index INTEGER,
  cell_index INTEGER,
  period_index INTEGER,
  value DOUBLE
)
