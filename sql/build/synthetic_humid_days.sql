-- The synthetic days of one NEX-GDDP-CMIP6 map cell and scenario, with tas (K), hurs (%) and huss
-- (kg kg-1) after tasmax, tasmin and pr: as synthetic_days.sql otherwise. A model its publisher
-- left without hurs or huss has NaN there from the generator, NULL in the file. DuckDB's NaN
-- equals NaN, so nullif finds it.
SELECT model, date, tasmax, tasmin, pr, tas, nullif(hurs, 'NaN'::FLOAT) AS hurs, nullif(huss, 'NaN'::FLOAT) AS huss
FROM row_source($source::INTEGER)
