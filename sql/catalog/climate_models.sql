SELECT name, label, datasets, calendar, runs
FROM read_parquet($dir || '/catalog/climate_model.parquet')
ORDER BY name COLLATE C
