-- Shared pieces of the indicator templates. Sums and means use fsum/favg (compensated): the plain
-- parallel aggregates can differ in the last bits from run to run, and answers must be repeatable. The service loads this file into every connection;
-- an analyst runs `.read sql/indicators/macros.sql` once per DuckDB CLI session (see docs/indicators.md, "Indicators in the DuckDB CLI").
--
-- Cells: the file variables ('file', 'monthly_file', 'historic_file', 'baseline_file',
-- 'baseline_monthly_file') each name one map cell's file or a list of cells' files, the lists in the
-- same cell order. Every step groups by `cell`, the position of the cell's file in its list (0 for
-- a single file; read_parquet's file_index), so one statement answers many cells (a batch, an
-- area): binding a template is most of a small query's time, and it is bound once for all of them.

-- The 1-based index of the first custom span containing the day (month * 100 + day), or NULL.
-- spans: a list of {s: MMDD, e: MMDD}; the first-listed span wins where spans overlap.
CREATE OR REPLACE MACRO span_of(md, spans) AS
  list_position(list_transform(spans, x -> md BETWEEN x.s AND x.e), true);

-- The period a day belongs to, as an integer (grouping by integers is much cheaper than by text):
-- yearly 2050, monthly 205003, quarterly 20501, offset_yearly 2050 (the year starting at day index
-- 180 of 2050), custom 2050001 (first span). period_label turns it into the API's key.
CREATE OR REPLACE MACRO period_id(agg, d, spans) AS CASE agg
  WHEN 'yearly' THEN year(d)
  WHEN 'monthly' THEN year(d) * 100 + month(d)
  WHEN 'quarterly' THEN year(d) * 10 + quarter(d)
  WHEN 'offset_yearly' THEN year(d) - (dayofyear(d) <= 180)::INTEGER
  -- A day's span is looked up by month * 100 + day in a list made once per query from the spans
  -- (a constant), not searched for on every day.
  WHEN 'custom' THEN year(d) * 1000 + list_transform(range(0, 1232), md -> span_of(md, spans))[month(d) * 100 + day(d) + 1]
END;

-- The API's period keys: 2050, 2050-03, 2050-Q1, 2050-2051, 2050-01 (custom: the span's number).
CREATE OR REPLACE MACRO period_label(agg, id) AS CASE agg
  WHEN 'yearly' THEN id::VARCHAR
  WHEN 'monthly' THEN printf('%04d-%02d', id // 100, id % 100)
  WHEN 'quarterly' THEN printf('%04d-Q%d', id // 10, id % 10)
  WHEN 'offset_yearly' THEN id::VARCHAR || '-' || (id + 1)::VARCHAR
  WHEN 'custom' THEN printf('%04d-%02d', id // 1000, id % 1000)
END;

-- The cells' days for the chosen models and years, each with its cell and period id. Variables are in
-- storage units (tasmax, tasmin, tas in K; pr in kg m-2 s-1; hurs in %; huss in kg kg-1), widened from float32 to double so that
-- sums and means are computed in double precision, like the original's Python floats.
-- `years` is filtered as a date range, plus a list test only when the list has gaps; `models` is a
-- list of names, or NULL for all of them.
CREATE OR REPLACE MACRO cell_days(file, models, years, agg, spans) AS TABLE
  SELECT file_index::INTEGER AS cell, model, date, year(date)::INTEGER AS year, tasmax::DOUBLE AS tasmax,
         tasmin::DOUBLE AS tasmin,
         -- pr, and tas, hurs and huss where the dataset's files have them (NEX-GDDP-CMIP6): a
         -- pattern that always matches pr, since an empty COLUMNS() is an error.
         COLUMNS(c -> c IN ('pr', 'tas', 'hurs', 'huss'))::DOUBLE,
         period_id(agg, date, spans) AS period
  FROM read_parquet(file)
  WHERE date BETWEEN make_date(list_min(years), 1, 1) AND make_date(list_max(years), 12, 31)
    AND (len(years) = list_max(years) - list_min(years) + 1 OR list_contains(years, year(date)::INTEGER))
    -- NULL models means all of the file's models. list_contains measured faster than a semi-join
    -- on the unnested list (21 vs 45 ms for 3 models' custom spans), and it binds cheaper.
    AND (models IS NULL OR list_contains(models, model));

-- Periods made of whole months (yearly, quarterly, monthly) are answered from the cell's monthly
-- summaries (written at build and ingest by sql/build/monthly_summary.sql): about 24,000 rows per
-- cell instead of 700,000 days. Offset years and custom spans cut months, so they read the days.
CREATE OR REPLACE MACRO whole_months(agg) AS agg IN ('yearly', 'quarterly', 'monthly');

-- period_id of a month, for the periods made of whole months.
CREATE OR REPLACE MACRO month_period_id(agg, y, m) AS CASE agg
  WHEN 'yearly' THEN y
  WHEN 'monthly' THEN y * 100 + m
  WHEN 'quarterly' THEN y * 10 + (m + 2) // 3
END;

-- Whether year y is one of `years` (a list): a range test, which the Parquet reader applies as it
-- scans, and the list only when it has gaps.
CREATE OR REPLACE MACRO in_years(y, years) AS
  y BETWEEN list_min(years) AND list_max(years) AND (len(years) = list_max(years) - list_min(years) + 1 OR list_contains(years, y));

-- The cells' monthly summaries for the chosen models and years, each with its cell and period id; no rows
-- unless the time aggregation is made of whole months.
CREATE OR REPLACE MACRO month_rows(monthly_file, models, years, agg) AS TABLE
  SELECT file_index::INTEGER AS cell, *, month_period_id(agg, year, month) AS period
  FROM read_parquet(monthly_file)
  WHERE whole_months(agg) AND in_years(year, years) AND (models IS NULL OR list_contains(models, model));

-- month_rows of the request's files, then of the baseline's (lists, in the same cell order), the
-- baseline's period ids negated, from one scan of both lists. A second month_rows cost a binding
-- and a scan of its own: a century's yearly relative_to statement took 6.7 ms at its 25th
-- percentile and 14.0 at its median (the two scans ran slow in about half the runs), one scan
-- 5.6 and 6.1, the plain statement 4.3 and 4.6.
CREATE OR REPLACE MACRO month_rows_with_baseline(files, baseline_files, models, years, baseline_years, agg) AS TABLE
  SELECT (file_index % len(files))::INTEGER AS cell, *,
         CASE WHEN file_index < len(files) THEN 1 ELSE -1 END * month_period_id(agg, year, month) AS period
  FROM read_parquet(files || baseline_files)
  WHERE whole_months(agg)
    -- A range over both that the Parquet reader applies as it scans, then each file's own years.
    AND year BETWEEN least(list_min(years), list_min(baseline_years)) AND greatest(list_max(years), list_max(baseline_years))
    AND CASE WHEN file_index < len(files) THEN in_years(year, years) ELSE in_years(year, baseline_years) END
    AND (models IS NULL OR list_contains(models, model));

-- The text naming the file variable `name` (whose value is `value`) as a list: the service sets
-- each file variable as a list of the cells' files, an analyst in the DuckDB CLI as one file or a
-- list. The caller names the variable in getvariable() too, where the service sees which it reads.
CREATE OR REPLACE MACRO file_list_text(value, name) AS
  CASE WHEN typeof(value) LIKE '%[]' THEN 'getvariable(''' || name || ''')' ELSE '[getvariable(''' || name || ''')]' END;

-- The flags of a list of {date, flag} structs in date order. Sorting the collected list is much
-- cheaper than an ordered aggregate (list(x ORDER BY date)), which measured 4x slower.
CREATE OR REPLACE MACRO in_date_order(dated_flags) AS list_transform(list_sort(dated_flags), x -> x.flag);

-- What the run-length indicators need of a month's flags (days in date order): how many, the run
-- at each end, the longest run, and the number of runs of 5 or more. Runs that cross months are
-- rebuilt from the end runs by period_runs.
CREATE OR REPLACE MACRO run_summary(flags) AS {
  'n': coalesce(len(flags), 0)::INTEGER,
  'head': coalesce(list_position(flags, false) - 1, len(flags), 0)::INTEGER,
  'tail': coalesce(list_position(list_reverse(flags), false) - 1, len(flags), 0)::INTEGER,
  'longest': coalesce(list_max(run_lengths(flags)), 0)::INTEGER,
  'runs5': coalesce(len(list_filter(run_lengths(flags), r -> r >= 5)), 0)::INTEGER
};

-- A day's flag as a base-4 digit at its day-of-month place (day_place: 4^(day - 1), two bits a day):
-- 1 false, 2 true; a NULL flag, like a missing day, adds nothing (sum and bit_or skip its NULL).
-- Summed over a month, the digits spell the month's flags (month_flags), and their bits are the
-- month's true and false days (run_summary_bits); a month without a flag sums to NULL.
CREATE OR REPLACE MACRO day_place(day_of_month) AS 1::BIGINT << (2 * (day_of_month - 1));
CREATE OR REPLACE MACRO flag_digit(place, flag) AS place << flag::INTEGER;

-- The month's flags in date order as a string, '2' true and '1' false, from the sum of its days'
-- flag_digit: days without a flag (digit 0) are left out.
CREATE OR REPLACE MACRO month_flags(digits) AS replace(reverse(to_base(digits::BIGINT, 4, 31)), '0', '');

-- run_summary of flags written as month_flags writes them, without lambdas (they cost most of the
-- monthly summaries): the longest run of '2's is the greatest of the runs as strings, and every run
-- of 5 or more starts where '1' is followed by five '2's, once a '1' is put in front.
CREATE OR REPLACE MACRO run_summary_text(s) AS {
  'n': length(s)::INTEGER,
  'head': (length(s) - length(ltrim(s, '2')))::INTEGER,
  'tail': (length(s) - length(rtrim(s, '2')))::INTEGER,
  'longest': coalesce(length(list_max(string_split(s, '1'))), 0)::INTEGER,
  'runs5': ((length(s) + 1 - length(replace('1' || s, '122222', ''))) // 6)::INTEGER
};

-- The same run summary from the bits of the digits, about 4 times cheaper than from the string (the
-- build's monthly summaries, sql/build/monthly_summary.sql). Day d of the month is bit 2(d - 1) of
-- run_true (a true flag) and of run_false (a false one). The longest run is found by doubling: the
-- windows of 2, 4, 8 and 16 true days in a row (run_windows_k: their first days; 16 from 8's), then run_longer
-- tries 16, 8, 4, 2 and 1 more days on the longest windows found so far ('start': their first
-- days, -1 before any; 'longest': their length), one projection each. Bit tricks need the flagged
-- days to be days 1..n: run_close_gap moves the days after the first day without a flag (a 360-day
-- calendar's missing date, at most one a month) down by one; a month with more such days takes
-- run_summary_text.
CREATE OR REPLACE MACRO run_first_gap(digits) AS
  (~((digits | (digits >> 1)) & 6148914691236517205) & 6148914691236517205)
  & -(~((digits | (digits >> 1)) & 6148914691236517205) & 6148914691236517205);
CREATE OR REPLACE MACRO run_close_gap(digits, gap) AS (digits & (gap - 1)) | ((digits >> 2) & ~(gap - 1));
CREATE OR REPLACE MACRO run_true(digits) AS (digits >> 1) & 6148914691236517205;
CREATE OR REPLACE MACRO run_false(digits) AS digits & 6148914691236517205;
CREATE OR REPLACE MACRO run_windows_2(t) AS t & (t >> 2);
CREATE OR REPLACE MACRO run_windows_4(t) AS t & (t >> 2) & (t >> 4) & (t >> 6);
CREATE OR REPLACE MACRO run_windows_8(t) AS t & (t >> 2) & (t >> 4) & (t >> 6) & (t >> 8) & (t >> 10) & (t >> 12) & (t >> 14);
CREATE OR REPLACE MACRO run_longer(start, longest, windows) AS start & (windows >> (2 * longest)) <> 0;
CREATE OR REPLACE MACRO run_longer_start(start, longest, windows) AS
  CASE WHEN run_longer(start, longest, windows) THEN start & (windows >> (2 * longest)) ELSE start END;
-- below_last_false: the false days smeared down to day 1 (f | f >> 2 | f >> 4 | ... | f >> 62),
-- so that the tail is the true days above it.
CREATE OR REPLACE MACRO run_summary_bits(digits, t, f, windows_4, longest, below_last_false) AS CASE
  WHEN digits IS NULL THEN NULL
  WHEN (t | f) >> (2 * bit_count(t | f)) <> 0 THEN run_summary_text(month_flags(digits))
  ELSE {
    'n': bit_count(t | f)::INTEGER,
    'head': bit_count(t & ((f & -f) - 1))::INTEGER,
    'tail': bit_count(t & ~below_last_false)::INTEGER,
    'longest': longest::INTEGER,
    -- the first days of runs of 5 or more: 5 true days from there, and no true day before
    'runs5': bit_count(windows_4 & (t >> 8) & ~(t << 2))::INTEGER
  } END;

-- Two consecutive stretches of days, each a run summary, as one: the tail run of the first and the
-- head run of the second join. A stretch whose flags are all true (head = n) joins the runs on
-- either side; a month without days (n = 0) is transparent.
CREATE OR REPLACE MACRO join_runs(a, b) AS {
  'n': a.n + b.n,
  'head': CASE WHEN a.head = a.n THEN a.n + b.head ELSE a.head END,
  'tail': CASE WHEN b.tail = b.n THEN b.n + a.tail ELSE b.tail END,
  'longest': greatest(a.longest, b.longest, a.tail + b.head),
  'runs5': a.runs5 + b.runs5 - (a.tail >= 5)::INTEGER - (b.head >= 5)::INTEGER + (a.tail + b.head >= 5)::INTEGER
};

-- Consecutive stretches' run summaries as one: `stretches` is a list of {order key, r} (list(...)
-- of an aggregate, in any order), sorted by its key and joined in that order by join_runs.
CREATE OR REPLACE MACRO joined_in_order(stretches) AS
  list_reduce(list_transform(list_sort(stretches), x -> x.r), (a, b) -> join_runs(a, b));

-- A year's run summary as the monthly summaries hold it (<series>_year): the fields the
-- indicators read in one INTEGER, n + 512 longest + 262144 runs5 (n and longest at most 366, runs5
-- at most 73). Five fields as a struct (five columns in the build's rows) cost the default build
-- 19% more CPU time, this one column about 2% (docs/benchmarks.md, "Fourth pass").
CREATE OR REPLACE MACRO year_runs(r) AS (r.n + 512 * r.longest + 262144 * r.runs5)::INTEGER;

-- The change against a baseline (relative_to): the templates compute each model's values for the
-- requested periods and, through the same expressions, for the same kind of period over the
-- baseline years of the cell's historical files ('baseline_file', 'baseline_monthly_file',
-- 'baseline_years'); the baseline's period ids are negated, so that they group apart from the
-- requested ones and period_stats tells them apart. 'baseline_years' is NULL without a baseline.
-- query() binds only the statement its constant argument names, so a request without a baseline
-- binds no baseline branch (binding, not scanning, is most of a small query's time).

-- The request's monthly summaries (month_rows), then the baseline's when there is one
-- (baseline_years; month_rows_with_baseline).
CREATE OR REPLACE MACRO request_months(baseline_years) AS TABLE
  FROM query(CASE WHEN baseline_years IS NULL
    THEN 'FROM month_rows(getvariable(''monthly_file''), getvariable(''models''), getvariable(''years''), getvariable(''time_aggregation''))'
    ELSE 'FROM month_rows_with_baseline(' || file_list_text(getvariable('monthly_file'), 'monthly_file') || ', '
                                          || file_list_text(getvariable('baseline_monthly_file'), 'baseline_monthly_file') || ',
                                        getvariable(''models''), getvariable(''years''), getvariable(''baseline_years''), getvariable(''time_aggregation''))'
  END);

-- Per model and period, from the months' run summaries of one series ('dry': pr = 0, 'not_wet':
-- not pr > 0, 'heat': tasmax more than 5 K above the historic daily mean of the range starting in
-- historic_start): the days counted (n), the longest run and the runs of 5 or more days, exactly as
-- if the period's days were one list: the months' summaries joined in date order (join_runs).
-- The months are those of the request and of its baseline (request_months).
CREATE OR REPLACE MACRO period_runs(agg, series, historic_start, baseline_years) AS TABLE
  WITH months AS (
    SELECT cell, model, period, year * 12 + month AS ym,
           -- heat_<historic_start>, the range's column (without a range, the pattern names dry, so
           -- that the other series bind where there is no heat column).
           CASE series WHEN 'dry' THEN dry WHEN 'not_wet' THEN not_wet
             ELSE COLUMNS(coalesce('^heat_' || historic_start || '$', '^dry$')) END AS r,
           CASE series WHEN 'dry' THEN dry_year WHEN 'not_wet' THEN not_wet_year
             ELSE COLUMNS(coalesce('^heat_' || historic_start || '_year$', '^dry_year$')) END AS y
    FROM request_months(baseline_years)
  )
  SELECT cell, model, period, r.n AS n, r.longest AS longest, r.runs5 AS runs5
  FROM (
    SELECT cell, model, period, joined_in_order(list({'ym': ym, 'r': r})) AS r
    FROM months WHERE r IS NOT NULL AND agg = 'quarterly'
    GROUP BY cell, model, period
  )
  -- A month is its own period: its summary is the answer, with nothing to join (and no list to
  -- build per month, which measured 2.5x slower).
  UNION ALL
  SELECT cell, model, period, r.n, r.longest, r.runs5 FROM months WHERE r IS NOT NULL AND agg = 'monthly'
  -- A year's months come joined in the summaries (<series>_year, on the year's first month's row,
  -- joined as above at build and ingest): joining them here cost a century of dry spells 3.4x the
  -- time of its frost days.
  UNION ALL
  SELECT cell, model, period, y % 512, (y // 512) % 512, y // 262144 FROM months WHERE y IS NOT NULL AND agg = 'yearly';

-- The (cell, model, year) triples that start an offset year: the model has data in both calendar
-- years (as the original), read from the monthly summaries, which have a row for every month with days.
CREATE OR REPLACE MACRO offset_years(monthly_file, years) AS TABLE
  SELECT cell, model, year FROM (
    SELECT cell, model, year, lead(year) OVER (PARTITION BY cell, model ORDER BY year) AS next
    FROM (SELECT DISTINCT file_index::INTEGER AS cell, model, year FROM read_parquet(monthly_file) WHERE list_contains(years, year)))
  WHERE next = year + 1;

-- The days the templates reduce, each with its period id (cell_days, the days of no period left out).
-- monthly_file is unused: the same arguments as indicator_days, so that request_days names either.
CREATE OR REPLACE MACRO period_days(file, monthly_file, models, years, agg, spans) AS TABLE
  SELECT * FROM cell_days(file, models, years, agg, spans) WHERE period IS NOT NULL;

-- period_days with offset years only where they are whole. cell_days is expanded once, as binding
-- it (not scanning) is a good part of a small query's time.
CREATE OR REPLACE MACRO indicator_days(file, monthly_file, models, years, agg, spans) AS TABLE
  SELECT * FROM period_days(file, monthly_file, models, years, agg, spans)
    -- An uncorrelated IN on a struct key: cheaper to bind than a correlated subquery.
  WHERE agg <> 'offset_yearly' OR {'cell': cell, 'model': model, 'year': period} IN (SELECT {'cell': cell, 'model': model, 'year': year} FROM offset_years(monthly_file, years));

-- The statement of request_days: the days of `days` (a macro's name: period_days or
-- indicator_days), then the baseline's when there is one (baseline_years).
CREATE OR REPLACE MACRO request_days_statement(days, baseline_years) AS
  'FROM ' || days || '(getvariable(''file''), getvariable(''monthly_file''), getvariable(''models''),
                       getvariable(''years''), getvariable(''time_aggregation''), getvariable(''spans''))'
  || CASE WHEN baseline_years IS NULL THEN '' ELSE '
     UNION ALL
     SELECT * REPLACE (-period AS period)
     FROM ' || days || '(getvariable(''baseline_file''), getvariable(''baseline_monthly_file''), getvariable(''models''),
                         getvariable(''baseline_years''), getvariable(''time_aggregation''), getvariable(''spans''))' END;

-- The request's days, then the baseline's when there is one (baseline_years). Only offset years
-- take indicator_days's check that the year is whole: DuckDB plans its join with the monthly
-- summaries even where the constant condition makes it moot (a mark join of every day: 40% of a
-- yearly threshold count's time), and query() binds only the statement it is given.
CREATE OR REPLACE MACRO request_days(baseline_years) AS TABLE
  FROM query(request_days_statement(CASE WHEN getvariable('time_aggregation') = 'offset_yearly' THEN 'indicator_days' ELSE 'period_days' END,
                                    baseline_years));

-- request_days for the templates that answer whole-month periods from the monthly summaries:
-- the days of offset years and custom spans, and no rows otherwise. DuckDB binds every branch of a
-- query, even one a constant condition prunes, and binding indicator_days is a good part of a small
-- query's time (1.8-2.9 ms of a yearly frost_days). query() binds only the statement its constant
-- argument names, so a whole-month request binds an empty row of the same columns instead. The
-- statements are fixed text; the values still come from the session variables.
CREATE OR REPLACE MACRO month_cutting_days(agg) AS TABLE
  FROM query(CASE WHEN whole_months(agg)
    THEN 'SELECT NULL::INTEGER AS cell, NULL::VARCHAR AS model, NULL::DATE AS date, NULL::INTEGER AS year, NULL::DOUBLE AS tasmax,
                 NULL::DOUBLE AS tasmin, NULL::DOUBLE AS pr, NULL::BIGINT AS period WHERE false'
    ELSE 'FROM request_days(getvariable(''baseline_years''))'
  END);

-- Indicator families. Most templates are one of these two with their own expressions: a macro's
-- arguments are expressions, put in where its body names them (aggregates included), so a template
-- says only what it reduces the days or months to.

-- Each model's value per period: an aggregate (reduce) of the request's days, e.g. favg(tasmax)
-- (a statistic of a variable), count(*) FILTER (WHERE ...) (a threshold count), fsum(...) (degree
-- days). baseline_years: as request_days.
CREATE OR REPLACE MACRO days_per_model(reduce, baseline_years) AS TABLE
  SELECT cell, period, model, reduce AS value FROM request_days(baseline_years) GROUP BY cell, period, model;

-- Days on which cond holds, per cell, period and model, 0 where it holds on none of the period's
-- days: count(*) FILTER (WHERE cond) over request_days, but for whole-month periods the days are
-- filtered before they are grouped (DuckDB applies a filter on a column in the Parquet scan), and
-- every period with days is there from the monthly summaries, which have a row for every month
-- with days: their rows are counted as NULL in the same grouping. A quarter less time for a
-- century of 21 models than counting with FILTER; joining the filtered counts to the months'
-- distinct periods instead cost 1-2 ms more. Offset years and custom spans count with FILTER
-- (month_cutting_days).
-- whole_month_count_days_per_model is that count for whole-month periods alone (the same
-- arguments): what the service runs for them (servedStatement), as whole_months_per_model.
CREATE OR REPLACE MACRO whole_month_count_days_per_model(cond, agg, baseline_years) AS TABLE
  SELECT cell, period, model, count(day) AS value FROM (
    SELECT cell, period, model, NULL::BOOLEAN AS day FROM request_months(baseline_years)
    UNION ALL
    SELECT cell, period, model, true FROM request_days(baseline_years) WHERE whole_months(agg) AND cond)
  GROUP BY cell, period, model;

CREATE OR REPLACE MACRO count_days_per_model(cond, agg, baseline_years) AS TABLE
  FROM whole_month_count_days_per_model(cond, agg, baseline_years)
  UNION ALL
  SELECT cell, period, model, count(*) FILTER (WHERE cond) AS value FROM month_cutting_days(agg) GROUP BY cell, period, model;

-- months_per_model's whole-month periods alone (it takes the same arguments): what the service
-- runs for a yearly, quarterly or monthly request (servedStatement in src/indicators/query.ts),
-- whose days branch is empty anyway. Binding and running that empty branch cost a yearly
-- frost_days 0.5 ms of its 4.5.
CREATE OR REPLACE MACRO whole_months_per_model(month_reduce, day_reduce, agg, baseline_years) AS TABLE
  SELECT cell, period, model, month_reduce AS value FROM request_months(baseline_years) WHERE whole_months(agg) GROUP BY cell, period, model;

-- The time aggregation to give months_per_model: the request's where the monthly summaries hold
-- its parameters (held: the degree days' base is the one they were summed at), and none of whole
-- months otherwise, so that every period is read from the days.
CREATE OR REPLACE MACRO summarised_agg(agg, held) AS CASE WHEN held THEN agg ELSE 'days' END;

-- The same where whole-month periods are read from the monthly summaries: month_reduce aggregates
-- the summaries' columns, day_reduce the days of offset years and custom spans.
CREATE OR REPLACE MACRO months_per_model(month_reduce, day_reduce, agg, baseline_years) AS TABLE
  FROM whole_months_per_model(month_reduce, day_reduce, agg, baseline_years)
  UNION ALL
  SELECT cell, period, model, day_reduce AS value FROM month_cutting_days(agg) GROUP BY cell, period, model;

-- spells_per_model's whole-month periods alone, as whole_months_per_model.
CREATE OR REPLACE MACRO whole_month_spells_per_model(series, measure, day_flag, agg, baseline_years) AS TABLE
  SELECT cell, period, model, measure AS value
  FROM period_runs(agg, series, getvariable('historic_start'), baseline_years);

-- Spell lengths: per model and period, a measure of the runs of days on which a flag holds, from
-- the run summaries of one series (period_runs: 'dry', 'not_wet' or 'heat') for whole-month
-- periods, and from the flag (day_flag) of the days of offset years and custom spans. measure is
-- an expression over n (days with a flag), longest and runs5, the fields of run_summary, e.g.
-- runs5. The flag may name norm, the historic daily mean of the high temperature (series 'heat';
-- its days without a high temperature or a norm are left out).
-- The days' fields are computed in steps, not with run_summary: each column is bound once, and
-- binding run_summary's expression measured 2 ms more than the query saves.
CREATE OR REPLACE MACRO spells_per_model(series, measure, day_flag, agg, baseline_years) AS TABLE
  FROM whole_month_spells_per_model(series, measure, day_flag, agg, baseline_years)
  UNION ALL
  SELECT cell, period, model, measure AS value
  FROM (SELECT cell, period, model, n, coalesce(list_max(runs), 0) AS longest, len(list_filter(runs, r -> r >= 5)) AS runs5
        FROM (SELECT cell, period, model, coalesce(len(flags), 0) AS n, run_lengths(flags) AS runs
              FROM (SELECT d.cell, period, model, in_date_order(list({'date': date, 'flag': day_flag}) FILTER (WHERE day_flag IS NOT NULL)) AS flags
                    FROM month_cutting_days(agg) AS d
                    LEFT JOIN spell_norms(series, agg) AS norms ON norms.cell = d.cell AND norms.slot = dayofyear(d.date) - 1
                    WHERE series <> 'heat' OR (d.tasmax IS NOT NULL AND norms.norm IS NOT NULL)
                    GROUP BY d.cell, period, model)));

-- The norms of the 'heat' series for the days of offset years and custom spans: the daily
-- climatology of the historic range (historic_daily_tasmax); no rows otherwise, and then the
-- historic file is not even bound (query() binds only the statement it is given).
CREATE OR REPLACE MACRO spell_norms(series, agg) AS TABLE
  FROM query(CASE WHEN series = 'heat' AND NOT whole_months(agg)
    THEN 'FROM historic_daily_tasmax(getvariable(''historic_file''), getvariable(''historic_start''), getvariable(''historic_end''))'
    ELSE 'SELECT NULL::INTEGER AS cell, NULL::INTEGER AS slot, NULL::DOUBLE AS norm WHERE false'
  END);

-- Events over a historic percentile: per cell, model and period, the days on which event holds, an
-- expression comparing a variable with threshold, the historic percentile ('percentile') of that
-- variable ('tasmax', 'tasmin' or 'pr') over the historic range of the cell's historical data.
-- percentile_events's whole-month periods alone (the same arguments), as whole_months_per_model.
-- A cell without a threshold (no historical day in the range) has no rows, as the days' join.
CREATE OR REPLACE MACRO whole_month_percentile_events(series, variable, event, held, baseline_years) AS TABLE
  SELECT cell, period, model, sum(COLUMNS('^' || series || '_' || getvariable('historic_start') || '$'))::BIGINT AS value
  FROM request_months(baseline_years)
  WHERE whole_months(summarised_agg(getvariable('time_aggregation'), held))
    AND COLUMNS('^' || series || '_' || getvariable('historic_start') || '$') IS NOT NULL
  GROUP BY cell, period, model;

-- Whole-month periods at the indicator's default percentile (held) add up the months' counts of
-- the monthly summaries (<series>_<historic_start>: extreme_heat, extreme_cold,
-- extreme_precipitation, counted at build and ingest against the same threshold); other
-- percentiles, offset years and custom spans count the days.
CREATE OR REPLACE MACRO percentile_events(series, variable, event, held, baseline_years) AS TABLE
  FROM whole_month_percentile_events(series, variable, event, held, baseline_years)
  UNION ALL
  SELECT d.cell, period, model, count(*) FILTER (WHERE event) AS value
  FROM month_cutting_days(summarised_agg(getvariable('time_aggregation'), held)) AS d
  JOIN historic_percentiles(getvariable('historic_file'), getvariable('historic_start'), getvariable('historic_end'), variable, getvariable('percentile')) AS h
    ON h.cell = d.cell
  GROUP BY d.cell, period, model;

-- The largest sum of a daily quantity over consecutive days, as the original's loop takes it: a
-- running total floored at 0 after each day (total = max(total + x, 0)), and its greatest value; 0
-- without days. dated: the days' {date, v}, in any order; they are reduced in date order, so the
-- answer is that loop's to the last bit whatever the rows around them (prefix sums as window
-- aggregates were summed in an order that changed with the rows around them, and were 3.7x slower).
-- The {date, v} are folded as they are: the running state's struct takes their fields as well
-- (NULL), and not making a {total, best} of every day first halved the fold's time.
CREATE OR REPLACE MACRO running_sum_fold(dated STRUCT(date DATE, v DOUBLE)[]) AS
  coalesce(list_reduce(list_sort(dated),
                       (acc, d) -> {'total': greatest(acc.total + d.v, 0), 'best': greatest(acc.best, acc.total + d.v)},
                       {'total': 0::DOUBLE, 'best': 0::DOUBLE}).best, 0);

-- running_sum_fold per cell, model and period of a daily quantity x (days where x is NULL are left out).
CREATE OR REPLACE MACRO max_running_sum(x, baseline_years) AS TABLE
  SELECT cell, period, model, running_sum_fold(list({'date': date, 'v': v})) AS value
  FROM (SELECT cell, period, model, date, x AS v FROM request_days(baseline_years))
  WHERE v IS NOT NULL
  GROUP BY cell, period, model;

-- The daily quantity accumulated_freezing_degree_days sums: degrees below freezing of the daily mean (K).
CREATE OR REPLACE MACRO below_freezing(tasmax, tasmin) AS 273.15 - (tasmax + tasmin) / 2;

-- The monthly summaries' accumulated freezing degree days for the chosen models and years, with
-- each row's period id: afdd_year holds the value of the row's year, afdd_offset_year that of the
-- offset year starting in it (written only where the model has days in the next year, as
-- indicator_days asks), both on the year's first month's row (NULL on the others), each folded
-- from the period's first day as max_running_sum folds the days (sql/build/monthly_summary.sql).
-- An offset year counts only where the next year is asked for too, as offset_years has it.
CREATE OR REPLACE MACRO freezing_month_rows(monthly_file, models, years, agg) AS TABLE
  SELECT file_index::INTEGER AS cell, model, year AS period,
         CASE agg WHEN 'yearly' THEN afdd_year ELSE afdd_offset_year END AS value
  FROM read_parquet(monthly_file)
  WHERE year BETWEEN list_min(years) AND list_max(years)
    AND (len(years) = list_max(years) - list_min(years) + 1 OR list_contains(years, year))
    AND (models IS NULL OR list_contains(models, model))
    AND (agg <> 'offset_yearly' OR list_contains(years, year + 1));

-- accumulated_freezing_degree_days per cell, period and model, in K: years and offset years from
-- the monthly summaries (freezing_month_rows), about 24,000 rows a century instead of a sort and
-- fold of 700,000 days; months, quarters and custom spans fold their days (max_running_sum): the
-- months' and quarters' folds as summaries as well made the default build about 4% slower. The
-- baseline's rows follow, their period ids negated, as request_days has them. query() binds only
-- the statement it is given.
CREATE OR REPLACE MACRO freezing_per_model(agg, baseline_years) AS TABLE
  FROM query(CASE
    WHEN agg NOT IN ('yearly', 'offset_yearly') THEN 'FROM max_running_sum(below_freezing(tasmax, tasmin), getvariable(''baseline_years''))'
    ELSE 'SELECT cell, period, model, max(value) AS value
          FROM freezing_month_rows(getvariable(''monthly_file''), getvariable(''models''), getvariable(''years''), getvariable(''time_aggregation''))
          WHERE value IS NOT NULL GROUP BY cell, period, model'
         || CASE WHEN baseline_years IS NULL THEN '' ELSE '
          UNION ALL
          SELECT cell, -period, model, max(value)
          FROM freezing_month_rows(getvariable(''baseline_monthly_file''), getvariable(''models''), getvariable(''baseline_years''), getvariable(''time_aggregation''))
          WHERE value IS NOT NULL GROUP BY cell, period, model' END
  END);

-- Each model's totals of n consecutive days of precipitation (the daily mean rates summed, in
-- kg m-2 s-1 x days: x 86400 gives mm), one per day on which such a run of days ends, with the
-- period of that last day: a run may reach back into the previous period (Rx5day). Consecutive
-- days are the model's consecutive rows in date order (a 360-day model has no row on 5 or 6 dates
-- a year), and a run counts only with n days of precipitation. The days before each requested year
-- are read from December of the year before, when the cell's file has it: a run ending on the
-- first days of a scenario's first year (2006 for the RCPs) has no days before it in the file,
-- and is not counted. Offset years only where they are whole, as indicator_days. A frame's sum
-- is combined the same way for the same rows of a (cell, model) whatever the threads do
-- (test/repeatable.test.ts).
CREATE OR REPLACE MACRO nday_totals(file, monthly_file, models, years, agg, spans, n) AS TABLE
  SELECT cell, model, date, period, total FROM (
    -- A sum over an n-row frame: the window's sort is most of the cost; a list aggregated over the
    -- frame, or ten lags, took 2 to 7 times as long (2.9 and 0.77 against 0.39 s for a century of 21 models).
    SELECT cell, model, date, year, period, sum(pr) OVER run AS total, count(pr) OVER run AS days
    FROM (SELECT file_index::INTEGER AS cell, model, date, year(date)::INTEGER AS year, period_id(agg, date, spans) AS period, pr::DOUBLE AS pr
          FROM read_parquet(file)
          WHERE date BETWEEN make_date(list_min(years) - 1, 12, 1) AND make_date(list_max(years), 12, 31)
            AND (len(years) = list_max(years) - list_min(years) + 1
                 OR list_contains(years, year(date)::INTEGER) OR (month(date) = 12 AND list_contains(years, year(date)::INTEGER + 1)))
            AND (models IS NULL OR list_contains(models, model)))
    WINDOW run AS (PARTITION BY cell, model ORDER BY date ROWS BETWEEN n - 1 PRECEDING AND CURRENT ROW))
  -- n days, each with a value.
  WHERE days = n AND list_contains(years, year) AND period IS NOT NULL
    AND (agg <> 'offset_yearly' OR {'cell': cell, 'model': model, 'year': period} IN (SELECT {'cell': cell, 'model': model, 'year': year} FROM offset_years(monthly_file, years)));

-- The request's n-day totals (nday_totals, n from the variable 'n'), then the baseline's when
-- there is one (baseline_years), their period ids negated as request_days does.
CREATE OR REPLACE MACRO request_nday_totals(baseline_years) AS TABLE
  FROM query(CASE WHEN baseline_years IS NULL
    THEN 'FROM nday_totals(getvariable(''file''), getvariable(''monthly_file''), getvariable(''models''), getvariable(''years''),
                          getvariable(''time_aggregation''), getvariable(''spans''), getvariable(''n''))'
    ELSE 'FROM nday_totals(getvariable(''file''), getvariable(''monthly_file''), getvariable(''models''), getvariable(''years''),
                          getvariable(''time_aggregation''), getvariable(''spans''), getvariable(''n''))
          UNION ALL
          SELECT * REPLACE (-period AS period)
          FROM nday_totals(getvariable(''baseline_file''), getvariable(''baseline_monthly_file''), getvariable(''models''),
                           getvariable(''baseline_years''), getvariable(''time_aggregation''), getvariable(''spans''), getvariable(''n''))'
  END);

-- request_nday_totals for the template that answers whole-month periods from the monthly
-- summaries (max_nday_precipitation), as month_cutting_days is request_days's: the totals of offset
-- years and custom spans, and an empty row of the same columns for whole months.
CREATE OR REPLACE MACRO month_cutting_nday_totals(agg) AS TABLE
  FROM query(CASE WHEN whole_months(agg)
    THEN 'SELECT NULL::INTEGER AS cell, NULL::VARCHAR AS model, NULL::DATE AS date, NULL::BIGINT AS period, NULL::DOUBLE AS total WHERE false'
    ELSE 'FROM request_nday_totals(getvariable(''baseline_years''))'
  END);

-- months_per_model for the n-day totals: whole-month periods from the monthly summaries
-- (month_reduce: their rx<n>day maxima), offset years and custom spans from nday_totals
-- (total_reduce aggregates its total). The service reads whole-month requests as
-- whole_months_per_model alone (servedStatement).
CREATE OR REPLACE MACRO nday_months_per_model(month_reduce, total_reduce, agg, baseline_years) AS TABLE
  FROM whole_months_per_model(month_reduce, total_reduce, agg, baseline_years)
  UNION ALL
  SELECT cell, period, model, total_reduce AS value FROM month_cutting_nday_totals(agg) GROUP BY cell, period, model;

-- Per cell and period in order, with the API's period key, the list of the models' values that the
-- statistics are taken over. The service takes them in TypeScript (src/indicators/acrossModels.ts,
-- the same arithmetic): binding across_models's lambdas and running them per period cost 1.5-4 ms
-- of a request. With multi-year windows, each model's yearly values are first averaged over each
-- window (in_windows); with a baseline, each model's value becomes its change (period_changes),
-- and models without a value are left out. A plain request binds neither: query() binds only the
-- statement it is given.
CREATE OR REPLACE MACRO period_values(per_model) AS TABLE
  FROM query(CASE
    WHEN getvariable('warming_level') IS NOT NULL THEN 'FROM at_warming_level(''' || per_model || ''')'
    WHEN getvariable('windows') IS NOT NULL THEN 'WITH windowed AS (FROM in_windows(''' || per_model || ''')) FROM period_changes(''windowed'')'
    WHEN getvariable('baseline_years') IS NOT NULL THEN 'FROM period_changes(''' || per_model || ''')'
    ELSE 'SELECT cell, period_label(getvariable(''time_aggregation''), period) AS period, list(value)::DOUBLE[] AS vals
          FROM ' || per_model || ' GROUP BY cell, period ORDER BY cell, period'
  END);

-- The service's last step with multi-year windows or a baseline: per model, its period ids (the
-- baseline's negated) and its values there, as two lists in the same (any) order; per cell. The service then
-- does what in_windows and period_changes do, and names the periods as period_label does, with the
-- same arithmetic (src/indicators/periodChanges.ts): binding and running them here cost a
-- relative_to request 2.4 ms, almost as much again as the plain request. One row per model rather
-- than per (model, period): reading 2,600 model names into JavaScript took 0.3 ms of it.
CREATE OR REPLACE MACRO period_models(per_model) AS TABLE
  SELECT cell, model, list(period::INTEGER) AS ids, list(value::DOUBLE) AS vals FROM query_table(per_model) GROUP BY cell, model;

-- Every template's last step: per_model names the template's table of (cell, period, model, value),
-- the value in the requested units. Per cell and period, the requested statistics across the
-- models, with the API's period keys (period_values, then across_models), and how many models'
-- values they are taken over.
CREATE OR REPLACE MACRO period_stats(per_model) AS TABLE
  SELECT cell, period, across_models(vals, getvariable('aggs')) AS stats, len(list_filter(vals, v -> v IS NOT NULL)) AS model_count
  FROM period_values(per_model);

-- The mean of a list of per-model values (the years of a window, a baseline's periods), summed in
-- sorted order: favg over the rows combined its parts in an order that varied with the threads'
-- timing once the query had rows enough to run in parallel, and the answers' last bits with it.
CREATE OR REPLACE MACRO mean_of(vals) AS list_avg(list_sort(vals));

-- Multi-year windows ('windows', a list of {s, e} year spans) over yearly values: each model's
-- mean over each window's years, the window's position in the list as its period id. The
-- baseline's periods (negative ids) pass as they are.
CREATE OR REPLACE MACRO in_windows(per_model) AS TABLE
  SELECT cell, i AS period, model, mean_of(list(value)) AS value
  FROM query_table(per_model) AS v,
       (SELECT unnest(range(1, len(getvariable('windows')) + 1)) AS i, unnest(getvariable('windows')) AS span)
  WHERE v.period BETWEEN span.s AND span.e
  GROUP BY cell, i, model
  UNION ALL
  SELECT cell, period, model, value FROM query_table(per_model) WHERE period < 0;

-- A period id modulo this is its baseline slot: the month (monthly), quarter (quarterly) or span
-- (custom) it is compared with; one slot for yearly and offset-yearly periods and windows.
CREATE OR REPLACE MACRO slot_modulus(agg) AS CASE agg WHEN 'monthly' THEN 100 WHEN 'quarterly' THEN 10 WHEN 'custom' THEN 1000 ELSE 1 END;

-- The requested periods (positive ids) of per_model, each model's value changed against its base:
-- the mean of the model's baseline periods (negative ids) of the same slot, taken once per model
-- and slot and joined to its periods (a window over each model's rows collected and sorted the
-- baseline's values once per row: 3-4 ms of a yearly request). 'absolute': value - base;
-- 'percent': 100 x (value - base) / base, NULL where base is 0; as it is without a change
-- (windows alone). Then per period the values of the models that have one (an empty list where
-- none has), with the periods' keys, or the windows' spans, as labels.
CREATE OR REPLACE MACRO period_changes(per_model) AS TABLE
  WITH bases AS (
    SELECT cell, model, -period % slot_modulus(getvariable('time_aggregation')) AS slot, mean_of(list(value)) AS base
    FROM query_table(per_model) WHERE period < 0
    GROUP BY ALL
  ),
  changes AS (
    SELECT v.cell, period AS id, CASE getvariable('change')
                           WHEN 'absolute' THEN value - base
                           WHEN 'percent' THEN 100.0 * (value - base) / nullif(base, 0)
                           ELSE value END AS value
    FROM query_table(per_model) AS v
    LEFT JOIN bases ON bases.cell = v.cell AND bases.model = v.model AND bases.slot = v.period % slot_modulus(getvariable('time_aggregation'))
    WHERE period > 0
  )
  -- Ordered by id: windows in the order they were asked for.
  SELECT cell, CASE WHEN getvariable('windows') IS NULL THEN period_label(getvariable('time_aggregation'), id)
              ELSE printf('%d-%d', getvariable('windows')[id].s, getvariable('windows')[id].e) END AS period,
         coalesce(list(value) FILTER (WHERE value IS NOT NULL), []) AS vals
  FROM changes
  GROUP BY cell, id
  ORDER BY cell, id;

-- Warming levels (the API's warming_level), for a DuckDB CLI session (the service takes the same
-- steps in TypeScript, src/indicators/warmingLevelStats.ts): each model's 20-year window at the
-- level 'warming_level' in the scenario 'warming_scenario' of the dataset 'warming_dataset', from
-- the catalog's warming-level table 'warming_table' (catalog/warming_level.parquet, derived from the
-- IPCC AR6 Atlas tables: CC BY-SA 4.0).
CREATE OR REPLACE MACRO warming_windows(table_file, dataset_name, scenario_name, level) AS TABLE
  SELECT model, start_year, end_year FROM read_parquet(table_file)
  WHERE dataset = dataset_name AND scenario = scenario_name AND warming_level = level;

-- The years of the windows, each once: those of the scenario go in 'years', the others (before the
-- scenario) in 'baseline_years', whose rows are read from the historical files (negative ids).
-- The session's windows at 'warming_level' (none when it is NULL). A constant query() would be
-- bound when the macro is created, before the session sets its variables: the level's argument
-- defers it to when the statement runs, as request_days's does.
CREATE OR REPLACE MACRO session_windows(level) AS TABLE
  FROM query(CASE WHEN level IS NULL
    THEN 'SELECT NULL::VARCHAR AS model, NULL::INTEGER AS start_year, NULL::INTEGER AS end_year WHERE false'
    ELSE 'FROM warming_windows(getvariable(''warming_table''), getvariable(''warming_dataset''), getvariable(''warming_scenario''), getvariable(''warming_level''))'
  END);
CREATE OR REPLACE MACRO warming_years(level) AS TABLE
  SELECT DISTINCT unnest(range(start_year, end_year + 1)) AS y FROM session_windows(level);

-- Per cell and slot of the year (month, quarter, custom span; one slot for yearly and offset-yearly
-- values), the list of the models' values at the warming level: each model's mean over its window's
-- years (the scenario's rows and, before it, the historical ones), changed with 'change' against
-- its mean over the years of 'warming_baseline' ({s, e} or NULL; an offset year needs both of its
-- calendar years there). Periods are labelled level/slot: '2.0', '2.0/03', '2.0/Q1'.
CREATE OR REPLACE MACRO at_warming_level(per_model) AS TABLE
  WITH rows AS (
    SELECT cell, model, period < 0 AS historical, value,
           abs(period) // slot_modulus(getvariable('time_aggregation')) AS year,
           CASE WHEN slot_modulus(getvariable('time_aggregation')) = 1 THEN 0 ELSE abs(period) % slot_modulus(getvariable('time_aggregation')) END AS slot
    FROM query_table(per_model)
  ),
  means AS (
    SELECT r.cell, r.model, r.slot,
           mean_of(list(r.value) FILTER (WHERE r.year BETWEEN w.start_year AND w.end_year)) AS value,
           mean_of(list(r.value) FILTER (WHERE r.historical AND r.year BETWEEN getvariable('warming_baseline').s
                                         AND getvariable('warming_baseline').e - (getvariable('time_aggregation') = 'offset_yearly')::INTEGER)) AS base
    FROM rows AS r
    JOIN session_windows(getvariable('warming_level')) AS w USING (model)
    GROUP BY r.cell, r.model, r.slot
  ),
  changes AS (
    SELECT cell, slot, CASE WHEN getvariable('warming_baseline') IS NULL THEN value
                            WHEN getvariable('change') = 'absolute' THEN value - base
                            ELSE 100.0 * (value - base) / nullif(base, 0) END AS value
    FROM means
  )
  SELECT cell, printf('%.1f', getvariable('warming_level')) || CASE getvariable('time_aggregation')
           WHEN 'monthly' THEN printf('/%02d', slot) WHEN 'custom' THEN printf('/%02d', slot) WHEN 'quarterly' THEN printf('/Q%d', slot) ELSE '' END AS period,
         coalesce(list(value) FILTER (WHERE value IS NOT NULL), []) AS vals
  FROM changes
  GROUP BY cell, slot
  ORDER BY cell, slot;

-- numpy 1.15 percentile with linear interpolation of sorted values s: s[lo] * (1 - w) + s[hi] * w,
-- where idx = q / 100 * (n - 1), lo = floor(idx), hi = min(lo + 1, n - 1), w = idx - lo (0-based).
CREATE OR REPLACE MACRO np_interpolate(s, idx) AS
  list_transform([{'lo': floor(idx)::INTEGER, 'w': idx - floor(idx)}], x -> s[x.lo + 1] * (1.0 - x.w) + s[least(x.lo + 2, len(s))] * x.w)[1];
CREATE OR REPLACE MACRO np_percentile(vals, q) AS
  list_transform([list_sort(vals)::DOUBLE[]], s -> np_interpolate(s, (q::DOUBLE / 100.0) * (len(s) - 1)))[1];

-- Population standard deviation, two-pass like numpy.std.
CREATE OR REPLACE MACRO np_std(vals) AS
  list_transform([list_avg(vals)], m -> sqrt(list_avg(list_transform(vals, x -> (x - m) * (x - m)))))[1];

-- The percentile a statistic's name asks for (median is the 50th), or NULL for the others.
CREATE OR REPLACE MACRO stat_quantile(name) AS CASE
  WHEN name = 'median' THEN 50 ELSE TRY_CAST(regexp_extract(lower(name), '^(\d+)th$', 1) AS INTEGER) END;

-- One cross-model statistic of the sorted values s: min, max, avg, median, stddev (stdev), or NNth
-- (a percentile, q from stat_quantile). Sums run over the sorted values, so that the result does
-- not depend on the order the models' rows arrive in.
CREATE OR REPLACE MACRO sorted_stat(s, name, q) AS CASE
  WHEN name = 'min' THEN list_min(s)
  WHEN name = 'max' THEN list_max(s)
  WHEN name = 'avg' THEN list_sum(s) / len(s)
  WHEN name IN ('stddev', 'stdev') THEN np_std(s)
  ELSE np_interpolate(s, (q::DOUBLE / 100.0) * (len(s) - 1))
END;

-- The requested statistics across the models' values of a period (in any order), as a map name ->
-- value. The lambdas bind each argument once: a macro argument used n times is bound n times, and
-- binding, not computing, is most of the cost of these small queries.
CREATE OR REPLACE MACRO across_models(vals, names) AS
  list_transform([list_sort(vals)::DOUBLE[]], s ->
    map_from_entries(list_transform(names, n -> {'k': n, 'v': sorted_stat(s, n, stat_quantile(n))})))[1];

-- Unit conversions from storage units, in the original's operation order (identical doubles).
CREATE OR REPLACE MACRO temperature_from_k(x, units) AS CASE units
  WHEN 'K' THEN x WHEN 'C' THEN (x + -273.15) * 1.0 WHEN 'F' THEN (x + (-459.67 / 1.8)) * 1.8 END;
CREATE OR REPLACE MACRO temperature_delta_from_k(x, units) AS CASE units
  WHEN 'K' THEN x WHEN 'C' THEN x * 1.0 WHEN 'F' THEN x * 1.8 END;
CREATE OR REPLACE MACRO precipitation_rate_from_si(x, units) AS CASE units
  WHEN 'kg/m^2/s' THEN x WHEN 'mm/day' THEN x * 86400.0 WHEN 'in/day' THEN x * ((1 / 25.4) * 86400.0) END;
CREATE OR REPLACE MACRO precipitation_amount_from_si(x, units) AS CASE units
  WHEN 'kg/m^2' THEN x WHEN 'mm' THEN x * 1.0 WHEN 'in' THEN x * (1 / 25.4) END;

-- Humid heat (docs/indicators.md, "Humid heat"). Wet-bulb temperature by Stull (2011, J. Appl.
-- Meteor. Climatol. 50:2267), as published: t in deg C, rh in %, the answer in deg C. Fitted for rh
-- 5-99 % and t -20..50 deg C at sea-level pressure (error -1..+0.65 deg C).
-- (in doubles: decimal literals typed in the CLI would overflow DuckDB's DECIMAL products)
CREATE OR REPLACE MACRO wet_bulb_stull_double(t, rh) AS
  t * atan(0.151977 * sqrt(rh + 8.313659)) + atan(t + rh) - atan(rh - 1.676331)
  + 0.00391838 * pow(rh, 1.5) * atan(0.023101 * rh) - 4.686035;
CREATE OR REPLACE MACRO wet_bulb_stull(t, rh) AS wet_bulb_stull_double(t::DOUBLE, rh::DOUBLE);

-- The US National Weather Service's heat index (wpc.ncep.noaa.gov heatindex_equation.shtml), t in
-- deg F, rh in %, the answer in deg F: the simple formula; where its average with t is 80 deg F or
-- more, Rothfusz's regression, less the dry adjustment (rh < 13 %, 80..112 deg F) or plus the humid
-- one (rh > 85 %, 80..87 deg F).
CREATE OR REPLACE MACRO heat_index_simple(t, rh) AS 0.5 * (t + 61.0 + (t - 68.0) * 1.2 + rh * 0.094);
CREATE OR REPLACE MACRO heat_index_rothfusz(t, rh) AS
  -42.379 + 2.04901523 * t + 10.14333127 * rh - 0.22475541 * t * rh - 0.00683783 * t * t
  - 0.05481717 * rh * rh + 0.00122874 * t * t * rh + 0.00085282 * t * rh * rh - 0.00000199 * t * t * rh * rh
  - CASE WHEN rh < 13 AND t BETWEEN 80 AND 112 THEN ((13 - rh) / 4) * sqrt((17 - abs(t - 95)) / 17) ELSE 0 END
  + CASE WHEN rh > 85 AND t BETWEEN 80 AND 87 THEN ((rh - 85) / 10) * ((87 - t) / 5) ELSE 0 END;
CREATE OR REPLACE MACRO heat_index_nws_double(t, rh) AS CASE
  WHEN (heat_index_simple(t, rh) + t) / 2 >= 80 THEN heat_index_rothfusz(t, rh) ELSE heat_index_simple(t, rh) END;
CREATE OR REPLACE MACRO heat_index_nws(t, rh) AS heat_index_nws_double(t::DOUBLE, rh::DOUBLE);

-- x within [lo, hi] (a NULL bound: none). NULL stays NULL, which least() and greatest() would
-- replace by the bound: a model without humidity must not get a value.
CREATE OR REPLACE MACRO clipped(x, lo, hi) AS CASE WHEN x < lo THEN lo WHEN x > hi THEN hi ELSE x END;

-- Relative humidity (%) at temperature t (deg C) of air with specific humidity q (kg kg-1) at
-- 1013.25 hPa: vapour pressure e = q p / (0.622 + 0.378 q), saturation vapour pressure
-- 6.112 exp(17.67 t / (t + 243.5)) hPa (Bolton 1980), capped at 100 %.
CREATE OR REPLACE MACRO relative_humidity_from_huss_double(q, t) AS
  clipped(100.0 * (q * 1013.25 / (0.622 + 0.378 * q)) / (6.112 * exp(17.67 * t / (t + 243.5))), NULL, 100.0);
CREATE OR REPLACE MACRO relative_humidity_from_huss(q, t) AS relative_humidity_from_huss_double(q::DOUBLE, t::DOUBLE);

-- The indicators' daily values, in K from the stored variables: the day's wet-bulb temperature
-- from its mean temperature and relative humidity (hurs clipped to 0..100 %), and its heat index
-- from its high temperature and the relative humidity its specific humidity gives at that high.
CREATE OR REPLACE MACRO daily_wet_bulb(tas, hurs) AS
  wet_bulb_stull(tas::DOUBLE - 273.15, clipped(hurs::DOUBLE, 0.0, 100.0)) + 273.15;
CREATE OR REPLACE MACRO daily_heat_index(tasmax, huss) AS
  (heat_index_nws((tasmax::DOUBLE - 273.15) * 1.8 + 32.0, relative_humidity_from_huss(huss, tasmax::DOUBLE - 273.15)) + 459.67) / 1.8;

-- An aggregate: the days on which cond holds, NULL where no day has a value (value NULL on every
-- day: a model's year its publisher left without an input), so that a missing year is no 0.
CREATE OR REPLACE MACRO count_where_known(value, cond) AS
  CASE WHEN count(value) > 0 THEN count(*) FILTER (WHERE cond) END;

-- Comparison by name: lt, lte, gt, gte.
CREATE OR REPLACE MACRO compare(v, op, threshold) AS CASE op
  WHEN 'lt' THEN v < threshold WHEN 'lte' THEN v <= threshold
  WHEN 'gt' THEN v > threshold WHEN 'gte' THEN v >= threshold END;

-- Lengths of the runs of consecutive true values in a list of booleans (days in date order).
CREATE OR REPLACE MACRO run_lengths(flags) AS
  list_filter(
    list_transform(string_split_regex(array_to_string(list_transform(flags, f -> f::INTEGER), ''), '0+'), r -> length(r)),
    n -> n > 0);

-- Per cell, the mean across models of each model's percentile of a variable over the historic
-- years (for pr only wet days count): the threshold of the extreme-event indicators. numpy's linear rule.
-- The mean adds the models in name order, so that the build and the ingest, which count each
-- month's events against the thresholds at the indicators' default percentiles
-- (src/ingest/historicThresholds.ts, sql/build/historic_thresholds.sql), have the same to the bit.
CREATE OR REPLACE MACRO historic_percentiles(file, first_year, last_year, variable, pct) AS TABLE
  SELECT cell, favg(q ORDER BY model) AS threshold FROM (
    SELECT cell, model, quantile_cont(v, pct / 100) AS q
    FROM (SELECT file_index::INTEGER AS cell, model, (CASE variable WHEN 'pr' THEN pr WHEN 'tasmax' THEN tasmax ELSE tasmin END)::DOUBLE AS v, date
          FROM read_parquet(file))
    -- The range as dates, which the Parquet reader filters as it scans (year(date) it cannot).
    WHERE date BETWEEN make_date(first_year, 1, 1) AND make_date(last_year, 12, 31) AND v IS NOT NULL AND (variable <> 'pr' OR v > 0)
    GROUP BY cell, model)
  GROUP BY cell;

-- Daily climatology of the high temperature: per cell, for each day slot (day of year - 1), the
-- mean of every model and year of the historic range.
CREATE OR REPLACE MACRO historic_daily_tasmax(file, first_year, last_year) AS TABLE
  SELECT file_index::INTEGER AS cell, (dayofyear(date) - 1)::INTEGER AS slot, favg(tasmax::DOUBLE) AS norm
  FROM read_parquet(file)
  WHERE year(date) BETWEEN first_year AND last_year AND tasmax IS NOT NULL
  GROUP BY cell, slot;

-- One day's value (float32) as the raw data endpoint's JSON arrays hold it: the shortest decimal
-- that reads back as the same float32, null where no model has a value. Written into the
-- ensemble_json summary at build (sql/build/ensemble_json.sql puts a year's days together).
CREATE OR REPLACE MACRO json_day_value(v) AS CASE WHEN isfinite(v) THEN CAST(v AS VARCHAR) ELSE 'null' END;
