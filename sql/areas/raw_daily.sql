-- Daily values over an area: each model's day combined over the area's cells, then across the
-- chosen models, as raw_daily.sql does for one cell.
-- The two placeholders are filled by the service from allow-lists only:
--   area_columns: per variable, how a model's values of a day combine over the cells:
--     fsum(<variable>::DOUBLE * weight) / fsum(weight) FILTER (WHERE <variable> IS NOT NULL) (mean,
--     weighted by the cells' weights; compensated sums, so the order rows arrive in does not show),
--     min(<variable>) or max(<variable>), AS <variable>;
--   columns: <agg>(<variable>)::FLOAT AS <variable> across the models, agg in (avg, min, max); as
--     text (the shortest decimal of the float32) when the service writes JSON.
-- $files: VARCHAR[] the cells' Parquet files; $weights: DOUBLE[] (item i is file i's weight);
-- $models: VARCHAR[]; $years: INTEGER[] (sorted). slot as in raw_daily.sql.
WITH weights AS (
  SELECT unnest($files) AS filename, unnest($weights) AS weight
),
per_model AS (
  SELECT model, date, {{area_columns}}
  FROM read_parquet($files, filename = true) JOIN weights USING (filename)
  WHERE date BETWEEN make_date(list_min($years), 1, 1) AND make_date(list_max($years), 12, 31)
    -- $years holds distinct years, so a span without gaps is the BETWEEN alone: DuckDB folds the
    -- test of $years, and the per-row lookup (3/4 of a scan's CPU) runs only for years with gaps.
    AND (len($years) = list_max($years) - list_min($years) + 1 OR list_contains($years, year(date)::INTEGER))
    AND list_contains($models, model)
  GROUP BY model, date
)
SELECT year(date)::INTEGER AS year,
       (dayofyear(date) - 1)::INTEGER AS slot,
       {{columns}}
FROM per_model
GROUP BY ALL
ORDER BY year, slot
