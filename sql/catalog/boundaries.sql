-- Which cities have a boundary, and what kind: the geometries (11 MB of GeoJSON for the Census
-- places) are read one city at a time when an area asks for one (boundary_geometry.sql).
SELECT city_id::BIGINT AS city_id, boundary_type, source
FROM read_parquet($dir || '/catalog/city_boundary.parquet')
