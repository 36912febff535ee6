-- Monthly summaries of one map cell and scenario, one row per (model, year, month): what the
-- indicator templates need for yearly, quarterly and monthly periods (see month_rows and
-- period_runs in sql/indicators/macros.sql, which must be loaded first). Every expression is the
-- one the templates apply to the days, so both paths give identical answers.
-- $file: the cell's daily Parquet; $historic: the cell's historical daily Parquet and
-- $ranges: the historic ranges (STRUCT(start_year INTEGER, end_year INTEGER)[], at most 4) for the
-- heat-wave series, or $has_historic = false when the cell has no historical data (heat is then NULL).
--
-- The run series (dry, not_wet, heat) need each month's flags in date order. Collecting and
-- sorting a list of days per month cost most of a data build (2.3 s of 3 for a LOCA century);
-- instead the flags are summed as base-3 digits at their day of the month (flag_digit), an
-- aggregate without a sort, and read back in date order (month_flags, run_summary_text).
-- The heat series of the ranges are columns n1..n4 and h1..h4, one pass over the days: joining
-- the days with one row per range and grouping again cost a quarter of the summaries.
WITH days AS (
  SELECT model, year(date)::INTEGER AS year, month(date)::INTEGER AS month, day_place(day(date)) AS place,
         (dayofyear(date) - 1)::INTEGER AS slot, tasmax::DOUBLE AS tasmax, tasmin::DOUBLE AS tasmin, pr::DOUBLE AS pr
  FROM read_parquet($file)
),
-- The daily climatology of each historic range, as historic_daily_tasmax computes it, by day slot
-- (NULL for a range missing from $ranges).
norms AS (
  SELECT (dayofyear(date) - 1)::INTEGER AS slot,
         favg(tasmax::DOUBLE) FILTER (WHERE year(date) BETWEEN $ranges[1].start_year AND $ranges[1].end_year) AS n1,
         favg(tasmax::DOUBLE) FILTER (WHERE year(date) BETWEEN $ranges[2].start_year AND $ranges[2].end_year) AS n2,
         favg(tasmax::DOUBLE) FILTER (WHERE year(date) BETWEEN $ranges[3].start_year AND $ranges[3].end_year) AS n3,
         favg(tasmax::DOUBLE) FILTER (WHERE year(date) BETWEEN $ranges[4].start_year AND $ranges[4].end_year) AS n4
  FROM read_parquet($historic)
  WHERE $has_historic AND tasmax IS NOT NULL
  GROUP BY ALL
),
-- Per month, the flags of each series as digit sums; a day without a norm for a range has no heat
-- flag for that range and is left out of its series, as the templates' join does.
digits AS (
  SELECT model, year, month,
         count(*) FILTER (WHERE tasmin <= 273.15) AS frost_days,
         max(tasmax) AS max_tasmax,
         min(tasmin) AS min_tasmin,
         coalesce(sum(flag_digit(place, pr = 0)), 0) AS dry,
         coalesce(sum(flag_digit(place, NOT (pr > 0))), 0) AS not_wet,
         sum(flag_digit(place, tasmax > n1 + 5)) AS h1,
         sum(flag_digit(place, tasmax > n2 + 5)) AS h2,
         sum(flag_digit(place, tasmax > n3 + 5)) AS h3,
         sum(flag_digit(place, tasmax > n4 + 5)) AS h4
  FROM days LEFT JOIN norms USING (slot)
  GROUP BY ALL
),
runs AS (
  SELECT model, year, month, frost_days, max_tasmax, min_tasmin,
         run_summary_text(month_flags(dry)) AS dry,
         run_summary_text(month_flags(not_wet)) AS not_wet,
         CASE WHEN h1 > 0 THEN run_summary_text(month_flags(h1)) END AS h1,
         CASE WHEN h2 > 0 THEN run_summary_text(month_flags(h2)) END AS h2,
         CASE WHEN h3 > 0 THEN run_summary_text(month_flags(h3)) END AS h3,
         CASE WHEN h4 > 0 THEN run_summary_text(month_flags(h4)) END AS h4
  FROM digits
)
-- heat_<start year>: the series of each historic range of $ranges, in its order (the service
-- puts in the column names: h1 AS heat_1961, ...), NULL in a month without days
-- for it (digit sum 0). One column per range, not a MAP keyed by start year: reading a month's MAP cost a
-- heat-wave request 4 ms more than a column (7.3 against 3.3 ms for one cell's century).
SELECT model, year, month, frost_days, max_tasmax, min_tasmin, dry, not_wet{{heat_columns}}
FROM runs
ORDER BY model, year, month
