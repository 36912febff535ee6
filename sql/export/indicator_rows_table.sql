-- The indicator values of one export file before DuckDB writes them (src/export/tableWriter.ts
-- appends one row per value; the connection's own temporary table, dropped after the COPY).
CREATE OR REPLACE TEMP TABLE export_indicator_rows (
  model VARCHAR,
  cell_id INTEGER,
  lat DOUBLE,
  lon DOUBLE,
  location VARCHAR,
  period VARCHAR,
  indicator VARCHAR,
  units VARCHAR,
  value DOUBLE
)
