-- One rebuilt partition (dataset, $scenario, $cell): the previous rows, with every (model, date,
-- variable) the ingested files cover replaced by the files' value (NULL where a file has none).
-- Where two files cover the same value, the one staged last wins. Rows left with no value at all
-- (a 365-day model's Feb 29, a sea cell) are dropped: no row for days a model lacks.
-- The previous-rows placeholder below is filled by the ingest with `read_parquet($previous)` or an empty relation.
WITH fresh AS (
  SELECT model, DATE '1970-01-01' + day AS date,
         count(*) FILTER (WHERE variable = 'tasmax') > 0 AS has_tasmax,
         count(*) FILTER (WHERE variable = 'tasmin') > 0 AS has_tasmin,
         count(*) FILTER (WHERE variable = 'pr') > 0 AS has_pr,
         arg_max_null(value, source) FILTER (WHERE variable = 'tasmax') AS tasmax,
         arg_max_null(value, source) FILTER (WHERE variable = 'tasmin') AS tasmin,
         arg_max_null(value, source) FILTER (WHERE variable = 'pr') AS pr
  FROM work.pending
  WHERE scenario = $scenario AND cell_id = $cell
  GROUP BY model, day
),
previous AS (
  SELECT model, date, tasmax, tasmin, pr FROM {{previous}}
),
merged AS (
  SELECT coalesce(f.model, p.model) AS model,
         coalesce(f.date, p.date) AS date,
         (CASE WHEN f.has_tasmax THEN f.tasmax ELSE p.tasmax END)::FLOAT AS tasmax,
         (CASE WHEN f.has_tasmin THEN f.tasmin ELSE p.tasmin END)::FLOAT AS tasmin,
         (CASE WHEN f.has_pr THEN f.pr ELSE p.pr END)::FLOAT AS pr
  FROM previous p FULL OUTER JOIN fresh f ON p.model = f.model AND p.date = f.date
)
SELECT model::VARCHAR AS model, date::DATE AS date, tasmax, tasmin, pr
FROM merged
WHERE tasmax IS NOT NULL OR tasmin IS NOT NULL OR pr IS NOT NULL
ORDER BY model, date
