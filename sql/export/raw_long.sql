-- An export's raw daily values in long form, one row per value: the rows of its Parquet and CSV
-- files (src/export/tableWriter.ts), for one scenario and a group of map cells.
-- Placeholders, filled by the service from allow-lists only: variables (in double braces), the variables of
-- VARIABLES (src/climate/params.ts), comma-separated; location (in double braces), `location, ` for places and
-- nothing for an area.
-- $files: the distinct cell files to read; $cell_files, $cell_ids, $lats, $lons, $labels: one
-- entry per place (a file repeats when places share a cell) or per cell of an area;
-- $models VARCHAR[]; $years INTEGER[] (sorted); $dataset, $scenario: the labels of every row.
-- A model's value on a day is the stored float32, which is what the raw endpoints answer for
-- that model alone. Days a model's calendar lacks have no row (UNPIVOT drops NULLs).
WITH cells AS (
  SELECT unnest($cell_files) AS file, unnest($cell_ids) AS cell_id, unnest($lats) AS lat,
         unnest($lons) AS lon, unnest($labels) AS location
),
days AS (
  SELECT c.cell_id, c.lat, c.lon, c.location, d.model, d.date, {{variables}}
  FROM read_parquet($files, filename = true) d
  JOIN cells c ON c.file = d.filename
  WHERE d.date BETWEEN make_date(list_min($years), 1, 1) AND make_date(list_max($years), 12, 31)
    AND list_contains($years, year(d.date)::INTEGER)
    AND list_contains($models, d.model)
)
SELECT $dataset::VARCHAR AS dataset, $scenario::VARCHAR AS scenario, model, cell_id::INTEGER AS cell_id,
       lat::DOUBLE AS lat, lon::DOUBLE AS lon, {{location}}date, variable, value::FLOAT AS value
FROM (UNPIVOT days ON {{variables}} INTO NAME variable VALUE value)
ORDER BY variable, model, cell_id, location, date
