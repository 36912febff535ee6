-- An export's indicator values in long form, one row per (model, place, period): the rows of its
-- Parquet and CSV files. The location placeholder (in double braces) is `location, ` for places and nothing for an area (filled
-- by the service). $dataset, $scenario: the labels of every row.
SELECT $dataset::VARCHAR AS dataset, $scenario::VARCHAR AS scenario, model, cell_id, lat, lon, {{location}}period, indicator, units, value
FROM export_indicator_rows
ORDER BY indicator, model, cell_id, location, period
