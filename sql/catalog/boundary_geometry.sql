-- One city's boundary as GeoJSON, read once per build and city (src/reference/boundaryGeometry.ts).
SELECT geometry
FROM read_parquet($dir || '/catalog/city_boundary.parquet')
WHERE city_id = $city::BIGINT
