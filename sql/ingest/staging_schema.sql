-- The ingest's staging database (DATA_DIR/ingest-staging/<dataset>.duckdb): per source file, the
-- values of the cells it was asked for. A file's `source` row is written after its `staged` rows,
-- so a source without a row was interrupted and its staged rows are dropped on the next run.
CREATE TABLE IF NOT EXISTS source (
  id INTEGER PRIMARY KEY,
  path VARCHAR NOT NULL,
  size BIGINT NOT NULL,
  mtime DOUBLE NOT NULL,
  cells_key VARCHAR NOT NULL,
  variable VARCHAR NOT NULL,
  model VARCHAR NOT NULL,
  scenario VARCHAR NOT NULL,
  first_day INTEGER,
  last_day INTEGER,
  n_values BIGINT NOT NULL
);
-- day: days since 1970-01-01; one row per day from the file's first to its last date and cell, NULL
-- where the file has no value (fill values, days its calendar lacks).
CREATE TABLE IF NOT EXISTS staged (source INTEGER NOT NULL, cell_id INTEGER NOT NULL, day INTEGER NOT NULL, value FLOAT);
DELETE FROM staged WHERE source NOT IN (SELECT id FROM source);
