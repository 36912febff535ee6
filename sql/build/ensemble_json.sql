-- The ensemble summary of one map cell and scenario (sql/build/ensemble_daily.sql) as JSON text,
-- one row per year: for each variable and statistic, the year's 366 daily values as the raw data
-- endpoint prints them (json_day_array in sql/indicators/macros.sql). Formatting 100,000 floats
-- per request cost more than the rest of a century's request together; the text never changes
-- between builds and ingests, so it is written with the numbers.
-- $ensemble: the cell's ensemble Parquet.
SELECT year(date)::INTEGER AS year,
       json_day_array(list(tasmax_avg ORDER BY date)) AS tasmax_avg,
       json_day_array(list(tasmax_min ORDER BY date)) AS tasmax_min,
       json_day_array(list(tasmax_max ORDER BY date)) AS tasmax_max,
       json_day_array(list(tasmin_avg ORDER BY date)) AS tasmin_avg,
       json_day_array(list(tasmin_min ORDER BY date)) AS tasmin_min,
       json_day_array(list(tasmin_max ORDER BY date)) AS tasmin_max,
       json_day_array(list(pr_avg ORDER BY date)) AS pr_avg,
       json_day_array(list(pr_min ORDER BY date)) AS pr_min,
       json_day_array(list(pr_max ORDER BY date)) AS pr_max
FROM read_parquet($ensemble)
GROUP BY 1
ORDER BY 1
