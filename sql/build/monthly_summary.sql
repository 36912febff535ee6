-- Monthly summaries of one map cell and scenario, one row per (model, year, month): what the
-- indicator templates need for yearly, quarterly and monthly periods (see month_rows and
-- period_runs in sql/indicators/macros.sql, which must be loaded first). Every expression is the
-- one the templates apply to the days, so both paths give identical answers.
-- $file: the cell's daily Parquet; $historic: the cell's historical daily Parquet and
-- $ranges: the historic ranges (STRUCT(start_year INTEGER, end_year INTEGER)[]) for the heat-wave
-- series, or $has_historic = false when the cell has no historical data (heat is then NULL).
--
-- The run series (dry, not_wet, heat) need each month's flags in date order. Collecting and
-- sorting a list of days per month cost most of a data build (2.3 s of 3 for a LOCA century);
-- instead the flags are summed as base-3 digits at their day of the month (month_day_digit), an
-- aggregate without a sort, and read back in date order (month_flags, run_summary_text).
WITH days AS (
  SELECT model, year(date)::INTEGER AS year, month(date)::INTEGER AS month, day(date)::INTEGER AS day,
         (dayofyear(date) - 1)::INTEGER AS slot, tasmax::DOUBLE AS tasmax, tasmin::DOUBLE AS tasmin, pr::DOUBLE AS pr
  FROM read_parquet($file)
),
-- The daily climatology of each historic range, as historic_daily_tasmax computes it, by day slot.
norms AS (
  SELECT r.start_year, (dayofyear(h.date) - 1)::INTEGER AS slot, favg(h.tasmax::DOUBLE) AS norm
  FROM read_parquet($historic) AS h, (SELECT unnest($ranges) AS r)
  WHERE $has_historic AND year(h.date) BETWEEN r.start_year AND r.end_year AND h.tasmax IS NOT NULL
  GROUP BY ALL
),
-- Per month and range, the heat flags against that range's norm; a day without a norm for a range
-- is left out of that range's series, as the templates' join does.
heat AS (
  SELECT model, year, month, map_from_entries(list({'k': start_year, 'v': run_summary_text(month_flags(digits))})) AS heat
  FROM (
    SELECT d.model, d.year, d.month, n.start_year, sum(month_day_digit(d.day, d.tasmax > n.norm + 5)) AS digits
    FROM days AS d JOIN norms AS n ON n.slot = d.slot
    WHERE d.tasmax IS NOT NULL
    GROUP BY ALL
  )
  GROUP BY ALL
),
base AS (
  SELECT model, year, month,
         count(*) FILTER (WHERE tasmin <= 273.15) AS frost_days,
         max(tasmax) AS max_tasmax,
         min(tasmin) AS min_tasmin,
         coalesce(sum(month_day_digit(day, pr = 0)), 0) AS dry,
         coalesce(sum(month_day_digit(day, NOT (pr > 0))), 0) AS not_wet
  FROM days
  GROUP BY ALL
)
SELECT b.model, b.year, b.month, b.frost_days, b.max_tasmax, b.min_tasmin,
       run_summary_text(month_flags(b.dry)) AS dry,
       run_summary_text(month_flags(b.not_wet)) AS not_wet,
       h.heat
FROM base AS b LEFT JOIN heat AS h USING (model, year, month)
ORDER BY model, year, month
