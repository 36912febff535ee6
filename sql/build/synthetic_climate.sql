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
-- One row per model in name order: its noise key, warm/cold bias and climate sensitivity, and the
-- cell's constants that its days carry along (a join with c per day cost a tenth of the build).
m AS (
  SELECT model,
         hash($seed::INTEGER, $cell::INTEGER, $scenario::VARCHAR, model) AS k,
         (hash($seed::INTEGER, model, 'bias') >> 11) / 9007199254740992.0 * 3.0 - 1.5 AS bias,
         0.7 + (hash($seed::INTEGER, model, 'sensitivity') >> 11) / 9007199254740992.0 * 0.6 AS sens,
         list_contains($noleap::VARCHAR[], model) AS noleap,
         list_contains($day360::VARCHAR[], model) AS day360,
         c.t_mean, c.t_amp, c.dtr, c.t_sd, c.p_wet, c.wet_mm
  FROM unnest($models::VARCHAR[]) AS t(model), c
  ORDER BY model
),
-- One row per calendar day: everything that does not depend on the model.
d AS (
  SELECT date, t, feb29, skip360,
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
),
-- One row per model and day, model by model in date order, with the hashes: each model's row is
-- unnested with the list of every day in date order, and UNNEST keeps that order, so the rows come out
-- as the files store them and need no sort (test/build.test.ts checks the order). Streams: 1 fast
-- temperature noise (knots every 3 days), 2 slow temperature noise (every 11 days), 3 wet regime
-- (every 5 days), 4 and 5 white noise of the day.
md AS (
  SELECT m.*, unnest(days.list) AS d
  FROM m, (SELECT list(d ORDER BY d.t) AS list FROM d) AS days
),
h AS (
  SELECT model, d.date, d.season, d.warming, d.wet_season, bias, sens, t_mean, t_amp, dtr, t_sd, p_wet, wet_mm,
         (d.t % 3) / 3.0 AS ff, hash(k, 1, d.t // 3) AS f0, hash(k, 1, d.t // 3 + 1) AS f1,
         (d.t % 11) / 11.0 AS fs, hash(k, 2, d.t // 11) AS s0, hash(k, 2, d.t // 11 + 1) AS s1,
         (d.t % 5) / 5.0 AS fr, hash(k, 3, d.t // 5) AS r0, hash(k, 3, d.t // 5 + 1) AS r1,
         hash(k, 4, d.t) AS wa, hash(k, 5, d.t) AS wb
  FROM md
  WHERE NOT (noleap AND d.feb29) AND NOT (day360 AND d.skip360)
),
-- Uniforms in [0, 1) from 32-bit halves; knot noise as a smoothstep interpolation between knots
-- (knot values: sum of two uniforms, bell-shaped, in [-1, 1]).
u AS (
  SELECT model, date, season, warming, wet_season, bias, sens, t_mean, t_amp, dtr, t_sd, p_wet, wet_mm,
         ((f0 & 4294967295) + (f0 >> 32)) / 4294967296.0 - 1.0 AS fa,
         ((f1 & 4294967295) + (f1 >> 32)) / 4294967296.0 - 1.0 AS fb,
         ff * ff * (3.0 - 2.0 * ff) AS fw,
         ((s0 & 4294967295) + (s0 >> 32)) / 4294967296.0 - 1.0 AS sa,
         ((s1 & 4294967295) + (s1 >> 32)) / 4294967296.0 - 1.0 AS sb,
         fs * fs * (3.0 - 2.0 * fs) AS sw,
         (r0 & 4294967295) / 4294967296.0 AS ra,
         (r1 & 4294967295) / 4294967296.0 AS rb,
         fr * fr * (3.0 - 2.0 * fr) AS rw,
         (wa & 4294967295) / 4294967296.0 AS white_t,
         (wa >> 32) / 4294967296.0 AS white_dtr,
         (wb & 4294967295) / 4294967296.0 AS white_wet,
         (wb >> 32) / 4294967296.0 AS white_amount
  FROM h
),
v AS (
  SELECT u.model, u.date,
         u.t_mean + 273.15 + u.t_amp * u.season + u.bias + u.sens * u.warming
           -- persistent anomaly: slow and fast value noise, larger in winter
           + u.t_sd * (1.0 - 0.4 * u.season)
             * (1.5 * (u.sa + (u.sb - u.sa) * u.sw) + 1.2 * (u.fa + (u.fb - u.fa) * u.fw) + 0.9 * (u.white_t - 0.5))
           AS tmean,
         -- wet regime in [0, 1): scales the day's wet probability (mean 1) and its amounts
         u.ra + (u.rb - u.ra) * u.rw AS regime,
         u.white_wet < u.p_wet * u.wet_season * (0.3 + 1.4 * (u.ra + (u.rb - u.ra) * u.rw)) AS wet,
         u.dtr, u.wet_mm, u.warming * u.sens AS dt, u.white_dtr, u.white_amount
  FROM u
),
w AS (
  -- wet days: a smaller diurnal range; the range never drops below 1 K, so tasmin < tasmax
  SELECT model, date, tmean, wet, regime, dt, white_amount, wet_mm,
         greatest(1.0, dtr * CASE WHEN wet THEN 0.6 ELSE 1.0 END * (0.8 + 0.4 * white_dtr)) AS range_k
  FROM v
)
-- Temperatures to 0.01 K: nothing of substance is lost, the files are a fifth smaller, and the values
-- print short (287.23).
SELECT model, date,
       round(tmean + range_k / 2, 2)::FLOAT AS tasmax,
       round(tmean - range_k / 2, 2)::FLOAT AS tasmin,
       -- exponential amounts, heavier in wet regimes and a little heavier per K of warming (mm/day -> kg m-2 s-1)
       (CASE WHEN wet THEN -wet_mm * (0.6 + 0.8 * regime) * (1.0 + 0.05 * dt) * ln(1.0 - white_amount) / 86400.0
             ELSE 0.0 END)::FLOAT AS pr
FROM w
