-- Means of map files' yearly values (src/maps/mapFiles.ts: a row per cell and model, its values by
-- year when they are whole numbers, else in ascending order with their years) over spans of years,
-- per cell and span. Each read k ($read_file[k], $read_model[k], $read_span[k], $read_start[k],
-- $read_end[k]) takes one model's values within its years from one file, for its span. With
-- $joined, a span may have two reads (a warming level's window across the historical file and the
-- scenario's), whose pieces are put together first; without it each span has one, and nothing is
-- grouped (the branch left out costs nothing: the same CPU as a statement without it). The mean is
-- meanOf's in src/indicators/periodChanges.ts, operation for operation: the non-null values in
-- ascending order added one by one from 0 (list_sum adds a list's values in its order, from 0),
-- then divided by their count, so that a map's values are the indicator endpoints' to the bit. A
-- window of the ascending list is already in that order; whole numbers below 1e12 have every
-- partial sum exact in any order, so theirs is a slice of the values by year, unsorted; only
-- pieces put together that are not all whole numbers are sorted here.
-- $lo..$hi, the range of $ids (the ids as comma-separated text), lets the scan skip the row groups
-- of other cells (the files are sorted by cell). Which cells each file holds is read apart, once
-- per file (src/maps/mapFileCells.ts).
WITH reads AS (
  SELECT unnest($read_file::VARCHAR[]) AS file, unnest($read_model::VARCHAR[]) AS model, unnest($read_span::INTEGER[]) AS span,
         unnest($read_start::INTEGER[]) AS s, unnest($read_end::INTEGER[]) AS e
),
pieces AS (
  -- The read's years of one file (list_slice counts from 1; an end before the first year is none).
  SELECT c.cell_id, r.span, c.vals IS NOT NULL AS whole,
         CASE WHEN c.vals IS NULL THEN list_transform(list_filter(c.ascending, x -> x.y BETWEEN r.s AND r.e), x -> x.v)
              WHEN r.e < c.first_year THEN []::DOUBLE[]
              ELSE list_slice(c.vals, greatest(1, r.s - c.first_year + 1), r.e - c.first_year + 1) END AS w
  FROM read_parquet($files::VARCHAR[], filename = true) c
  JOIN reads r ON r.file = c.filename AND r.model = c.model
  WHERE c.cell_id BETWEEN $lo AND $hi AND c.cell_id IN (SELECT unnest(string_split($ids, ','))::INTEGER)
),
windows AS (
  SELECT cell_id, span, w FROM pieces WHERE NOT $joined
  UNION ALL
  SELECT cell_id, span, CASE WHEN bool_and(whole) THEN flatten(list(w)) ELSE list_sort(flatten(list(w))) END AS w
  FROM pieces WHERE $joined GROUP BY cell_id, span
)
SELECT cell_id::INTEGER AS cell_id, span, list_sum(w) AS total, list_count(w)::INTEGER AS n
FROM windows
