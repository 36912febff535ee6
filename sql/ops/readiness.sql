-- GET /readyz: the query pool hands out a connection and DuckDB answers.
SELECT 1 AS ready;
