SELECT dataset, model, table_model, member, scenario, warming_level, start_year::INTEGER AS start_year, end_year::INTEGER AS end_year,
       reference_start::INTEGER AS reference_start, reference_end::INTEGER AS reference_end
FROM read_parquet($dir || '/catalog/warming_level.parquet')
ORDER BY dataset, scenario, warming_level, model COLLATE C
