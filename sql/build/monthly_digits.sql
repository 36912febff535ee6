-- The first step of the monthly summaries (monthly_summary.sql) from one map cell and scenario's
-- daily file: per model, year and month, the frost days, the highest tasmax, the lowest tasmin, and
-- each run series' flags as base-4 digits at their day of the month. src/ingest/monthlyDigits.ts
-- computes the same from days in memory (a test compares the two).
-- $file: the cell's daily Parquet; $norms: the daily climatology of each historic range for the
-- heat-wave series (sql/build/historic_norms.sql: STRUCT(slot INTEGER, n1 DOUBLE, n2 DOUBLE,
-- n3 DOUBLE, n4 DOUBLE)[], ranges at most 4; an empty list when the cell has no historical data:
-- heat is then NULL).
-- The heat series of the ranges are columns n1..n4 and h1..h4, one pass over the days: joining
-- the days with one row per range and grouping again cost a quarter of the summaries.
WITH days AS (
  SELECT model, year(date)::INTEGER AS year, month(date)::INTEGER AS month, day_place(day(date)) AS place,
         (dayofyear(date) - 1)::INTEGER AS slot, tasmax::DOUBLE AS tasmax, tasmin::DOUBLE AS tasmin, pr::DOUBLE AS pr
  FROM read_parquet($file)
),
norms AS (
  SELECT unnest($norms, recursive := true)
)
-- Per month, the flags of each series as digit sums (bit_or: the days' digits have bits of their own,
-- and it stays a BIGINT where sum widens to HUGEINT); a day without a norm for a range has no heat
-- flag for that range and is left out of its series, as the templates' join does.
SELECT model, year, month,
       count(*) FILTER (WHERE tasmin <= 273.15) AS frost_days,
       max(tasmax) AS max_tasmax,
       min(tasmin) AS min_tasmin,
       coalesce(bit_or(flag_digit(place, pr = 0)), 0) AS dry,
       coalesce(bit_or(flag_digit(place, NOT (pr > 0))), 0) AS not_wet,
       nullif(bit_or(flag_digit(place, tasmax > n1 + 5)), 0) AS h1,
       nullif(bit_or(flag_digit(place, tasmax > n2 + 5)), 0) AS h2,
       nullif(bit_or(flag_digit(place, tasmax > n3 + 5)), 0) AS h3,
       nullif(bit_or(flag_digit(place, tasmax > n4 + 5)), 0) AS h4
FROM days LEFT JOIN norms USING (slot)
GROUP BY ALL
