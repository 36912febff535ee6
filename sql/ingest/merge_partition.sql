-- One rebuilt partition (dataset, scenario, cell): the previous rows, with every (model, date,
-- variable) the ingested files cover replaced by the files' value (NULL where a file has none).
-- work.fresh holds the files' merged days of a batch of cells (src/ingest/netcdf/reduce.ts): one
-- row per (cell, scenario, model, date) a file covers, `covered` a bit per variable (tasmax 1,
-- tasmin 2, pr 4, tas 8, hurs 16, huss 32), NaN where the covering file has no value. Rows left
-- with no value at all (a 365-day model's Feb 29, a sea cell) are dropped: no row for days a model
-- lacks. Every variable is carried over from the previous rows unless a file covers it: humidity
-- ingested into a cell with tasmax, tasmin and pr keeps them, and the reverse.
-- The previous-rows placeholder below is filled by the ingest with `read_parquet($previous)` or an
-- empty relation. A previous file written without tas, hurs and huss (a dataset without them, a
-- build from before them) has them NULL: UNION ALL BY NAME with an empty typed row adds them.
-- The dataset's own columns are chosen by the ingest (src/ingest/netcdf/reduce.ts): a dataset
-- without humidity writes tasmax, tasmin and pr only.
WITH fresh AS (
  SELECT $models[model + 1] AS model, date, covered,
         CASE WHEN isnan(tasmax) THEN NULL ELSE tasmax END AS tasmax,
         CASE WHEN isnan(tasmin) THEN NULL ELSE tasmin END AS tasmin,
         CASE WHEN isnan(pr) THEN NULL ELSE pr END AS pr,
         CASE WHEN isnan(tas) THEN NULL ELSE tas END AS tas,
         CASE WHEN isnan(hurs) THEN NULL ELSE hurs END AS hurs,
         CASE WHEN isnan(huss) THEN NULL ELSE huss END AS huss
  FROM work.fresh
  WHERE cell_id = $cell AND scenario = $scenario
),
previous AS (
  SELECT model, date, tasmax, tasmin, pr, tas, hurs, huss
  FROM (
    FROM {{previous}}
    UNION ALL BY NAME
    SELECT NULL::VARCHAR AS model, NULL::DATE AS date, NULL::FLOAT AS tasmax, NULL::FLOAT AS tasmin, NULL::FLOAT AS pr,
           NULL::FLOAT AS tas, NULL::FLOAT AS hurs, NULL::FLOAT AS huss
    WHERE false
  )
),
merged AS (
  SELECT coalesce(f.model, p.model) AS model,
         coalesce(f.date, p.date) AS date,
         (CASE WHEN (f.covered & 1) <> 0 THEN f.tasmax ELSE p.tasmax END)::FLOAT AS tasmax,
         (CASE WHEN (f.covered & 2) <> 0 THEN f.tasmin ELSE p.tasmin END)::FLOAT AS tasmin,
         (CASE WHEN (f.covered & 4) <> 0 THEN f.pr ELSE p.pr END)::FLOAT AS pr,
         (CASE WHEN (f.covered & 8) <> 0 THEN f.tas ELSE p.tas END)::FLOAT AS tas,
         (CASE WHEN (f.covered & 16) <> 0 THEN f.hurs ELSE p.hurs END)::FLOAT AS hurs,
         (CASE WHEN (f.covered & 32) <> 0 THEN f.huss ELSE p.huss END)::FLOAT AS huss
  FROM previous p FULL OUTER JOIN fresh f ON p.model = f.model AND p.date = f.date
)
SELECT model::VARCHAR AS model, date::DATE AS date, tasmax, tasmin, pr, tas, hurs, huss
FROM merged
WHERE tasmax IS NOT NULL OR tasmin IS NOT NULL OR pr IS NOT NULL OR tas IS NOT NULL OR hurs IS NOT NULL OR huss IS NOT NULL
ORDER BY model, date
