-- Monthly summaries of one map cell and scenario, one row per (model, year, month): what the
-- indicator templates need for yearly, quarterly and monthly periods (see month_rows and
-- period_runs in sql/indicators/macros.sql, which must be loaded first). Every expression is the
-- one the templates apply to the days, so both paths give identical answers.
-- $file: the cell's daily Parquet; $historic: the cell's historical daily Parquet and
-- $ranges: the historic ranges (STRUCT(start_year INTEGER, end_year INTEGER)[]) for the heat-wave
-- series, or $has_historic = false when the cell has no historical data (heat is then NULL).
WITH days AS (
  SELECT model, date, year(date)::INTEGER AS year, month(date)::INTEGER AS month, (dayofyear(date) - 1)::INTEGER AS slot,
         tasmax::DOUBLE AS tasmax, tasmin::DOUBLE AS tasmin, pr::DOUBLE AS pr
  FROM read_parquet($file)
),
-- The daily climatology of each historic range, as historic_daily_tasmax computes it, by day slot:
-- {start_year: norm} for the ranges with data on that slot.
norms AS (
  SELECT slot, map_from_entries(list({'k': start_year, 'v': norm})) AS norms
  FROM (
    SELECT r.start_year, (dayofyear(h.date) - 1)::INTEGER AS slot, favg(h.tasmax::DOUBLE) AS norm
    FROM read_parquet($historic) AS h, (SELECT unnest($ranges) AS r)
    WHERE $has_historic AND year(h.date) BETWEEN r.start_year AND r.end_year AND h.tasmax IS NOT NULL
    GROUP BY ALL
  )
  GROUP BY slot
),
-- Per month, the days' heat flags against every range at once (one sort instead of one per range);
-- a day without a norm for a range is left out of that range's list, as the templates' join does.
heat AS (
  SELECT model, year, month,
         map_from_entries(list_transform(range(1, len($ranges) + 1), k -> {
           'k': $ranges[k].start_year,
           'v': CASE WHEN list_count(list_transform(days, x -> x.hot[k])) > 0
                     THEN run_summary(list_filter(list_transform(days, x -> x.hot[k]), f -> f IS NOT NULL)) END
         })) AS heat
  FROM (
    SELECT d.model, d.year, d.month,
           list_sort(list({'date': d.date, 'hot': list_transform($ranges, r -> d.tasmax > n.norms[r.start_year] + 5)})) AS days
    FROM days AS d JOIN norms AS n ON n.slot = d.slot
    WHERE d.tasmax IS NOT NULL
    GROUP BY ALL
  )
),
base AS (
  SELECT model, year, month,
         count(*) FILTER (WHERE tasmin <= 273.15) AS frost_days,
         max(tasmax) AS max_tasmax,
         min(tasmin) AS min_tasmin,
         list_sort(list({'date': date, 'pr': pr}) FILTER (WHERE pr IS NOT NULL)) AS prs
  FROM days
  GROUP BY ALL
)
SELECT b.* EXCLUDE (prs),
       run_summary(list_transform(b.prs, x -> x.pr = 0)) AS dry,
       run_summary(list_transform(b.prs, x -> NOT (x.pr > 0))) AS not_wet,
       h.heat
FROM base AS b LEFT JOIN heat AS h USING (model, year, month)
ORDER BY model, year, month
