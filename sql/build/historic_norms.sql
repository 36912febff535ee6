-- The daily climatology of each historic range of map cells, as historic_daily_tasmax in
-- sql/indicators/macros.sql computes it: for each day slot (day of year - 1), the mean tasmax of
-- every model and year of the range (NULL for a range missing from $ranges, or without days). The
-- monthly summaries of each scenario of the cell take it as $norms for their heat-wave series: it
-- is read once per cell, not once per scenario, and for many cells in one statement (its planning
-- cost more than a small cell's reading).
-- $historic: the cells' historical daily Parquet files, `part` their position in the list (from
-- 1); $ranges: the historic ranges (STRUCT(start_year INTEGER, end_year INTEGER)[], at most 4).
SELECT list_position($historic, filename)::INTEGER AS part, (dayofyear(date) - 1)::INTEGER AS slot,
       favg(tasmax::DOUBLE) FILTER (WHERE year(date) BETWEEN $ranges[1].start_year AND $ranges[1].end_year) AS n1,
       favg(tasmax::DOUBLE) FILTER (WHERE year(date) BETWEEN $ranges[2].start_year AND $ranges[2].end_year) AS n2,
       favg(tasmax::DOUBLE) FILTER (WHERE year(date) BETWEEN $ranges[3].start_year AND $ranges[3].end_year) AS n3,
       favg(tasmax::DOUBLE) FILTER (WHERE year(date) BETWEEN $ranges[4].start_year AND $ranges[4].end_year) AS n4
FROM read_parquet($historic, filename = true)
WHERE tasmax IS NOT NULL
GROUP BY ALL
ORDER BY part, slot
