-- One partition's rows of a temporary table that a build statement filled for several partitions
-- at once (src/ingest/summaries.ts: monthly_parts, ensemble_parts, ensemble_json_parts), in the
-- order its file keeps them. The table and the order come from that code; $part: the partition's
-- position in the statement's $files.
SELECT * EXCLUDE (part) FROM {{table}} WHERE part = $part ORDER BY {{order}}
