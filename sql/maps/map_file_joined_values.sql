-- map_file_values.sql for spans that read two files: a warming level's window across the
-- historical file and the scenario's. The reads' pieces of one span are put together before
-- their mean is taken, in the same way. The parameters are map_file_values.sql's.
WITH reads AS (
  SELECT unnest($read_file::VARCHAR[]) AS file, unnest($read_model::VARCHAR[]) AS model, unnest($read_span::INTEGER[]) AS span,
         unnest($read_start::INTEGER[]) AS s, unnest($read_end::INTEGER[]) AS e
),
pieces AS (
  SELECT c.cell_id, r.span,
         CASE WHEN r.e < c.first_year THEN []::DOUBLE[]
              ELSE list_slice(c.vals, greatest(1, r.s - c.first_year + 1), r.e - c.first_year + 1) END AS w
  FROM read_parquet($files::VARCHAR[], filename = true) c
  JOIN reads r ON r.file = c.filename AND r.model = c.model
  WHERE c.cell_id BETWEEN $lo AND $hi AND c.cell_id IN (SELECT unnest(string_split($ids, ','))::INTEGER)
),
windows AS (
  SELECT cell_id, span, flatten(list(w)) AS w FROM pieces GROUP BY cell_id, span
)
SELECT cell_id::INTEGER AS cell_id, span,
       CASE WHEN list_bool_and(list_transform(w, x -> x = round(x) AND abs(x) < 1e12)) THEN list_sum(w) ELSE list_sum(list_sort(w)) END AS total,
       list_count(w)::INTEGER AS n
FROM windows
UNION ALL
SELECT DISTINCT cell_id::INTEGER, (-list_position($files::VARCHAR[], filename))::INTEGER, NULL::DOUBLE, 0
FROM read_parquet($files::VARCHAR[], filename = true)
WHERE cell_id BETWEEN $lo AND $hi AND cell_id IN (SELECT unnest(string_split($ids, ','))::INTEGER)
