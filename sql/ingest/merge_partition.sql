-- One rebuilt partition (dataset, scenario, cell): the previous rows, with every (model, date,
-- variable) the ingested files cover replaced by the files' value (NULL where a file has none).
-- work.fresh holds the files' merged days of a batch of cells (src/ingest/netcdf/reduce.ts): one
-- row per (cell, scenario, model, date) a file covers, `covered` a bit per variable (tasmax 1,
-- tasmin 2, pr 4), NaN where the covering file has no value. Rows left with no value at all (a
-- 365-day model's Feb 29, a sea cell) are dropped: no row for days a model lacks.
-- The previous-rows placeholder below is filled by the ingest with `read_parquet($previous)` or an empty relation.
WITH fresh AS (
  SELECT $models[model + 1] AS model, date,
         (covered & 1) <> 0 AS has_tasmax,
         (covered & 2) <> 0 AS has_tasmin,
         (covered & 4) <> 0 AS has_pr,
         CASE WHEN isnan(tasmax) THEN NULL ELSE tasmax END AS tasmax,
         CASE WHEN isnan(tasmin) THEN NULL ELSE tasmin END AS tasmin,
         CASE WHEN isnan(pr) THEN NULL ELSE pr END AS pr
  FROM work.fresh
  WHERE cell_id = $cell AND scenario = $scenario
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
