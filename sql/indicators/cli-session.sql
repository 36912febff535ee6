-- An analyst's DuckDB CLI session: one indicator for one map cell, with every parameter the
-- templates read. Run it from the repository root with the DuckDB CLI:
--   duckdb -c ".read sql/indicators/cli-session.sql"
-- after setting the values below (the cell id of a city: GET /api/city/<id>/map-cell/, or the file
-- names under data/build/climate/<dataset>/<scenario>/). tests/cli-session.test.ts runs this file
-- with every template.
.read sql/indicators/macros.sql

-- Where and what: the cell's file for a dataset and scenario, the models and the years. Each file
-- variable also takes a list of several cells' files (every file variable in the same cell order):
-- the answer's `cell` column is the position in the lists (0 for one file). The humid-heat
-- indicators (max_wet_bulb_temperature, wet_bulb_temperature_threshold, max_heat_index,
-- heat_index_threshold) need a NEX-GDDP-CMIP6 cell's files, which have tas, hurs and huss:
-- e.g. 'data/build/climate/NEX-GDDP-CMIP6/ssp585/752103.parquet', with that dataset's models.
SET VARIABLE file = 'data/build/climate/NEX-GDDP/RCP85/752103.parquet';
-- Its monthly summaries (yearly, quarterly and monthly periods of some indicators are read from them).
SET VARIABLE monthly_file = 'data/build/monthly/NEX-GDDP/RCP85/752103.parquet';
SET VARIABLE models = ['ACCESS1-0', 'CCSM4', 'MIROC5'];  -- or NULL::VARCHAR[] for every model in the file
SET VARIABLE years = range(2050, 2053)::INTEGER[];
-- yearly | quarterly | monthly | offset_yearly | custom (then spans, MMDD pairs: 3-1:5-31 is {s: 301, e: 531})
SET VARIABLE time_aggregation = 'yearly';
SET VARIABLE spans = []::STRUCT(s INTEGER, e INTEGER)[];
-- The API's decadal and window: time_aggregation 'yearly' and the year spans, each model's yearly
-- values averaged over each span (decadal: [{s: 2050, e: 2059}, ...]); NULL for none.
SET VARIABLE windows = NULL::STRUCT(s INTEGER, e INTEGER)[];
-- relative_to: the change of each model's values against its mean over the baseline years of the
-- cell's historical files; change 'absolute' or 'percent'. baseline_years NULL: no baseline.
SET VARIABLE baseline_file = 'data/build/climate/NEX-GDDP/historical/752103.parquet';
SET VARIABLE baseline_monthly_file = 'data/build/monthly/NEX-GDDP/historical/752103.parquet';
SET VARIABLE baseline_years = NULL::INTEGER[];  -- e.g. range(1971, 2001)::INTEGER[]
SET VARIABLE change = 'absolute';
-- Statistics across models, and the output units (one of the indicator's available_units).
SET VARIABLE aggs = ['min', 'max', 'avg', '95th'];
SET VARIABLE units = 'F';
-- Indicator parameters, in storage units: threshold in K (temperatures) or kg m-2 s-1 (pr),
-- comparator lt | lte | gt | gte, basetemp in K (65 F = 291.4833333333334 K), percentile 1..99,
-- n (max_nday_precipitation: the days of each total, 2..10), and the historic range's years and the
-- cell's historical file for the baselines.
SET VARIABLE threshold = 305.3722222222222;
SET VARIABLE comparator = 'gt';
SET VARIABLE basetemp = 291.4833333333334;
SET VARIABLE percentile = 95;
SET VARIABLE n = 5;
SET VARIABLE historic_file = 'data/build/climate/NEX-GDDP/historical/752103.parquet';
SET VARIABLE historic_start = 1971;
SET VARIABLE historic_end = 2000;
-- Warming levels (the API's warming_level): each model's mean over its own 20-year window at a
-- level, from the catalog's warming-level table (derived from the IPCC AR6 Atlas tables, CC BY-SA
-- 4.0; one row per dataset, model, scenario and level: SELECT * FROM read_parquet(getvariable('warming_table'))).
-- warming_level NULL: periods of years as above. Otherwise set years and baseline_years from the
-- windows (the worked example below), and warming_baseline to relative_to's span or NULL.
SET VARIABLE warming_table = 'data/build/catalog/warming_level.parquet';
SET VARIABLE warming_dataset = 'NEX-GDDP';
SET VARIABLE warming_scenario = 'RCP85';
SET VARIABLE warming_level = NULL::DOUBLE;
SET VARIABLE warming_baseline = NULL::STRUCT(s INTEGER, e INTEGER);
-- Worked example: frost days at 2 °C of global warming under RCP8.5, each model's change against
-- its own 1971-2000, the API's
--   /api/climate-data/<city of cell 752103>/RCP85/indicator/frost_days/?warming_level=2.0&relative_to=1971&agg=min,max,avg,95th
-- (the answer's model_count: how many models reach 2 °C). Uncomment these lines, which replace the
-- settings above and the .read below:
--   SET VARIABLE warming_level = 2.0;
--   SET VARIABLE warming_baseline = {'s': 1971, 'e': 2000};
--   SET VARIABLE change = 'absolute';
--   SET VARIABLE models = NULL::VARCHAR[];
--   SET VARIABLE time_aggregation = 'yearly';
--   SET VARIABLE units = 'days';
--   SET VARIABLE years = (SELECT list(y ORDER BY y) FROM warming_years(getvariable('warming_level')) WHERE y >= 2006);
--   SET VARIABLE baseline_years = (SELECT list(y ORDER BY y) FROM (FROM warming_years(getvariable('warming_level')) UNION SELECT unnest(range(1971, 2001))) WHERE y < 2006);
--   .read sql/indicators/frost_days.sql

.read sql/indicators/average_high_temperature.sql
