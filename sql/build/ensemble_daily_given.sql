-- The ensemble summary of one map cell and scenario (ensemble_daily.sql) from the statistics the
-- build computed from the days it holds in memory (src/ingest/ensembleDays.ts): the same columns and
-- types, NULL (NaN there) on a day without any model's value. $ensemble: the rows' id (src/db/rowSource.ts).
SELECT date, nullif(COLUMNS(* EXCLUDE (date)), 'NaN'::FLOAT)
-- No ORDER BY: the days come in date order, which the COPY keeps.
FROM row_source($ensemble::INTEGER)
