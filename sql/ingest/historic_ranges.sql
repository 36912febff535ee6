-- The historic ranges that apply to $dataset (those whose years its historical run holds: 1981-2010
-- only for the CMIP6 datasets), for the heat-wave series of the summaries the ingest writes.
SELECT start_year::INTEGER AS start_year, end_year::INTEGER AS end_year
FROM read_parquet($dir || '/catalog/historic_range.parquet')
WHERE list_contains(datasets, $dataset)
ORDER BY start_year
