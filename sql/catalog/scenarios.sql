SELECT name, label, description, alias, start_year::INTEGER AS start_year, end_year::INTEGER AS end_year
FROM read_parquet($dir || '/catalog/scenario.parquet')
ORDER BY name COLLATE C
