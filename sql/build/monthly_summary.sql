-- Monthly summaries of map cells and scenarios, one row per (part, model, year, month): what the
-- indicator templates need for yearly, quarterly and monthly periods (see month_rows and
-- period_runs in sql/indicators/macros.sql, which must be loaded first). Every expression is the
-- one the templates apply to the days, so both paths give identical answers. The sums (sum_*, with
-- the days they count, n_*) are exact: float32 values widened to double add up without rounding
-- over a year of days (a temperature's bits span 2^-16..2^17, a rate's the same few dozen), so a
-- period's sum of its months' sums is the sum of its days, bit for bit, in any order.
-- $files: the daily Parquet files of the partitions (cell and scenario) of one dataset, a part
-- each (its position in the list, from 1); one statement for many partitions, because binding and
-- planning this statement cost 0.1-0.2 s of CPU, more than the summaries of a small partition.
-- $norms: the daily climatology of each part's cell for each historic range, the heat-wave series'
-- base (sql/build/historic_norms.sql with its part: STRUCT(part INTEGER, slot INTEGER, n1 DOUBLE,
-- n2 DOUBLE, n3 DOUBLE, n4 DOUBLE)[], ranges at most 4; no rows for a part whose cell has no
-- historical data: its heat is then NULL); $thresholds: the extreme events' thresholds of each
-- part's cell per range (sql/build/historic_thresholds.sql: STRUCT(part INTEGER, t1_heat DOUBLE,
-- t1_cold DOUBLE, t1_wet DOUBLE, ..., t4_wet)[]; NULL for a range without them, no row without
-- historical data: the events are then NULL).
--
-- The run series (dry, not_wet, heat) need each month's flags in date order. Collecting and
-- sorting a list of days per month cost most of a data build (2.3 s of 3 for a LOCA century);
-- instead the flags are summed as base-4 digits at their day of the month (flag_digit), an
-- aggregate without a sort, and their run summaries are read from the digits' bits
-- (run_summary_bits and the steps before it).
-- The heat series of the ranges are columns n1..n4 and h1..h4, one pass over the days: joining
-- the days with one row per range and grouping again cost a quarter of the summaries.
--
-- A block of lines holding @ is written once for each run series, @ replaced by the series (dry,
-- h1, h2, ...: forEachSeries in src/ingest/summaries.ts), every line of the copies one or more
-- select items, separated by commas (so no line of a block ends with one).
WITH days AS (
  SELECT part, model, year(date)::INTEGER AS year, month(date)::INTEGER AS month, day_place(day(date)) AS place,
         (dayofyear(date) - 1)::INTEGER AS slot, tasmax::DOUBLE AS tasmax, tasmin::DOUBLE AS tasmin, pr::DOUBLE AS pr,
         -- the precipitation of the n days (2..10) ending on this one, the model's consecutive rows, as
         -- nday_totals takes them: only with n days of precipitation, and reaching into the month before
         CASE WHEN count(pr) OVER d2 = 2 THEN sum(pr::DOUBLE) OVER d2 END AS total2,
         CASE WHEN count(pr) OVER d3 = 3 THEN sum(pr::DOUBLE) OVER d3 END AS total3,
         CASE WHEN count(pr) OVER d4 = 4 THEN sum(pr::DOUBLE) OVER d4 END AS total4,
         CASE WHEN count(pr) OVER d5 = 5 THEN sum(pr::DOUBLE) OVER d5 END AS total5,
         CASE WHEN count(pr) OVER d6 = 6 THEN sum(pr::DOUBLE) OVER d6 END AS total6,
         CASE WHEN count(pr) OVER d7 = 7 THEN sum(pr::DOUBLE) OVER d7 END AS total7,
         CASE WHEN count(pr) OVER d8 = 8 THEN sum(pr::DOUBLE) OVER d8 END AS total8,
         CASE WHEN count(pr) OVER d9 = 9 THEN sum(pr::DOUBLE) OVER d9 END AS total9,
         CASE WHEN count(pr) OVER d10 = 10 THEN sum(pr::DOUBLE) OVER d10 END AS total10
  FROM (SELECT list_position($files, filename)::INTEGER AS part, model, date, tasmax, tasmin, pr FROM read_parquet($files, filename = true))
  WINDOW d2 AS (PARTITION BY part, model ORDER BY date ROWS 1 PRECEDING), d3 AS (PARTITION BY part, model ORDER BY date ROWS 2 PRECEDING), d4 AS (PARTITION BY part, model ORDER BY date ROWS 3 PRECEDING), d5 AS (PARTITION BY part, model ORDER BY date ROWS 4 PRECEDING), d6 AS (PARTITION BY part, model ORDER BY date ROWS 5 PRECEDING), d7 AS (PARTITION BY part, model ORDER BY date ROWS 6 PRECEDING), d8 AS (PARTITION BY part, model ORDER BY date ROWS 7 PRECEDING), d9 AS (PARTITION BY part, model ORDER BY date ROWS 8 PRECEDING), d10 AS (PARTITION BY part, model ORDER BY date ROWS 9 PRECEDING)
),
norms AS (
  SELECT unnest($norms, recursive := true)
),
thresholds AS (
  SELECT unnest($thresholds, recursive := true)
),
-- Per month, the flags of each series as digit sums (bit_or: the days' digits have bits of their own,
-- and it stays a BIGINT where sum widens to HUGEINT); a day without a norm for a range has no heat
-- flag for that range and is left out of its series, as the templates' join does.
digits AS (
  SELECT part, model, year, month,
         count(*) FILTER (WHERE tasmin <= 273.15) AS frost_days,
         max(tasmax) AS max_tasmax,
         min(tasmin) AS min_tasmin,
         fsum(tasmax) AS sum_tasmax, count(tasmax) AS n_tasmax,
         fsum(tasmin) AS sum_tasmin, count(tasmin) AS n_tasmin,
         fsum(tasmax - tasmin) AS sum_dtr, count(tasmax - tasmin) AS n_dtr,
         fsum(pr) AS sum_pr, max(pr) AS max_pr,
         max(total2) AS rx2day,
         max(total3) AS rx3day,
         max(total4) AS rx4day,
         max(total5) AS rx5day,
         max(total6) AS rx6day,
         max(total7) AS rx7day,
         max(total8) AS rx8day,
         max(total9) AS rx9day,
         max(total10) AS rx10day,
         -- the degree days at their default base, 65 F in K as the service converts it ((65 + 459.67) * (1 / 1.8)),
         -- summed with fsum in date order like the days' (a year of the months' sums measured the same to the bit)
         fsum((tasmax + tasmin) / 2 - 291.4833333333334::DOUBLE) FILTER (WHERE (tasmax + tasmin) / 2 > 291.4833333333334::DOUBLE) AS cooling_65f,
         fsum(291.4833333333334::DOUBLE - (tasmax + tasmin) / 2) FILTER (WHERE (tasmax + tasmin) / 2 < 291.4833333333334::DOUBLE) AS heating_65f,
         coalesce(bit_or(flag_digit(place, pr = 0)), 0) AS dry,
         coalesce(bit_or(flag_digit(place, NOT (pr > 0))), 0) AS not_wet,
         nullif(bit_or(flag_digit(place, tasmax > n1 + 5)), 0) AS h1,
         nullif(bit_or(flag_digit(place, tasmax > n2 + 5)), 0) AS h2,
         nullif(bit_or(flag_digit(place, tasmax > n3 + 5)), 0) AS h3,
         nullif(bit_or(flag_digit(place, tasmax > n4 + 5)), 0) AS h4,
         -- the extreme events of each range's thresholds (h1_extreme_heat, ...: the service names
         -- them extreme_heat_1961, ... as the heat series), NULL for a range without thresholds
         CASE WHEN any_value(t1_heat) IS NOT NULL THEN (count(*) FILTER (WHERE tasmax > t1_heat))::INTEGER END AS h1_extreme_heat,
         CASE WHEN any_value(t1_cold) IS NOT NULL THEN (count(*) FILTER (WHERE tasmin < t1_cold))::INTEGER END AS h1_extreme_cold,
         CASE WHEN any_value(t1_wet) IS NOT NULL THEN (count(*) FILTER (WHERE pr > t1_wet))::INTEGER END AS h1_extreme_precipitation,
         CASE WHEN any_value(t2_heat) IS NOT NULL THEN (count(*) FILTER (WHERE tasmax > t2_heat))::INTEGER END AS h2_extreme_heat,
         CASE WHEN any_value(t2_cold) IS NOT NULL THEN (count(*) FILTER (WHERE tasmin < t2_cold))::INTEGER END AS h2_extreme_cold,
         CASE WHEN any_value(t2_wet) IS NOT NULL THEN (count(*) FILTER (WHERE pr > t2_wet))::INTEGER END AS h2_extreme_precipitation,
         CASE WHEN any_value(t3_heat) IS NOT NULL THEN (count(*) FILTER (WHERE tasmax > t3_heat))::INTEGER END AS h3_extreme_heat,
         CASE WHEN any_value(t3_cold) IS NOT NULL THEN (count(*) FILTER (WHERE tasmin < t3_cold))::INTEGER END AS h3_extreme_cold,
         CASE WHEN any_value(t3_wet) IS NOT NULL THEN (count(*) FILTER (WHERE pr > t3_wet))::INTEGER END AS h3_extreme_precipitation,
         CASE WHEN any_value(t4_heat) IS NOT NULL THEN (count(*) FILTER (WHERE tasmax > t4_heat))::INTEGER END AS h4_extreme_heat,
         CASE WHEN any_value(t4_cold) IS NOT NULL THEN (count(*) FILTER (WHERE tasmin < t4_cold))::INTEGER END AS h4_extreme_cold,
         CASE WHEN any_value(t4_wet) IS NOT NULL THEN (count(*) FILTER (WHERE pr > t4_wet))::INTEGER END AS h4_extreme_precipitation
  FROM days LEFT JOIN norms USING (part, slot) LEFT JOIN thresholds USING (part)
  GROUP BY part, model, year, month
),
-- Each run series' true and false days as bits (its first gap closed), and where its windows of 2,
-- 4, 8 and 16 true days start.
-- Accumulated freezing degree days of each year and offset year (from day 181 of a year to day 180
-- of the next), each folded from the period's first day as the template folds the days
-- (running_sum_fold): afdd_year and afdd_offset_year, on the row of the year's first month (NULL on
-- the others, which cost almost nothing to write), an offset year's only where the model has days
-- in the next year.
freezing_days AS (
  SELECT list_position($files, filename)::INTEGER AS part, model, year(date)::INTEGER AS year, month(date)::INTEGER AS month, dayofyear(date) AS doy,
         {'date': date, 'v': below_freezing(tasmax::DOUBLE, tasmin::DOUBLE)} AS d
  FROM read_parquet($files, filename = true)
  WHERE below_freezing(tasmax::DOUBLE, tasmin::DOUBLE) IS NOT NULL
),
freezing_years AS (SELECT part, model, year, min(month) AS first_month, running_sum_fold(list(d)) AS afdd_year FROM freezing_days GROUP BY part, model, year),
freezing_offset_years AS (
  SELECT part, model, year - (doy <= 180)::INTEGER AS year, running_sum_fold(list(d)) AS afdd_offset_year FROM freezing_days GROUP BY ALL
),
freezing AS (
  SELECT fy.part, fy.model, fy.year, fy.first_month AS month, fy.afdd_year,
         CASE WHEN nx.year IS NOT NULL THEN fo.afdd_offset_year END AS afdd_offset_year
  FROM freezing_years AS fy
  LEFT JOIN freezing_offset_years AS fo ON fo.part = fy.part AND fo.model = fy.model AND fo.year = fy.year
  LEFT JOIN (SELECT DISTINCT part, model, year - 1 AS year FROM digits) AS nx ON nx.part = fy.part AND nx.model = fy.model AND nx.year = fy.year
),
-- Each year's median of tasmax, tasmin and pr (p50_*_year), as percentile_high_temperature,
-- percentile_low_temperature and percentile_precipitation take a year at their default percentile
-- (50), on the row of the year's first month (NULL on the others).
medians AS (
  SELECT part, model, year(date)::INTEGER AS year, min(month(date))::INTEGER AS month,
         quantile_cont(tasmax::DOUBLE, 0.5) AS p50_tasmax_year, quantile_cont(tasmin::DOUBLE, 0.5) AS p50_tasmin_year,
         quantile_cont(pr::DOUBLE, 0.5) AS p50_pr_year
  FROM (SELECT list_position($files, filename)::INTEGER AS part, model, date, tasmax, tasmin, pr FROM read_parquet($files, filename = true))
  GROUP BY part, model, year(date)
),
closed AS (
  SELECT *,
         run_close_gap(@, run_first_gap(@)) AS @_closed
  FROM digits
),
bits AS (
  SELECT *,
         run_true(@_closed) AS @_t, run_false(@_closed) AS @_f
  FROM closed
),
windows AS (
  SELECT *,
         run_windows_2(@_t) AS @_w2, run_windows_4(@_t) AS @_w4, run_windows_8(@_t) AS @_w8
  FROM bits
),
start AS (
  SELECT *,
         @_w8 & (@_w8 >> 16) AS @_w16, -1::BIGINT AS @_start, 0 AS @_longest, @_f | (@_f >> 2) AS @_below
  FROM windows
),
-- The longest run by doubling: 16, 8, 4, 2 and 1 more days where the longest windows so far go on;
-- meanwhile the false days smear down by 2, 4, 8 and 16 days more (below_last_false).
longer_16 AS (
  SELECT * REPLACE (
         run_longer_start(@_start, @_longest, @_w16) AS @_start
         @_longest + CASE WHEN run_longer(@_start, @_longest, @_w16) THEN 16 ELSE 0 END AS @_longest
         @_below | (@_below >> 4) AS @_below
  )
  FROM start
),
longer_8 AS (
  SELECT * REPLACE (
         run_longer_start(@_start, @_longest, @_w8) AS @_start
         @_longest + CASE WHEN run_longer(@_start, @_longest, @_w8) THEN 8 ELSE 0 END AS @_longest
         @_below | (@_below >> 8) AS @_below
  )
  FROM longer_16
),
longer_4 AS (
  SELECT * REPLACE (
         run_longer_start(@_start, @_longest, @_w4) AS @_start
         @_longest + CASE WHEN run_longer(@_start, @_longest, @_w4) THEN 4 ELSE 0 END AS @_longest
         @_below | (@_below >> 16) AS @_below
  )
  FROM longer_8
),
longer_2 AS (
  SELECT * REPLACE (
         run_longer_start(@_start, @_longest, @_w2) AS @_start
         @_longest + CASE WHEN run_longer(@_start, @_longest, @_w2) THEN 2 ELSE 0 END AS @_longest
         @_below | (@_below >> 32) AS @_below
  )
  FROM longer_4
),
longer_1 AS (
  SELECT * REPLACE (
         @_longest + CASE WHEN run_longer(@_start, @_longest, @_t) THEN 1 ELSE 0 END AS @_longest
  )
  FROM longer_2
),
runs AS (
  SELECT part, model, year, month, frost_days, max_tasmax, min_tasmin, sum_tasmax, n_tasmax, sum_tasmin, n_tasmin, sum_dtr, n_dtr, sum_pr, max_pr, rx2day, rx3day, rx4day, rx5day, rx6day, rx7day, rx8day, rx9day, rx10day, cooling_65f, heating_65f, not_wet AS not_wet_digits, dry AS dry_digits,
         h1_extreme_heat, h1_extreme_cold, h1_extreme_precipitation, h2_extreme_heat, h2_extreme_cold, h2_extreme_precipitation, h3_extreme_heat, h3_extreme_cold, h3_extreme_precipitation, h4_extreme_heat, h4_extreme_cold, h4_extreme_precipitation,
         run_summary_bits(@, @_t, @_f, @_w4, @_longest, @_below) AS @
  FROM longer_1
),
-- heat_<start year>: the series of each historic range of $ranges, in its order (the service
-- puts in the column names: h1 AS heat_1961, ...), NULL in a month without days
-- for it (digit sum 0). One column per range, not a MAP keyed by start year: reading a month's MAP cost a
-- heat-wave request 4 ms more than a column (7.3 against 3.3 ms for one cell's century).
-- not_wet differs from dry only where pr < 0: it takes dry's summary unless its flags differ.
months AS (
  SELECT part, model, year, month, frost_days, max_tasmax, min_tasmin, sum_tasmax, n_tasmax, sum_tasmin, n_tasmin, sum_dtr, n_dtr, sum_pr, max_pr, rx2day, rx3day, rx4day, rx5day, rx6day, rx7day, rx8day, rx9day, rx10day, cooling_65f, heating_65f,
         afdd_year, afdd_offset_year, p50_tasmax_year, p50_tasmin_year, p50_pr_year,
         h1_extreme_heat, h1_extreme_cold, h1_extreme_precipitation, h2_extreme_heat, h2_extreme_cold, h2_extreme_precipitation, h3_extreme_heat, h3_extreme_cold, h3_extreme_precipitation, h4_extreme_heat, h4_extreme_cold, h4_extreme_precipitation,
         CASE WHEN not_wet_digits = dry_digits THEN dry ELSE run_summary_text(month_flags(not_wet_digits)) END AS not_wet,
         @
  FROM runs LEFT JOIN freezing USING (part, model, year, month) LEFT JOIN medians USING (part, model, year, month)
),
-- Each series' run summary of a whole year (<series>_year, packed by year_runs, on the row of the
-- year's first month, NULL on the others), its months joined in date order as period_runs joins
-- them for other periods (a yearly request reads these); a heat series' only where a month has it.
years AS (
  SELECT part, model, year, min(month) AS month,
         year_runs(joined_in_order(list({'m': month, 'r': not_wet}))) AS not_wet_year,
         year_runs(joined_in_order(list({'m': month, 'r': @}) FILTER (WHERE @ IS NOT NULL))) AS @_year
  FROM months
  GROUP BY part, model, year
)
SELECT part, model, year, month, frost_days, max_tasmax, min_tasmin, sum_tasmax, n_tasmax, sum_tasmin, n_tasmin, sum_dtr, n_dtr, sum_pr, max_pr, rx2day, rx3day, rx4day, rx5day, rx6day, rx7day, rx8day, rx9day, rx10day, cooling_65f, heating_65f,
       afdd_year, afdd_offset_year, p50_tasmax_year, p50_tasmin_year, p50_pr_year, dry, not_wet, dry_year, not_wet_year{{heat_columns}}
FROM months LEFT JOIN years USING (part, model, year, month)
ORDER BY part, model, year, month
