-- The ensemble summary of one map cell and scenario (sql/build/ensemble_daily.sql) as JSON text,
-- one row per year: for each variable and statistic, the year's 366 daily values as the raw data
-- endpoint prints them (json_day_array in sql/indicators/macros.sql). Formatting 100,000 floats
-- per request cost more than the rest of a century's request together; the text never changes
-- between builds and ingests, so it is written with the numbers.
-- $ensemble: the cell's ensemble Parquet.
-- The year's days are collected once in date order (one sort, not one per column).
SELECT year,
       json_day_array(list_transform(days, d -> d.tasmax_avg)) AS tasmax_avg,
       json_day_array(list_transform(days, d -> d.tasmax_min)) AS tasmax_min,
       json_day_array(list_transform(days, d -> d.tasmax_max)) AS tasmax_max,
       json_day_array(list_transform(days, d -> d.tasmin_avg)) AS tasmin_avg,
       json_day_array(list_transform(days, d -> d.tasmin_min)) AS tasmin_min,
       json_day_array(list_transform(days, d -> d.tasmin_max)) AS tasmin_max,
       json_day_array(list_transform(days, d -> d.pr_avg)) AS pr_avg,
       json_day_array(list_transform(days, d -> d.pr_min)) AS pr_min,
       json_day_array(list_transform(days, d -> d.pr_max)) AS pr_max
FROM (SELECT year(date)::INTEGER AS year, list(e ORDER BY e.date) AS days FROM read_parquet($ensemble) e GROUP BY 1)
ORDER BY 1
