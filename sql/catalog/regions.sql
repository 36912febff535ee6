SELECT id::INTEGER AS id, level1::INTEGER AS level1, level1_description, level2::INTEGER AS level2,
       level2_description, geometry, min_lon, min_lat, max_lon, max_lat
FROM read_parquet($dir || '/catalog/region.parquet')
ORDER BY id
