SELECT start_year::INTEGER AS start_year, end_year::INTEGER AS end_year, datasets
FROM read_parquet($dir || '/catalog/historic_range.parquet')
ORDER BY start_year
