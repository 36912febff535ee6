-- The monthly summaries of one map cell and scenario (monthly_summary.sql) from the run summaries
-- the build computed from the days it holds in memory (src/ingest/monthlySummaries.ts): the same
-- columns and types. Each run series comes as its fields (dry_n, dry_head, ...), a heat series with
-- n = 0 in a month without any flag of it (NULL in monthly_summary.sql), and the extreme events of
-- its range (-1: the range has no thresholds, NULL in the file). $summaries: the rows' id
-- (src/db/rowSource.ts).
-- A block of lines holding @ is written once per heat series (h1, h2, ...: forEachSeries in
-- src/ingest/summaries.ts); DuckDB takes the comma the last series leaves before FROM.
WITH m AS (
  SELECT model, year, month, frost_days::BIGINT AS frost_days, max_tasmax, min_tasmin,
         sum_tasmax, n_tasmax::BIGINT AS n_tasmax, sum_tasmin, n_tasmin::BIGINT AS n_tasmin,
         sum_dtr, n_dtr::BIGINT AS n_dtr, sum_pr, max_pr,
         -- NaN: no n days of precipitation ending in the month.
         CASE WHEN NOT isnan(rx2day) THEN rx2day END AS rx2day, CASE WHEN NOT isnan(rx3day) THEN rx3day END AS rx3day, CASE WHEN NOT isnan(rx4day) THEN rx4day END AS rx4day, CASE WHEN NOT isnan(rx5day) THEN rx5day END AS rx5day, CASE WHEN NOT isnan(rx6day) THEN rx6day END AS rx6day, CASE WHEN NOT isnan(rx7day) THEN rx7day END AS rx7day, CASE WHEN NOT isnan(rx8day) THEN rx8day END AS rx8day, CASE WHEN NOT isnan(rx9day) THEN rx9day END AS rx9day, CASE WHEN NOT isnan(rx10day) THEN rx10day END AS rx10day,
         -- NaN: no day above (below) the base, NULL as fsum of no rows.
         CASE WHEN NOT isnan(cooling_65f) THEN cooling_65f END AS cooling_65f, CASE WHEN NOT isnan(heating_65f) THEN heating_65f END AS heating_65f,
         -- NaN: no value (a year's rows but its first, an offset year without the next year's days).
         CASE WHEN NOT isnan(afdd_year) THEN afdd_year END AS afdd_year, CASE WHEN NOT isnan(afdd_offset_year) THEN afdd_offset_year END AS afdd_offset_year,
         CASE WHEN NOT isnan(p50_tasmax_year) THEN p50_tasmax_year END AS p50_tasmax_year, CASE WHEN NOT isnan(p50_tasmin_year) THEN p50_tasmin_year END AS p50_tasmin_year,
         CASE WHEN NOT isnan(p50_pr_year) THEN p50_pr_year END AS p50_pr_year,
         {'n': dry_n, 'head': dry_head, 'tail': dry_tail, 'longest': dry_longest, 'runs5': dry_runs5} AS dry,
         {'n': not_wet_n, 'head': not_wet_head, 'tail': not_wet_tail, 'longest': not_wet_longest, 'runs5': not_wet_runs5} AS not_wet,
         -- A year's run summary, packed (year_runs); -1: none (the year's rows but its first).
         CASE WHEN dry_year >= 0 THEN dry_year END AS dry_year, CASE WHEN not_wet_year >= 0 THEN not_wet_year END AS not_wet_year,
         CASE WHEN @_n > 0 THEN {'n': @_n, 'head': @_head, 'tail': @_tail, 'longest': @_longest, 'runs5': @_runs5} END AS @
         CASE WHEN @_year >= 0 THEN @_year END AS @_year
         CASE WHEN @_extreme_heat >= 0 THEN @_extreme_heat END AS @_extreme_heat
         CASE WHEN @_extreme_cold >= 0 THEN @_extreme_cold END AS @_extreme_cold
         CASE WHEN @_extreme_precipitation >= 0 THEN @_extreme_precipitation END AS @_extreme_precipitation
  FROM row_source($summaries::INTEGER)
)
SELECT model, year, month, frost_days, max_tasmax, min_tasmin, sum_tasmax, n_tasmax, sum_tasmin, n_tasmin, sum_dtr, n_dtr, sum_pr, max_pr, rx2day, rx3day, rx4day, rx5day, rx6day, rx7day, rx8day, rx9day, rx10day, cooling_65f, heating_65f, afdd_year, afdd_offset_year, p50_tasmax_year, p50_tasmin_year, p50_pr_year, dry, not_wet, dry_year, not_wet_year{{heat_columns}}
-- No ORDER BY: the rows come sorted by model, year and month (the order of their index k), and a
-- COPY keeps the order it reads (preserve_insertion_order): a sort would only cost.
FROM m
