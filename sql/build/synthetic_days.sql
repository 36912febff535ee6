-- The synthetic days of one map cell and scenario (src/ingest/syntheticDays.ts), as the cell files
-- store them: model, date, tasmax (K), tasmin (K), pr (kg m-2 s-1), by model then date, in the order
-- the generator makes them (no sort). $source: the rows' id (src/db/rowSource.ts).
SELECT model, date, tasmax, tasmin, pr FROM row_source($source::INTEGER)
