-- Synthetic, physically plausible daily climate for one map cell, one scenario, a list of models.
-- Deterministic: every random number comes from hash(seed, cell, scenario, model, stream, day),
-- never random(), which is not reproducible under parallel execution.
-- Parameters: $seed, $cell, $scenario (historical | RCP45 | RCP85), $y0, $y1 (years, inclusive),
-- $lat (cell centre latitude), $cont (continentality 0..1), $arid (0..1), $west (west-coast maritime 0..1),
-- $models (VARCHAR[]), $noleap (VARCHAR[]: models on a 365-day calendar).
WITH m AS (
  SELECT model,
         (hash($seed, model, 'bias') % 1000003) / 1000003.0 * 3.0 - 1.5 AS bias,
         0.7 + (hash($seed, model, 'sens') % 1000003) / 1000003.0 * 0.6 AS sens,
         list_contains($noleap::VARCHAR[], model) AS noleap
  FROM unnest($models::VARCHAR[]) AS t(model)
),
d AS (
  SELECT r.ts::DATE AS date, year(r.ts) AS yr, dayofyear(r.ts) AS doy,
         (r.ts::DATE - DATE '1950-01-01')::BIGINT AS t,
         month(r.ts) = 2 AND day(r.ts) = 29 AS feb29
  FROM range(make_date($y0::INTEGER, 1, 1)::TIMESTAMP, make_date($y1::INTEGER + 1, 1, 1)::TIMESTAMP, INTERVAL 1 DAY) AS r(ts)
),
climate AS (
  SELECT
    abs($lat::DOUBLE) AS alat,
    -- annual mean of the daily mean temperature, deg C
    25.5 - 0.8 * (abs($lat::DOUBLE) - 25.5) + 3.0 * $arid::DOUBLE + 3.0 * $west::DOUBLE AS t0,
    -- half the July-January difference, K
    greatest(2.0, 3.0 + 0.4 * (abs($lat::DOUBLE) - 20.0) + 5.0 * $cont::DOUBLE - 6.0 * $west::DOUBLE) AS amp,
    200.0 + 12.0 * (1.0 - $cont::DOUBLE) AS peak,
    8.0 + 6.0 * $cont::DOUBLE + 4.0 * $arid::DOUBLE AS dtr,
    0.38 * (1.0 - 0.75 * $arid::DOUBLE) AS pwet,
    9.0 * (1.0 - 0.3 * $arid::DOUBLE) AS wet_mm,
    1.0 + 0.01 * (abs($lat::DOUBLE) - 30.0) AS amplify
),
h AS (
  -- Two 32-bit uniforms per hash: knots of the temperature noise every 4 days, of the wet-day
  -- noise every 3 days, and white noise of the day.
  SELECT m.model, d.date, d.yr, d.doy, d.t, m.bias, m.sens,
         hash($seed, $cell, $scenario, m.model, 1, d.t // 4) AS k0,
         hash($seed, $cell, $scenario, m.model, 1, d.t // 4 + 1) AS k1,
         ((d.t % 4) / 4.0) AS f,
         hash($seed, $cell, $scenario, m.model, 2, d.t // 3) AS w0,
         hash($seed, $cell, $scenario, m.model, 2, d.t // 3 + 1) AS w1,
         ((d.t % 3) / 3.0) AS g,
         hash($seed, $cell, $scenario, m.model, 3, d.t) AS day_a,
         hash($seed, $cell, $scenario, m.model, 4, d.t) AS day_b
  FROM m CROSS JOIN d
  WHERE NOT (m.noleap AND d.feb29)
),
u AS (
  SELECT h.*,
         f * f * (3.0 - 2.0 * f) AS fs,
         g * g * (3.0 - 2.0 * g) AS gs,
         ((k0 & 4294967295) + (k0 >> 32)) / 8589934592.0 AS n0,
         ((k1 & 4294967295) + (k1 >> 32)) / 8589934592.0 AS n1,
         (w0 & 4294967295) / 4294967296.0 AS p0,
         (w1 & 4294967295) / 4294967296.0 AS p1,
         (day_a & 4294967295) / 4294967296.0 AS white_t,
         (day_a >> 32) / 4294967296.0 AS white_dtr,
         (day_b & 4294967295) / 4294967296.0 AS white_wet,
         (day_b >> 32) / 4294967296.0 AS amount_u
  FROM h
),
v AS (
  SELECT u.model, u.date,
         c.t0 + 273.15
           + c.amp * cos(2 * pi() * (u.doy - c.peak) / 365.25)
           + u.bias
           + u.sens * c.amplify * CASE $scenario
               WHEN 'historical' THEN 0.6 * (u.yr - 1950) / 55.0 - 0.3
               WHEN 'RCP45' THEN 0.4 + 2.0 * (1 - exp(-(u.yr - 2006) / 45.0)) / (1 - exp(-94 / 45.0))
               ELSE 0.4 + 4.6 * pow((u.yr - 2006) / 94.0, 1.4) END
           -- persistent anomaly (sum of two uniforms: bell-shaped), larger in winter and inland
           + (2.0 + 1.5 * $cont::DOUBLE) * (1.0 - 0.35 * cos(2 * pi() * (u.doy - c.peak) / 365.25))
             * 3.4 * ((u.n0 * (1 - u.fs) + u.n1 * u.fs) - 0.5)
           + 1.2 * (u.white_t - 0.5) AS tmean,
         (u.p0 * (1 - u.gs) + u.p1 * u.gs) * 0.75 + 0.25 * u.white_wet
           < c.pwet * (1.0 + 0.6 * $west::DOUBLE * cos(2 * pi() * (u.doy - 15) / 365.25)) AS wet,
         c.dtr, c.wet_mm, u.white_dtr, u.amount_u
  FROM u, climate c
)
SELECT model, date,
       (tmean + (dtr - CASE WHEN wet THEN 3.0 ELSE 0.0 END) / 2)::FLOAT AS tasmax,
       (tmean + (dtr - CASE WHEN wet THEN 3.0 ELSE 0.0 END) / 2
              - greatest(1.0, dtr - CASE WHEN wet THEN 3.0 ELSE 0.0 END + 3.0 * (white_dtr - 0.5)))::FLOAT AS tasmin,
       (CASE WHEN wet THEN -wet_mm * ln(1.0 - amount_u) / 86400.0 ELSE 0.0 END)::FLOAT AS pr
FROM v
ORDER BY model, date
