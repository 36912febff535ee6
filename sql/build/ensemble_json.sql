-- The ensemble summaries of map cells and scenarios (sql/build/ensemble_daily.sql) as JSON text,
-- one row per part and year: for each variable and statistic, the year's 366 daily values as the raw data
-- endpoint prints them (json_day_value in sql/indicators/macros.sql; a null 366th in years of 365
-- days). Formatting 100,000 floats per request cost more than the rest of a century's request
-- together; the text never changes between builds and ingests, so it is written with the numbers.
-- $ensembles: the partitions' ensemble Parquet files, a part each (its position in the list, from 1).
-- Each value is formatted once in the scan, and each array joins its year's texts in date order
-- (day of year, within a year): a quarter less CPU than collecting each year's rows as structs and
-- picking every column out of them (docs/data.md, "Where the default build's time goes").
SELECT list_position($ensembles, filename)::INTEGER AS part, year,
       '[' || string_agg(tasmax_avg, ',' ORDER BY doy) || repeat(',null', 366 - count(*)::INTEGER) || ']' AS tasmax_avg,
       '[' || string_agg(tasmax_min, ',' ORDER BY doy) || repeat(',null', 366 - count(*)::INTEGER) || ']' AS tasmax_min,
       '[' || string_agg(tasmax_max, ',' ORDER BY doy) || repeat(',null', 366 - count(*)::INTEGER) || ']' AS tasmax_max,
       '[' || string_agg(tasmin_avg, ',' ORDER BY doy) || repeat(',null', 366 - count(*)::INTEGER) || ']' AS tasmin_avg,
       '[' || string_agg(tasmin_min, ',' ORDER BY doy) || repeat(',null', 366 - count(*)::INTEGER) || ']' AS tasmin_min,
       '[' || string_agg(tasmin_max, ',' ORDER BY doy) || repeat(',null', 366 - count(*)::INTEGER) || ']' AS tasmin_max,
       '[' || string_agg(pr_avg, ',' ORDER BY doy) || repeat(',null', 366 - count(*)::INTEGER) || ']' AS pr_avg,
       '[' || string_agg(pr_min, ',' ORDER BY doy) || repeat(',null', 366 - count(*)::INTEGER) || ']' AS pr_min,
       '[' || string_agg(pr_max, ',' ORDER BY doy) || repeat(',null', 366 - count(*)::INTEGER) || ']' AS pr_max
FROM (SELECT filename, year(date)::INTEGER AS year, dayofyear(date)::SMALLINT AS doy,
             json_day_value(tasmax_avg) AS tasmax_avg,
             json_day_value(tasmax_min) AS tasmax_min,
             json_day_value(tasmax_max) AS tasmax_max,
             json_day_value(tasmin_avg) AS tasmin_avg,
             json_day_value(tasmin_min) AS tasmin_min,
             json_day_value(tasmin_max) AS tasmin_max,
             json_day_value(pr_avg) AS pr_avg,
             json_day_value(pr_min) AS pr_min,
             json_day_value(pr_max) AS pr_max
      FROM read_parquet($ensembles, filename = true))
GROUP BY filename, year
ORDER BY part, year
