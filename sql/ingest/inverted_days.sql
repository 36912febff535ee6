-- Days where the ingested tasmin is above the ingested tasmax of the same model, cell and date
-- (some CMIP6 models' "negative diurnal range"), per tasmin file and the tasmax file it was compared
-- with. Reported, not dropped: the values are the publisher's. Where two files cover a value, the
-- one staged last counts, as in the partitions (sql/ingest/merge_partition.sql). Needs work.pending.
WITH chosen AS (
  SELECT scenario, cell_id, model, day, variable, arg_max_null(value, source) AS value, max(source) AS source
  FROM work.pending
  WHERE variable IN ('tasmax', 'tasmin')
  GROUP BY ALL
)
SELECT n.model, n.scenario, sn.path AS tasmin_file, sx.path AS tasmax_file,
       count(*)::INTEGER AS cell_days,
       count(DISTINCT n.day)::INTEGER AS dates,
       (DATE '1970-01-01' + min(n.day))::VARCHAR AS first_date,
       max(n.value - x.value)::DOUBLE AS max_excess
FROM chosen n
JOIN chosen x ON x.variable = 'tasmax' AND x.scenario = n.scenario AND x.cell_id = n.cell_id AND x.model = n.model AND x.day = n.day
JOIN source sn ON sn.id = n.source
JOIN source sx ON sx.id = x.source
WHERE n.variable = 'tasmin' AND n.value > x.value
GROUP BY ALL
ORDER BY n.model, n.scenario, tasmin_file
