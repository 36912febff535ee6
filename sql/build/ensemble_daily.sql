-- Daily statistics across all the models of map cells and scenarios (partitions): for each day of each year
-- that has data, the avg, min and max of every variable over the models with a value (NULL where
-- none has one). The raw data endpoint reads this when a request asks for every model, instead of
-- reducing the 21-32 models' days on each request. Same expressions as sql/climate/raw_daily.sql.
-- $files: the partitions' daily Parquet files, a part each (its position in the list, from 1): one
-- statement for many, as sql/build/monthly_summary.sql.
WITH stats AS (
  SELECT list_position($files, filename)::INTEGER AS part, date,
         avg(tasmax)::FLOAT AS tasmax_avg, min(tasmax)::FLOAT AS tasmax_min, max(tasmax)::FLOAT AS tasmax_max,
         avg(tasmin)::FLOAT AS tasmin_avg, min(tasmin)::FLOAT AS tasmin_min, max(tasmin)::FLOAT AS tasmin_max,
         avg(pr)::FLOAT AS pr_avg, min(pr)::FLOAT AS pr_min, max(pr)::FLOAT AS pr_max
  FROM read_parquet($files, filename = true)
  GROUP BY filename, date
),
-- Every day of the years with data (from the days' statistics, not a second pass over the days).
calendar AS (
  SELECT part, unnest(generate_series(make_date(y, 1, 1), make_date(y, 12, 31), INTERVAL 1 DAY))::DATE AS date
  FROM (SELECT DISTINCT part, year(date)::INTEGER AS y FROM stats)
)
SELECT * FROM calendar LEFT JOIN stats USING (part, date)
ORDER BY part, date
