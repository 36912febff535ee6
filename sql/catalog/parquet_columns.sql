-- The names in a Parquet file's schema, its columns' and their fields' (the summaries' format
-- check, src/climate/summaryFormat.ts).
SELECT name FROM parquet_schema($file)
