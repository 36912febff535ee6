-- The first step of the monthly summaries (monthly_summary.sql) from the digits the build computed
-- from the days it holds in memory (src/ingest/monthlyDigits.ts), as monthly_digits.sql gives them:
-- the same columns and types, NULL for a heat series without a flag in the month.
-- $digits: the rows' id (src/db/rowSource.ts).
SELECT model, year, month, frost_days::BIGINT AS frost_days, max_tasmax, min_tasmin, dry, not_wet,
       nullif(h1, 0) AS h1, nullif(h2, 0) AS h2, nullif(h3, 0) AS h3, nullif(h4, 0) AS h4
FROM row_source($digits::INTEGER)
