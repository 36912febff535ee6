-- An export's indicator values in long form, one row per (model, place, period): the rows of its
-- Parquet and CSV files, from the collected values (sql/export/indicator_rows_table.sql). The
-- location placeholder (in double braces) is `location, ` for places and nothing for an area; the
-- constants placeholder `$dataset::VARCHAR AS dataset, $scenario::VARCHAR AS scenario, ` for Parquet
-- and nothing for CSV (filled by the service).
-- $places_cell VARCHAR[]..: one entry per place (a location, or a cell of an area), each naming
-- the position of its cell in the export's distinct cells ($places_cell, 0-based), its cell_id,
-- lat, lon and location label; $models, $indicators, $units: the names behind the positions;
-- $periods: every indicator's periods as one list, the indicator's starting at $period_starts
-- (0-based); $dataset, $scenario: the labels of every row (Parquet).
WITH places AS (
  SELECT unnest($places_cell) AS cell_index, unnest($cell_ids) AS cell_id, unnest($lats) AS lat,
         unnest($lons) AS lon, unnest($labels) AS location
)
SELECT {{constants}}$models[r.model_index + 1] AS model,
       p.cell_id::INTEGER AS cell_id, p.lat::DOUBLE AS lat, p.lon::DOUBLE AS lon, {{location}}
       $periods[$period_starts[r.indicator_index + 1] + r.period_index + 1] AS period,
       $indicators[r.indicator_index + 1] AS indicator, $units[r.indicator_index + 1] AS units, r.value
FROM export_indicator_rows r
JOIN places p ON p.cell_index = r.cell_index
ORDER BY r.indicator_index, r.model_index, p.cell_id, p.location, r.period_index
