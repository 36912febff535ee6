-- Cities with their region and the datasets that have climate data in the city's map cell.
SELECT c.id::BIGINT AS id, c.name, c.admin, c.population::INTEGER AS population,
       c.lon, c.lat, c.region_id::INTEGER AS region_id, c.ocean, c.coastal,
       coalesce(list(cc.dataset ORDER BY cc.dataset DESC) FILTER (WHERE m.has_data), []::VARCHAR[]) AS datasets
FROM read_parquet($dir || '/catalog/city.parquet') c
LEFT JOIN read_parquet($dir || '/catalog/city_cell.parquet') cc ON cc.city_id = c.id
LEFT JOIN read_parquet($dir || '/catalog/map_cell.parquet') m ON m.dataset = cc.dataset AND m.cell_id = cc.cell_id
GROUP BY ALL
ORDER BY 1
