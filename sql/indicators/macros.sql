-- Shared pieces of the indicator templates. Sums and means use fsum/favg (compensated): the plain
-- parallel aggregates can differ in the last bits from run to run, and answers must be repeatable. The service loads this file into every connection;
-- an analyst runs `.read sql/indicators/macros.sql` once per DuckDB CLI session (see README.md).

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
  WHEN 'custom' THEN year(d) * 1000 + span_of(month(d) * 100 + day(d), spans)
END;

-- The API's period keys: 2050, 2050-03, 2050-Q1, 2050-2051, 2050-01 (custom: the span's number).
CREATE OR REPLACE MACRO period_label(agg, id) AS CASE agg
  WHEN 'yearly' THEN id::VARCHAR
  WHEN 'monthly' THEN printf('%04d-%02d', id // 100, id % 100)
  WHEN 'quarterly' THEN printf('%04d-Q%d', id // 10, id % 10)
  WHEN 'offset_yearly' THEN id::VARCHAR || '-' || (id + 1)::VARCHAR
  WHEN 'custom' THEN printf('%04d-%02d', id // 1000, id % 1000)
END;

-- One cell's days for the chosen models and years, each with its period id. Variables are in
-- storage units (tasmax, tasmin in K; pr in kg m-2 s-1), widened from float32 to double so that
-- sums and means are computed in double precision, like the original's Python floats.
-- `years` is filtered as a date range, plus a list test only when the list has gaps; `models` is a
-- list of names, or NULL for all of them.
CREATE OR REPLACE MACRO cell_days(file, models, years, agg, spans) AS TABLE
  SELECT model, date, year(date)::INTEGER AS year, tasmax::DOUBLE AS tasmax, tasmin::DOUBLE AS tasmin,
         pr::DOUBLE AS pr, period_id(agg, date, spans) AS period
  FROM read_parquet(file)
  WHERE date BETWEEN make_date(list_min(years), 1, 1) AND make_date(list_max(years), 12, 31)
    AND (len(years) = list_max(years) - list_min(years) + 1 OR list_contains(years, year(date)::INTEGER))
    -- NULL models means all of the file's models; the semi-join costs about as much as the scan.
    AND (models IS NULL OR model IN (SELECT unnest(models)));

-- The days the templates reduce. An offset year is kept only where the model has data in both of
-- its calendar years (as the original); that check costs a second pass, so only offset_yearly pays
-- it (the branch whose constant condition is false is removed before execution).
CREATE OR REPLACE MACRO indicator_days(file, models, years, agg, spans) AS TABLE
  SELECT * FROM cell_days(file, models, years, agg, spans)
  WHERE agg <> 'offset_yearly' AND period IS NOT NULL
  UNION ALL
  SELECT d.* FROM cell_days(file, models, years, agg, spans) AS d
  JOIN (SELECT DISTINCT model, year FROM cell_days(file, models, years, agg, spans)) AS first
    ON first.model = d.model AND first.year = d.period
  JOIN (SELECT DISTINCT model, year FROM cell_days(file, models, years, agg, spans)) AS second
    ON second.model = d.model AND second.year = d.period + 1
  WHERE agg = 'offset_yearly';

-- numpy 1.15 percentile with linear interpolation: v[lo] * (1 - w) + v[hi] * w, where v is sorted,
-- idx = q / 100 * (n - 1), lo = floor(idx), hi = min(lo + 1, n - 1), w = idx - lo (0-based).
CREATE OR REPLACE MACRO np_index(n, q) AS (q / 100.0) * (n - 1);
CREATE OR REPLACE MACRO np_interpolate(v, idx) AS
  v[floor(idx)::INTEGER + 1] * (1.0 - (idx - floor(idx))) + v[least(floor(idx)::INTEGER + 2, len(v))] * (idx - floor(idx));
CREATE OR REPLACE MACRO np_percentile(vals, q) AS np_interpolate(list_sort(vals), np_index(len(vals), q));

-- Population standard deviation, two-pass like numpy.std.
CREATE OR REPLACE MACRO np_std(vals) AS
  sqrt(list_avg(list_transform(vals, x -> (x - list_avg(vals)) * (x - list_avg(vals)))));

-- One cross-model statistic: min, max, avg, median, stddev (stdev), or NNth (a percentile).
CREATE OR REPLACE MACRO model_stat(vals, name) AS CASE
  WHEN name = 'min' THEN list_min(vals)
  WHEN name = 'max' THEN list_max(vals)
  WHEN name = 'avg' THEN list_sum(vals) / len(vals)
  WHEN name = 'median' THEN np_percentile(vals, 50)
  WHEN name IN ('stddev', 'stdev') THEN np_std(vals)
  ELSE np_percentile(vals, regexp_extract(lower(name), '^(\d+)th$', 1)::INTEGER)
END;

-- The requested statistics across the models' values of a period, as a map name -> value.
CREATE OR REPLACE MACRO across_models(vals, names) AS
  map_from_entries(list_transform(names, n -> {'k': n, 'v': model_stat(vals, n)}));

-- Unit conversions from storage units, in the original's operation order (identical doubles).
CREATE OR REPLACE MACRO temperature_from_k(x, units) AS CASE units
  WHEN 'K' THEN x WHEN 'C' THEN (x + -273.15) * 1.0 WHEN 'F' THEN (x + (-459.67 / 1.8)) * 1.8 END;
CREATE OR REPLACE MACRO temperature_delta_from_k(x, units) AS CASE units
  WHEN 'K' THEN x WHEN 'C' THEN x * 1.0 WHEN 'F' THEN x * 1.8 END;
CREATE OR REPLACE MACRO precipitation_rate_from_si(x, units) AS CASE units
  WHEN 'kg/m^2/s' THEN x WHEN 'mm/day' THEN x * 86400.0 WHEN 'in/day' THEN x * ((1 / 25.4) * 86400.0) END;
CREATE OR REPLACE MACRO precipitation_amount_from_si(x, units) AS CASE units
  WHEN 'kg/m^2' THEN x WHEN 'mm' THEN x * 1.0 WHEN 'in' THEN x * (1 / 25.4) END;

-- Comparison by name: lt, lte, gt, gte.
CREATE OR REPLACE MACRO compare(v, op, threshold) AS CASE op
  WHEN 'lt' THEN v < threshold WHEN 'lte' THEN v <= threshold
  WHEN 'gt' THEN v > threshold WHEN 'gte' THEN v >= threshold END;

-- Lengths of the runs of consecutive true values in a list of booleans (days in date order).
CREATE OR REPLACE MACRO run_lengths(flags) AS
  list_filter(
    list_transform(string_split_regex(array_to_string(list_transform(flags, f -> f::INTEGER), ''), '0+'), r -> length(r)),
    n -> n > 0);

-- The mean across models of each model's percentile of a variable over the historic years (for
-- pr only wet days count): the threshold of the extreme-event indicators. numpy's linear rule.
CREATE OR REPLACE MACRO historic_percentile(file, first_year, last_year, variable, pct) AS (
  SELECT favg(q) FROM (
    SELECT model, quantile_cont(v, pct / 100) AS q
    FROM (SELECT model, (CASE variable WHEN 'pr' THEN pr WHEN 'tasmax' THEN tasmax ELSE tasmin END)::DOUBLE AS v, date
          FROM read_parquet(file))
    WHERE year(date) BETWEEN first_year AND last_year AND v IS NOT NULL AND (variable <> 'pr' OR v > 0)
    GROUP BY model)
);

-- Daily climatology of the high temperature: for each day slot (day of year - 1), the mean of
-- every model and year of the historic range.
CREATE OR REPLACE MACRO historic_daily_tasmax(file, first_year, last_year) AS TABLE
  SELECT (dayofyear(date) - 1)::INTEGER AS slot, favg(tasmax::DOUBLE) AS norm
  FROM read_parquet(file)
  WHERE year(date) BETWEEN first_year AND last_year AND tasmax IS NOT NULL
  GROUP BY slot;
