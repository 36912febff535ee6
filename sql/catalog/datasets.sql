SELECT name, label, description, url, cell_size, models
FROM read_parquet($dir || '/catalog/dataset.parquet')
