-- The names in a Parquet file's schema, its columns' and their fields' (the summaries' format
-- check, src/dataBuild/summaryFormat.ts).
SELECT name FROM parquet_schema($file)
