-- Means of map files' yearly values (src/maps/mapFiles.ts: a row per cell and model, its values of
-- consecutive years from first_year) over spans of years, per cell and span: span k
-- ($span_model[k], $span_start[k], $span_end[k], numbered from 0) takes its model's values within
-- its years from each file paired with it ($pair_span, $pair_file). The mean is meanOf's in
-- src/indicators/periodChanges.ts, operation for operation: the non-null values in ascending
-- order added one by one from 0, then divided by their count, so that a map's values are the
-- indicator endpoints' to the bit. Then, as span -1 - f, each cell that file f of $files holds.
-- $lo..$hi, the range of $ids, lets the scan skip the row groups of other cells (the files are
-- sorted by cell).
WITH spans AS (
  SELECT unnest($span_model::VARCHAR[]) AS model, unnest($span_start::INTEGER[]) AS s, unnest($span_end::INTEGER[]) AS e,
         unnest(range(len($span_model::VARCHAR[])))::INTEGER AS span
),
pairs AS (
  SELECT unnest($pair_span::INTEGER[]) AS span, unnest($pair_file::VARCHAR[]) AS file
),
cells AS (
  SELECT cell_id, model, first_year, vals, filename
  FROM read_parquet($files::VARCHAR[], filename = true)
  WHERE cell_id BETWEEN $lo AND $hi AND cell_id IN (SELECT unnest($ids::INTEGER[]))
),
pieces AS (
  -- The span's years of one file (list_slice counts from 1; an end before the first year is none).
  SELECT f.cell_id, sp.span,
         CASE WHEN sp.e < f.first_year THEN []::DOUBLE[]
              ELSE list_filter(list_slice(f.vals, greatest(1, sp.s - f.first_year + 1), sp.e - f.first_year + 1), x -> x IS NOT NULL) END AS w
  FROM cells f
  JOIN pairs p ON p.file = f.filename
  JOIN spans sp ON sp.span = p.span AND sp.model = f.model
),
joined AS (
  SELECT cell_id, span, flatten(list(w)) AS w FROM pieces GROUP BY ALL
)
SELECT cell_id::INTEGER AS cell_id, span, list_reduce(list_sort(w), (a, b) -> a + b, 0.0::DOUBLE) AS total, len(w)::INTEGER AS n
FROM joined
UNION ALL
SELECT DISTINCT cell_id::INTEGER, (-list_position($files::VARCHAR[], filename))::INTEGER, NULL::DOUBLE, 0
FROM cells
