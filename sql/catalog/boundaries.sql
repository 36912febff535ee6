SELECT city_id::BIGINT AS city_id, geometry, boundary_type, source
FROM read_parquet($dir || '/catalog/city_boundary.parquet')
