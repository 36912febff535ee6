-- The files' merged days of one batch of cells (src/ingest/netcdf/reduce.ts), appended in
-- (cell, scenario, model, date) order, read by merge_partition.sql. In an attached in-memory
-- database, so that every connection of the reduce sees it.
ATTACH IF NOT EXISTS ':memory:' AS work;
CREATE OR REPLACE TABLE work.fresh (
  cell_id INTEGER, scenario UTINYINT, model USMALLINT, date DATE,
  tasmax FLOAT, tasmin FLOAT, pr FLOAT, tas FLOAT, hurs FLOAT, huss FLOAT, covered UTINYINT
);
