SELECT name, label, description, url, grid, generation, cell_size, models, scenarios
FROM read_parquet($dir || '/catalog/dataset.parquet')
