-- A reload's check of a new data build (src/dataGeneration.ts): one of its climate files answers.
SELECT count(*) AS n FROM (FROM read_parquet($file) LIMIT 1);
