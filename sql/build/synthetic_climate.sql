-- Synthetic, physically plausible daily climate for one map cell, one scenario and a list of models:
-- rows (model, date, tasmax K, tasmin K, pr kg m-2 s-1) in the order the files store them, by model
-- then date, without a sort (see md below): sorting 1.1 M finished rows cost as much as generating
-- them.
--
-- Deterministic: every random number is a hash of (seed, cell, scenario, model, stream, day or knot),
-- never random(), which is not reproducible under parallel execution. Noise is indexed by days since
-- 1950-01-01, so a narrower year range gives the same values for the days it keeps.
--
-- Parameters
--   $seed INTEGER, $cell INTEGER (cell id), $scenario VARCHAR (historical | RCP45 | RCP85 | ssp126 |
--   ssp245 | ssp370 | ssp585), $y0, $y1 INTEGER (years, inclusive), $models VARCHAR[],
--   $noleap VARCHAR[] (models on a 365-day calendar: no Feb 29 row),
--   $day360 VARCHAR[] (models on a 360-day calendar: rows only on the real dates the NetCDF ingest
--   maps their 360 days to), $skip365 INTEGER[], $skip366 INTEGER[] (the days of the year, 1-based,
--   that no 360-day day maps to in a year of 365 and of 366 days: src/ingest/netcdf/cfTime.ts
--   day360ToDayOfYear, computed by the caller so that both use one rule),
--   $lat DOUBLE (cell centre latitude),
--   $cont DOUBLE     continentality, 0 at the coast .. 1 from 800 km inland
--   $west DOUBLE     Pacific maritime influence, 1 on the west coast .. 0 from 200 km inland
--   $arid DOUBLE     desert Southwest (Mojave, Sonoran), 1 at its core
--   $steppe DOUBLE   semi-arid interior West and High Plains
--   $highland DOUBLE Rocky Mountains and Colorado Plateau (elevation cooling)
--   $subtropic DOUBLE humid subtropical Gulf and Florida coast
-- The model type (model_enum in braces below) is an ENUM of $models, written into the text by the
-- caller (a type cannot be a parameter). The rows carry each model's name as that ENUM, a byte, and
-- the Parquet writer takes its dictionary as it is: the names as VARCHAR cost a third of writing
-- the file, encoded again on every row. The file's column is the same UTF-8 string column either way.
WITH
-- The cell's climate: one row of constants.
c AS (
  SELECT
    -- annual mean of the daily mean temperature, deg C
    25.5 - 0.8 * greatest(0.0, abs($lat::DOUBLE) - 25.5) - 2.0 * $cont::DOUBLE + 3.0 * $arid::DOUBLE
      - 4.0 * $highland::DOUBLE + 3.5 * $west::DOUBLE * least(1.0, greatest(0.0, (abs($lat::DOUBLE) - 40.0) / 5.0))
      AS t_mean,
    -- amplitude of the seasonal cycle (half the difference between the warmest and coldest day), K
    greatest(2.0, 3.0 + 0.4 * (abs($lat::DOUBLE) - 20.0) + 4.0 * $cont::DOUBLE - 6.0 * $west::DOUBLE
      - 3.0 * $highland::DOUBLE) AS t_amp,
    -- warmest day of the year: late July inland, later by the sea, September on the California coast,
    -- mid-August in the Pacific Northwest
    200.0 + 12.0 * (1.0 - $cont::DOUBLE)
      + 25.0 * $west::DOUBLE * (1.0 - 0.6 * least(1.0, greatest(0.0, (abs($lat::DOUBLE) - 38.0) / 8.0))) AS t_peak,
    -- diurnal temperature range on dry days, K
    8.5 + 4.0 * $cont::DOUBLE + 4.0 * greatest($arid::DOUBLE, $steppe::DOUBLE) AS dtr,
    -- standard deviation of the daily anomaly, K (x1.4 in winter, x0.6 in summer)
    3.0 + 2.4 * $cont::DOUBLE - 1.0 * $west::DOUBLE AS t_sd,
    -- regional warming relative to the global figure (stronger at high latitudes)
    1.0 + 0.01 * (abs($lat::DOUBLE) - 30.0) AS amplify,
    -- yearly fraction of wet days
    0.33 * (1.0 - 0.65 * $arid::DOUBLE) * (1.0 - 0.35 * $steppe::DOUBLE)
      * (1.0 - 0.6 * $west::DOUBLE * least(1.0, greatest(0.0, (42.0 - abs($lat::DOUBLE)) / 6.0)))
      + 0.12 * $west::DOUBLE * least(1.0, greatest(0.0, (abs($lat::DOUBLE) - 38.0) / 6.0)) AS p_wet,
    -- mean precipitation of a wet day, mm
    8.5 + 3.5 * $subtropic::DOUBLE - 3.0 * greatest($arid::DOUBLE, $steppe::DOUBLE) - 2.5 * $west::DOUBLE
      + 4.0 * $west::DOUBLE * least(1.0, greatest(0.0, (42.0 - abs($lat::DOUBLE)) / 6.0)) AS wet_mm
),
-- The days since 1950-01-01 of the first and the last day.
span AS (
  SELECT (make_date($y0::INTEGER, 1, 1) - DATE '1950-01-01')::BIGINT AS t0,
         (make_date($y1::INTEGER + 1, 1, 1) - DATE '1950-01-01')::BIGINT - 1 AS t1
),
-- One row per model in name order: its noise key, warm/cold bias and climate sensitivity, the
-- cell's constants that its days carry along (a join with c per day cost a tenth of the build), the
-- values of its knot noise (streams 1 fast temperature noise, knots every 3 days; 2 slow temperature
-- noise, every 11 days; 3 wet regime, every 5 days) from the first day's knot to the one after the
-- last day's: a knot's value serves the 3 to 11 days around it, so it is hashed once, not on each
-- of them. Knot values: the sum of two uniforms from 32-bit halves, bell-shaped, in [-1, 1]; the
-- regime's a uniform in [0, 1).
m AS (
  SELECT model::{{model_enum}} AS model, k, bias, sens, noleap, day360, c.dtr, c.wet_mm,
         list_transform(range(t0 // 3, t1 // 3 + 2), j -> ((hash(k, 1, j) & 4294967295) + (hash(k, 1, j) >> 32)) / 4294967296.0 - 1.0) AS fast,
         list_transform(range(t0 // 11, t1 // 11 + 2), j -> ((hash(k, 2, j) & 4294967295) + (hash(k, 2, j) >> 32)) / 4294967296.0 - 1.0) AS slow,
         list_transform(range(t0 // 5, t1 // 5 + 2), j -> (hash(k, 3, j) & 4294967295) / 4294967296.0) AS wet_regime
  FROM (
    SELECT model,
           hash($seed::INTEGER, $cell::INTEGER, $scenario::VARCHAR, model) AS k,
           (hash($seed::INTEGER, model, 'bias') >> 11) / 9007199254740992.0 * 3.0 - 1.5 AS bias,
           0.7 + (hash($seed::INTEGER, model, 'sensitivity') >> 11) / 9007199254740992.0 * 0.6 AS sens,
           list_contains($noleap::VARCHAR[], model) AS noleap,
           list_contains($day360::VARCHAR[], model) AS day360
    FROM unnest($models::VARCHAR[]) AS t(model)
  ), span, c
  ORDER BY model::VARCHAR
),
-- One row per calendar day: everything that does not depend on the model, with the cell's
-- constants folded in where the model's terms come after them (the same sums in the same order,
-- so the same values as adding them per row).
d AS (
  SELECT date, t, feb29, skip360, warming,
         c.t_mean + 273.15 + c.t_amp * season AS base,
         c.t_sd * (1.0 - 0.4 * season) AS sd,
         c.p_wet * wet_season AS p_wet,
         -- the day's place between its knots (smoothstep weights) and its knots' places in the lists of m
         ff * ff * (3.0 - 2.0 * ff) AS fw, t // 3 - t0 // 3 + 1 AS fi,
         fs * fs * (3.0 - 2.0 * fs) AS sw, t // 11 - t0 // 11 + 1 AS si,
         fr * fr * (3.0 - 2.0 * fr) AS rw, t // 5 - t0 // 5 + 1 AS ri
  FROM (
    SELECT date, t, feb29, skip360, (t % 3) / 3.0 AS ff, (t % 11) / 11.0 AS fs, (t % 5) / 5.0 AS fr,
           -- +1 on the warmest day of the year, -1 on the coldest
           cos(2 * pi() * (doy - c.t_peak) / 365.25) AS season,
           -- warming in K before the model's sensitivity, from the fractional year; x = 0 in 2006, 1 in 2100.
           -- The two RCPs start together (RCP 8.5 always a little warmer); RCP 4.5 levels off, RCP 8.5
           -- accelerates. CMIP6's historical runs to 2014 on the same line. The SSPs continue that line
           -- from 2015 (x6 = 0 in 2015, 1 in 2100) plus a x6^2 and x6^3 term, so they join it with the
           -- same value and slope; by 2100 (historical's line gives 0.91 K of 2015-2100): SSP1-2.6
           -- +1.1 K over 2015, levelling off; SSP2-4.5 +2.2, slowing; SSP3-7.0 +3.6 and SSP5-8.5 +4.6,
           -- accelerating (ordered at every x6 > 0; AR6 puts the SSPs' 2081-2100 warming in that order).
           -- RCP85 is named, not the ELSE, so that an unknown scenario fails instead of warming silently.
           c.amplify * CASE $scenario::VARCHAR
             WHEN 'historical' THEN -0.3 + 0.6 * (yf - 1950.0) / 56.0
             WHEN 'RCP45' THEN 0.3 + 2.1 * (0.7 * x + 1.4 * x * x - 1.1 * x * x * x)
             WHEN 'RCP85' THEN 0.3 + 4.7 * (0.35 * x + 0.65 * x * x)
             WHEN 'ssp126' THEN -0.3 + 0.6 * (yf - 1950.0) / 56.0 + x6 * x6 * (1.3 - 1.1 * x6)
             WHEN 'ssp245' THEN -0.3 + 0.6 * (yf - 1950.0) / 56.0 + x6 * x6 * (3.3 - 2.0 * x6)
             WHEN 'ssp370' THEN -0.3 + 0.6 * (yf - 1950.0) / 56.0 + x6 * x6 * (4.0 - 1.3 * x6)
             WHEN 'ssp585' THEN -0.3 + 0.6 * (yf - 1950.0) / 56.0 + x6 * x6 * (6.0 - 2.3 * x6)
             ELSE error('synthetic_climate.sql: unknown scenario ' || $scenario::VARCHAR) END AS warming,
           -- seasonal factor of the wet-day probability (annual mean 1): winter rains on the Pacific
           -- coast, early-summer rains inland, a late-summer wet season in the subtropics and deserts
           greatest(0.05, 1.0
             + 0.9 * $west::DOUBLE * cos(2 * pi() * (doy - 15) / 365.25)
             + 0.5 * greatest($cont::DOUBLE, $steppe::DOUBLE) * (1.0 - $west::DOUBLE) * cos(2 * pi() * (doy - 165) / 365.25)
             + 0.5 * $subtropic::DOUBLE * cos(2 * pi() * (doy - 210) / 365.25)
             + 0.3 * $arid::DOUBLE * cos(2 * pi() * (doy - 215) / 365.25)) AS wet_season
    FROM (
      SELECT r.ts::DATE AS date,
             (r.ts::DATE - DATE '1950-01-01')::BIGINT AS t,
             dayofyear(r.ts) AS doy,
             year(r.ts) + (dayofyear(r.ts) - 0.5) / 365.25 AS yf,
             greatest(0.0, year(r.ts) + (dayofyear(r.ts) - 0.5) / 365.25 - 2006.0) / 94.0 AS x,
             greatest(0.0, year(r.ts) + (dayofyear(r.ts) - 0.5) / 365.25 - 2015.0) / 85.0 AS x6,
             month(r.ts) = 2 AND day(r.ts) = 29 AS feb29,
             list_contains(CASE WHEN (year(r.ts) % 4 = 0 AND year(r.ts) % 100 <> 0) OR year(r.ts) % 400 = 0
                                THEN $skip366::INTEGER[] ELSE $skip365::INTEGER[] END, dayofyear(r.ts)) AS skip360
      FROM range(make_date($y0::INTEGER, 1, 1)::TIMESTAMP, make_date($y1::INTEGER + 1, 1, 1)::TIMESTAMP, INTERVAL 1 DAY) AS r(ts)
    ), c
  ), c, span
),
-- The days of each calendar in date order: every day; no Feb 29 (noleap); only the real dates a
-- 360-day year's days land on (360_day).
calendars AS (
  SELECT standard, list_filter(standard, x -> NOT x.feb29) AS noleap, list_filter(standard, x -> NOT x.skip360) AS day360
  FROM (SELECT list(d ORDER BY d.t) AS standard FROM d)
),
-- One row per model and day, model by model in date order, with the day's white noise (streams 4
-- and 5): each model's row is unnested with the list of its calendar's days in date order, and
-- UNNEST keeps that order, so the rows come out as the files store them and need no sort
-- (test/build.test.ts checks the order).
md AS (
  SELECT model, bias, sens, dtr, wet_mm, fast, slow, wet_regime, hash(k, 4, d.t) AS wa, hash(k, 5, d.t) AS wb, d
  FROM (
    SELECT m.*, unnest(CASE WHEN m.noleap THEN calendars.noleap WHEN m.day360 THEN calendars.day360 ELSE calendars.standard END) AS d
    FROM m, calendars
  )
),
-- Uniforms in [0, 1) from 32-bit halves; knot noise as a smoothstep interpolation between knots.
u AS (
  SELECT model, d.date, d.base, d.sd, d.p_wet, d.warming, bias, sens, dtr, wet_mm,
         fast[d.fi] AS fa, fast[d.fi + 1] AS fb, d.fw,
         slow[d.si] AS sa, slow[d.si + 1] AS sb, d.sw,
         wet_regime[d.ri] AS ra, wet_regime[d.ri + 1] AS rb, d.rw,
         (wa & 4294967295) / 4294967296.0 AS white_t,
         (wa >> 32) / 4294967296.0 AS white_dtr,
         (wb & 4294967295) / 4294967296.0 AS white_wet,
         (wb >> 32) / 4294967296.0 AS white_amount
  FROM md
),
v AS (
  SELECT model, date,
         base + bias + sens * warming
           -- persistent anomaly: slow and fast value noise, larger in winter
           + sd * (1.5 * (sa + (sb - sa) * sw) + 1.2 * (fa + (fb - fa) * fw) + 0.9 * (white_t - 0.5))
           AS tmean,
         -- wet regime in [0, 1): scales the day's wet probability (mean 1) and its amounts
         ra + (rb - ra) * rw AS regime,
         white_wet < p_wet * (0.3 + 1.4 * (ra + (rb - ra) * rw)) AS wet,
         dtr, wet_mm, warming * sens AS dt, white_dtr, white_amount
  FROM u
),
w AS (
  -- wet days: a smaller diurnal range; the range never drops below 1 K, so tasmin < tasmax
  SELECT model, date, tmean, wet, regime, dt, white_amount, wet_mm,
         greatest(1.0, dtr * CASE WHEN wet THEN 0.6 ELSE 1.0 END * (0.8 + 0.4 * white_dtr)) AS range_k
  FROM v
)
-- Temperatures to 0.01 K: nothing of substance is lost, the files are a fifth smaller, and the values
-- print short (287.23). round(x * 100) / 100 is round(x, 2) without its power of ten per row.
SELECT model, date,
       (round((tmean + range_k / 2) * 100.0) / 100.0)::FLOAT AS tasmax,
       (round((tmean - range_k / 2) * 100.0) / 100.0)::FLOAT AS tasmin,
       -- exponential amounts, heavier in wet regimes and a little heavier per K of warming (mm/day -> kg m-2 s-1)
       (CASE WHEN wet THEN -wet_mm * (0.6 + 0.8 * regime) * (1.0 + 0.05 * dt) * ln(1.0 - white_amount) / 86400.0
             ELSE 0.0 END)::FLOAT AS pr
FROM w
