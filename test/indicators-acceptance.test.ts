import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import request from 'supertest';
import { afterAll, beforeAll, describe, expect, it, inject } from 'vitest';
import { createApp } from '../src/app.js';
import { createAuth } from '../src/auth/index.js';
import { hashPassword } from '../src/auth/passwords.js';
import { loadConfig } from '../src/config.js';
import { openDuckDB } from '../src/db/duckdb.js';
import { sqlFile } from '../src/db/sqlFiles.js';
import { QueryPool } from '../src/db/queryPool.js';
import { loadCatalog, type Catalog } from '../src/reference/catalog.js';
import { writeAcceptanceFixture, LA_CITY_ID, NYC_CITY_ID } from './fixtures/acceptance.js';
import { tempAccountsDb, type TestApp } from './helpers.js';

/**
 * The original service's indicator test cases (shared/reference/indicators.md §7.1-§7.34), every
 * row of every table, replayed over HTTP on a data directory that reproduces the original fixture
 * (§7.0; see test/fixtures/acceptance.ts).
 *
 * - `mapcell` is New York City, `mapcell2` (no data) is Los Angeles.
 * - Expected dicts are the verbatim `calculate()` results; Python int keys become JSON strings and
 *   numbers are compared with a relative (or absolute) tolerance of 1e-12 (§5.4).
 * - Our intended differences: none for these cases; an empty expected dict means `data` is `{}`,
 *   and each period holds exactly the requested aggregations (default min, max, avg).
 */

const NYC = NYC_CITY_ID;
const LA = LA_CITY_ID;

/** The catalog's default units for the indicators these cases call without `units` (§3.1). */
const DEFAULT_UNITS: Record<string, string> = {
  accumulated_freezing_degree_days: 'F',
  average_high_temperature: 'F',
  average_low_temperature: 'F',
  cooling_degree_days: 'F',
  diurnal_temperature_range: 'F',
  dry_spells: 'count',
  extreme_cold_events: 'count',
  extreme_heat_events: 'count',
  extreme_precipitation_events: 'count',
  frost_days: 'days',
  heat_wave_duration_index: 'days',
  heat_wave_incidents: 'count',
  heating_degree_days: 'F',
  max_consecutive_dry_days: 'days',
  max_high_temperature: 'F',
  min_low_temperature: 'F',
  percentile_high_temperature: 'F',
  percentile_low_temperature: 'F',
  percentile_precipitation: 'in/day',
  precipitation_threshold: 'days',
  total_precipitation: 'in',
};

/** The 21 NEX-GDDP models: `climate_models` when the request names none. */
const NEX_GDDP_MODELS = [
  'ACCESS1-0', 'BNU-ESM', 'CCSM4', 'CESM1-BGC', 'CNRM-CM5', 'CSIRO-Mk3-6-0', 'CanESM2', 'GFDL-CM3', 'GFDL-ESM2G',
  'GFDL-ESM2M', 'IPSL-CM5A-LR', 'IPSL-CM5A-MR', 'MIROC-ESM-CHEM', 'MIROC-ESM', 'MIROC5', 'MPI-ESM-LR', 'MPI-ESM-MR',
  'MRI-CGCM3', 'NorESM1-M', 'bcc-csm1-1', 'inmcm4',
];

type Stats = Record<string, number>;
type Expected = Record<string, Stats>;

interface AcceptanceCase {
  /** `§7.n test_method`, for the test title. */
  title: string;
  name: string;
  time_aggregation: string;
  /** Undefined: not sent (the indicator's default units). */
  units: string | undefined;
  extra: Record<string, string>;
  scenario: 'RCP45' | 'RCP85';
  city: number;
  /** The test method's additional params (`years`, `models`, or `units` overriding the class's). */
  params: Record<string, string>;
  expected: Expected;
}

interface ClassSpec {
  name: string;
  time_aggregation: string;
  units: string | undefined;
  extra: Record<string, string>;
}
type Row = [method: string, scenario: 'RCP45' | 'RCP85', city: number, params: Record<string, string>, expected: Expected];

let section = 0;
/** One test class: its shared settings and its table of (method, scenario, cell, params, expected). */
function cases(spec: ClassSpec, rows: Row[]): AcceptanceCase[] {
  section++;
  return rows.map(([method, scenario, city, params, expected]) => ({
    title: `§7.${section} ${spec.name} ${spec.time_aggregation} ${method}`,
    ...spec,
    scenario,
    city,
    params,
    expected,
  }));
}

// prettier-ignore
const CASES: AcceptanceCase[] = [

  // §7.1 YearlyAverageHighTemperatureTestCase (TemperatureIndicatorTests)
  ...cases({ name: 'average_high_temperature', time_aggregation: 'yearly', units: 'K', extra: {} }, [
    ['test_indicator_rcp85', 'RCP85', NYC, {}, { '2000': { avg: 35.0, max: 40.0, min: 30.0 } }],
    ['test_indicator_rcp45', 'RCP45', NYC, {}, { '2000': { max: 20.0, avg: 15.0, min: 10.0 }, '2001': { max: 20.0, avg: 15.0, min: 10.0 }, '2002': { avg: 10.0, max: 10.0, min: 10.0 }, '2003': { avg: 10.0, max: 10.0, min: 10.0 } }],
    ['test_indicator_no_data', 'RCP85', LA, {}, {}],
    ['test_years_filter', 'RCP45', NYC, { years: '2001:2002' }, { '2001': { max: 20.0, avg: 15.0, min: 10.0 }, '2002': { avg: 10.0, max: 10.0, min: 10.0 } }],
    ['test_models_filter', 'RCP45', NYC, { models: 'CCSM4' }, { '2000': { avg: 10.0, max: 10.0, min: 10.0 }, '2001': { avg: 10.0, max: 10.0, min: 10.0 }, '2002': { avg: 10.0, max: 10.0, min: 10.0 }, '2003': { avg: 10.0, max: 10.0, min: 10.0 } }],
    ['test_unit_conversion', 'RCP85', NYC, { units: 'F' }, { '2000': { avg: -396.67, max: -387.67, min: -405.67 } }],
  ]),

  // §7.2 CrossYearAverageHighTemperatureTestCase (TemperatureIndicatorTests)
  ...cases({ name: 'average_high_temperature', time_aggregation: 'offset_yearly', units: 'K', extra: {} }, [
    ['test_indicator_rcp85', 'RCP85', NYC, {}, {}],
    ['test_indicator_rcp45', 'RCP45', NYC, {}, { '2000-2001': { max: 20.0, avg: 15.0, min: 10.0 }, '2001-2002': { max: 10.0, avg: 10.0, min: 10.0 }, '2002-2003': { avg: 10.0, max: 10.0, min: 10.0 } }],
    ['test_indicator_no_data', 'RCP85', LA, {}, {}],
    ['test_years_filter', 'RCP45', NYC, { years: '2001:2002' }, { '2001-2002': { max: 10.0, avg: 10.0, min: 10.0 }, '2002-2003': { max: 10.0, avg: 10.0, min: 10.0 } }],
    ['test_models_filter', 'RCP45', NYC, { models: 'CCSM4' }, { '2000-2001': { avg: 10.0, max: 10.0, min: 10.0 }, '2001-2002': { avg: 10.0, max: 10.0, min: 10.0 }, '2002-2003': { avg: 10.0, max: 10.0, min: 10.0 } }],
    ['test_unit_conversion', 'RCP85', NYC, { units: 'F' }, {}],
  ]),

  // §7.3 YearlyAverageLowTemperatureTestCase (TemperatureIndicatorTests)
  ...cases({ name: 'average_low_temperature', time_aggregation: 'yearly', units: 'K', extra: {} }, [
    ['test_indicator_rcp85', 'RCP85', NYC, {}, { '2000': { avg: 35.0, max: 40.0, min: 30.0 } }],
    ['test_indicator_rcp45', 'RCP45', NYC, {}, { '2000': { max: 20.0, avg: 15.0, min: 10.0 }, '2001': { max: 20.0, avg: 15.0, min: 10.0 }, '2002': { avg: 10.0, max: 10.0, min: 10.0 }, '2003': { avg: 10.0, max: 10.0, min: 10.0 } }],
    ['test_indicator_no_data', 'RCP85', LA, {}, {}],
    ['test_years_filter', 'RCP45', NYC, { years: '2001:2002' }, { '2001': { max: 20.0, avg: 15.0, min: 10.0 }, '2002': { avg: 10.0, max: 10.0, min: 10.0 } }],
    ['test_models_filter', 'RCP45', NYC, { models: 'CCSM4' }, { '2000': { avg: 10.0, max: 10.0, min: 10.0 }, '2001': { avg: 10.0, max: 10.0, min: 10.0 }, '2002': { avg: 10.0, max: 10.0, min: 10.0 }, '2003': { avg: 10.0, max: 10.0, min: 10.0 } }],
    ['test_unit_conversion', 'RCP85', NYC, { units: 'F' }, { '2000': { avg: -396.67, max: -387.67, min: -405.67 } }],
  ]),

  // §7.4 YearlyMaxHighTemperatureTestCase (TemperatureIndicatorTests)
  ...cases({ name: 'max_high_temperature', time_aggregation: 'yearly', units: 'K', extra: {} }, [
    ['test_indicator_rcp85', 'RCP85', NYC, {}, { '2000': { avg: 35.0, max: 40.0, min: 30.0 } }],
    ['test_indicator_rcp45', 'RCP45', NYC, {}, { '2000': { max: 20.0, avg: 15.0, min: 10.0 }, '2001': { max: 20.0, avg: 15.0, min: 10.0 }, '2002': { avg: 10.0, max: 10.0, min: 10.0 }, '2003': { avg: 10.0, max: 10.0, min: 10.0 } }],
    ['test_indicator_no_data', 'RCP85', LA, {}, {}],
    ['test_years_filter', 'RCP45', NYC, { years: '2001:2002' }, { '2001': { max: 20.0, avg: 15.0, min: 10.0 }, '2002': { avg: 10.0, max: 10.0, min: 10.0 } }],
    ['test_models_filter', 'RCP45', NYC, { models: 'CCSM4' }, { '2000': { avg: 10.0, max: 10.0, min: 10.0 }, '2001': { avg: 10.0, max: 10.0, min: 10.0 }, '2002': { avg: 10.0, max: 10.0, min: 10.0 }, '2003': { avg: 10.0, max: 10.0, min: 10.0 } }],
    ['test_unit_conversion', 'RCP85', NYC, { units: 'F' }, { '2000': { avg: -396.67, max: -387.67, min: -405.67 } }],
  ]),

  // §7.5 YearlyMinLowTemperatureTestCase (TemperatureIndicatorTests)
  ...cases({ name: 'min_low_temperature', time_aggregation: 'yearly', units: 'K', extra: {} }, [
    ['test_indicator_rcp85', 'RCP85', NYC, {}, { '2000': { avg: 35.0, max: 40.0, min: 30.0 } }],
    ['test_indicator_rcp45', 'RCP45', NYC, {}, { '2000': { max: 20.0, avg: 15.0, min: 10.0 }, '2001': { max: 20.0, avg: 15.0, min: 10.0 }, '2002': { avg: 10.0, max: 10.0, min: 10.0 }, '2003': { avg: 10.0, max: 10.0, min: 10.0 } }],
    ['test_indicator_no_data', 'RCP85', LA, {}, {}],
    ['test_years_filter', 'RCP45', NYC, { years: '2001:2002' }, { '2001': { max: 20.0, avg: 15.0, min: 10.0 }, '2002': { avg: 10.0, max: 10.0, min: 10.0 } }],
    ['test_models_filter', 'RCP45', NYC, { models: 'CCSM4' }, { '2000': { avg: 10.0, max: 10.0, min: 10.0 }, '2001': { avg: 10.0, max: 10.0, min: 10.0 }, '2002': { avg: 10.0, max: 10.0, min: 10.0 }, '2003': { avg: 10.0, max: 10.0, min: 10.0 } }],
    ['test_unit_conversion', 'RCP85', NYC, { units: 'F' }, { '2000': { avg: -396.67, max: -387.67, min: -405.67 } }],
  ]),

  // §7.6 YearlyPercentileLowTemperatureTestCase (TemperatureIndicatorTests)
  ...cases({ name: 'percentile_low_temperature', time_aggregation: 'yearly', units: 'K', extra: {} }, [
    ['test_indicator_rcp85', 'RCP85', NYC, {}, { '2000': { avg: 35.0, max: 40.0, min: 30.0 } }],
    ['test_indicator_rcp45', 'RCP45', NYC, {}, { '2000': { max: 20.0, avg: 15.0, min: 10.0 }, '2001': { max: 20.0, avg: 15.0, min: 10.0 }, '2002': { avg: 10.0, max: 10.0, min: 10.0 }, '2003': { avg: 10.0, max: 10.0, min: 10.0 } }],
    ['test_indicator_no_data', 'RCP85', LA, {}, {}],
    ['test_years_filter', 'RCP45', NYC, { years: '2001:2002' }, { '2001': { max: 20.0, avg: 15.0, min: 10.0 }, '2002': { avg: 10.0, max: 10.0, min: 10.0 } }],
    ['test_models_filter', 'RCP45', NYC, { models: 'CCSM4' }, { '2000': { avg: 10.0, max: 10.0, min: 10.0 }, '2001': { avg: 10.0, max: 10.0, min: 10.0 }, '2002': { avg: 10.0, max: 10.0, min: 10.0 }, '2003': { avg: 10.0, max: 10.0, min: 10.0 } }],
    ['test_unit_conversion', 'RCP85', NYC, { units: 'F' }, { '2000': { avg: -396.67, max: -387.67, min: -405.67 } }],
  ]),

  // §7.7 YearlyPercentileHighTemperatureTestCase (TemperatureIndicatorTests)
  ...cases({ name: 'percentile_high_temperature', time_aggregation: 'yearly', units: 'K', extra: {} }, [
    ['test_indicator_rcp85', 'RCP85', NYC, {}, { '2000': { avg: 35.0, max: 40.0, min: 30.0 } }],
    ['test_indicator_rcp45', 'RCP45', NYC, {}, { '2000': { max: 20.0, avg: 15.0, min: 10.0 }, '2001': { max: 20.0, avg: 15.0, min: 10.0 }, '2002': { avg: 10.0, max: 10.0, min: 10.0 }, '2003': { avg: 10.0, max: 10.0, min: 10.0 } }],
    ['test_indicator_no_data', 'RCP85', LA, {}, {}],
    ['test_years_filter', 'RCP45', NYC, { years: '2001:2002' }, { '2001': { max: 20.0, avg: 15.0, min: 10.0 }, '2002': { avg: 10.0, max: 10.0, min: 10.0 } }],
    ['test_models_filter', 'RCP45', NYC, { models: 'CCSM4' }, { '2000': { avg: 10.0, max: 10.0, min: 10.0 }, '2001': { avg: 10.0, max: 10.0, min: 10.0 }, '2002': { avg: 10.0, max: 10.0, min: 10.0 }, '2003': { avg: 10.0, max: 10.0, min: 10.0 } }],
    ['test_unit_conversion', 'RCP85', NYC, { units: 'F' }, { '2000': { avg: -396.67, max: -387.67, min: -405.67 } }],
  ]),

  // §7.8 YearlyTotalPrecipitationTestCase (IndicatorTests)
  ...cases({ name: 'total_precipitation', time_aggregation: 'yearly', units: 'kg/m^2', extra: {} }, [
    ['test_indicator_rcp85', 'RCP85', NYC, {}, { '2000': { avg: 3024000.0, min: 2592000, max: 3456000 } }],
    ['test_indicator_rcp45', 'RCP45', NYC, {}, { '2000': { max: 1728000, avg: 1296000, min: 864000 }, '2001': { max: 1728000, avg: 1296000, min: 864000 }, '2002': { avg: 864000, max: 864000, min: 864000 }, '2003': { avg: 0.0, max: 0.0, min: 0.0 } }],
    ['test_indicator_no_data', 'RCP85', LA, {}, {}],
    ['test_years_filter', 'RCP45', NYC, { years: '2001:2002' }, { '2001': { max: 1728000, avg: 1296000, min: 864000 }, '2002': { avg: 864000, max: 864000, min: 864000 } }],
    ['test_models_filter', 'RCP45', NYC, { models: 'CCSM4' }, { '2000': { avg: 864000, max: 864000, min: 864000 }, '2001': { avg: 864000, max: 864000, min: 864000 }, '2002': { avg: 864000, max: 864000, min: 864000 }, '2003': { avg: 0.0, max: 0.0, min: 0.0 } }],
  ]),

  // §7.9 YearlyPercentilePrecipitationTestCase (IndicatorTests)
  ...cases({ name: 'percentile_precipitation', time_aggregation: 'yearly', units: 'kg/m^2/s', extra: {} }, [
    ['test_indicator_rcp85', 'RCP85', NYC, {}, { '2000': { avg: 35, min: 30, max: 40 } }],
    ['test_indicator_rcp45', 'RCP45', NYC, {}, { '2000': { max: 20, avg: 15, min: 10 }, '2001': { max: 20, avg: 15, min: 10 }, '2002': { avg: 10, max: 10, min: 10 }, '2003': { avg: 0.0, max: 0.0, min: 0.0 } }],
    ['test_indicator_no_data', 'RCP85', LA, {}, {}],
    ['test_years_filter', 'RCP45', NYC, { years: '2001:2002' }, { '2001': { max: 20, avg: 15, min: 10 }, '2002': { avg: 10, max: 10, min: 10 } }],
    ['test_models_filter', 'RCP45', NYC, { models: 'CCSM4' }, { '2000': { avg: 10, max: 10, min: 10 }, '2001': { avg: 10, max: 10, min: 10 }, '2002': { avg: 10, max: 10, min: 10 }, '2003': { avg: 0.0, max: 0.0, min: 0.0 } }],
  ]),

  // §7.10 YearlyFrostDaysTestCase (IndicatorTests)
  ...cases({ name: 'frost_days', time_aggregation: 'yearly', units: undefined, extra: {} }, [
    ['test_indicator_rcp85', 'RCP85', NYC, {}, { '2000': { avg: 1, min: 1, max: 1 } }],
    ['test_indicator_rcp45', 'RCP45', NYC, {}, { '2000': { avg: 1, min: 1, max: 1 }, '2001': { avg: 1, min: 1, max: 1 }, '2002': { avg: 1, min: 1, max: 1 }, '2003': { avg: 1, min: 1, max: 1 } }],
    ['test_indicator_no_data', 'RCP85', LA, {}, {}],
    ['test_years_filter', 'RCP45', NYC, { years: '2001:2002' }, { '2001': { avg: 1, min: 1, max: 1 }, '2002': { avg: 1, min: 1, max: 1 } }],
    ['test_models_filter', 'RCP45', NYC, { models: 'CCSM4' }, { '2000': { avg: 1, min: 1, max: 1 }, '2001': { avg: 1, min: 1, max: 1 }, '2002': { avg: 1, min: 1, max: 1 }, '2003': { avg: 1, min: 1, max: 1 } }],
  ]),

  // §7.11 YearlyMaxConsecutiveDryDaysTestCase (IndicatorTests)
  ...cases({ name: 'max_consecutive_dry_days', time_aggregation: 'yearly', units: undefined, extra: {} }, [
    ['test_indicator_rcp85', 'RCP85', NYC, {}, { '2000': { avg: 0, min: 0, max: 0 } }],
    ['test_indicator_rcp45', 'RCP45', NYC, {}, { '2000': { avg: 0, min: 0, max: 0 }, '2001': { avg: 0, min: 0, max: 0 }, '2002': { avg: 0, min: 0, max: 0 }, '2003': { avg: 1, min: 1, max: 1 } }],
    ['test_indicator_no_data', 'RCP85', LA, {}, {}],
    ['test_years_filter', 'RCP45', NYC, { years: '2001:2002' }, { '2001': { avg: 0, min: 0, max: 0 }, '2002': { avg: 0, min: 0, max: 0 } }],
    ['test_models_filter', 'RCP45', NYC, { models: 'CCSM4' }, { '2000': { avg: 0, min: 0, max: 0 }, '2001': { avg: 0, min: 0, max: 0 }, '2002': { avg: 0, min: 0, max: 0 }, '2003': { avg: 1, min: 1, max: 1 } }],
  ]),

  // §7.12 YearlyDrySpellsTestCase (IndicatorTests)
  ...cases({ name: 'dry_spells', time_aggregation: 'yearly', units: undefined, extra: {} }, [
    ['test_indicator_rcp85', 'RCP85', NYC, {}, { '2000': { avg: 0, min: 0, max: 0 } }],
    ['test_indicator_rcp45', 'RCP45', NYC, {}, { '2000': { avg: 0, min: 0, max: 0 }, '2001': { avg: 0, min: 0, max: 0 }, '2002': { avg: 0, min: 0, max: 0 }, '2003': { avg: 0, min: 0, max: 0 } }],
    ['test_indicator_no_data', 'RCP85', LA, {}, {}],
    ['test_years_filter', 'RCP45', NYC, { years: '2001:2002' }, { '2001': { avg: 0, min: 0, max: 0 }, '2002': { avg: 0, min: 0, max: 0 } }],
    ['test_models_filter', 'RCP45', NYC, { models: 'CCSM4' }, { '2000': { avg: 0, min: 0, max: 0 }, '2001': { avg: 0, min: 0, max: 0 }, '2002': { avg: 0, min: 0, max: 0 }, '2003': { avg: 0, min: 0, max: 0 } }],
  ]),

  // §7.13 YearlyHeatWaveDurationIndexTestCase (IndicatorTests)
  ...cases({ name: 'heat_wave_duration_index', time_aggregation: 'yearly', units: undefined, extra: { historic_range: '1961' } }, [
    ['test_indicator_rcp85', 'RCP85', NYC, {}, { '2000': { avg: 1, min: 1, max: 1 } }],
    ['test_indicator_rcp45', 'RCP45', NYC, {}, { '2000': { avg: 1, min: 1, max: 1 }, '2001': { avg: 1, min: 1, max: 1 }, '2002': { avg: 1, min: 1, max: 1 }, '2003': { avg: 1, min: 1, max: 1 } }],
    ['test_indicator_no_data', 'RCP85', LA, {}, {}],
    ['test_years_filter', 'RCP45', NYC, { years: '2001:2002' }, { '2001': { avg: 1, min: 1, max: 1 }, '2002': { avg: 1, min: 1, max: 1 } }],
    ['test_models_filter', 'RCP45', NYC, { models: 'CCSM4' }, { '2000': { avg: 1, min: 1, max: 1 }, '2001': { avg: 1, min: 1, max: 1 }, '2002': { avg: 1, min: 1, max: 1 }, '2003': { avg: 1, min: 1, max: 1 } }],
  ]),

  // §7.14 YearlyHeatWaveIncidentsTestCase (IndicatorTests)
  ...cases({ name: 'heat_wave_incidents', time_aggregation: 'yearly', units: undefined, extra: { historic_range: '1961' } }, [
    ['test_indicator_rcp85', 'RCP85', NYC, {}, { '2000': { avg: 0, min: 0, max: 0 } }],
    ['test_indicator_rcp45', 'RCP45', NYC, {}, { '2000': { avg: 0, min: 0, max: 0 }, '2001': { avg: 0, min: 0, max: 0 }, '2002': { avg: 0, min: 0, max: 0 }, '2003': { avg: 0, min: 0, max: 0 } }],
    ['test_indicator_no_data', 'RCP85', LA, {}, {}],
    ['test_years_filter', 'RCP45', NYC, { years: '2001:2002' }, { '2001': { avg: 0, min: 0, max: 0 }, '2002': { avg: 0, min: 0, max: 0 } }],
    ['test_models_filter', 'RCP45', NYC, { models: 'CCSM4' }, { '2000': { avg: 0, min: 0, max: 0 }, '2001': { avg: 0, min: 0, max: 0 }, '2002': { avg: 0, min: 0, max: 0 }, '2003': { avg: 0, min: 0, max: 0 } }],
  ]),

  // §7.15 YearlyExtremePrecipitationEventsTestCase (IndicatorTests)
  ...cases({ name: 'extreme_precipitation_events', time_aggregation: 'yearly', units: undefined, extra: { percentile: '99', historic_range: '1961' } }, [
    ['test_indicator_rcp85', 'RCP85', NYC, {}, { '2000': { avg: 1, min: 1, max: 1 } }],
    ['test_indicator_rcp45', 'RCP45', NYC, {}, { '2000': { avg: 0, min: 0, max: 0 }, '2001': { avg: 0, min: 0, max: 0 }, '2002': { avg: 0, min: 0, max: 0 }, '2003': { avg: 0, min: 0, max: 0 } }],
    ['test_indicator_no_data', 'RCP85', LA, {}, {}],
    ['test_years_filter', 'RCP45', NYC, { years: '2001:2002' }, { '2001': { avg: 0, min: 0, max: 0 }, '2002': { avg: 0, min: 0, max: 0 } }],
    ['test_models_filter', 'RCP45', NYC, { models: 'CCSM4' }, { '2000': { avg: 0, min: 0, max: 0 }, '2001': { avg: 0, min: 0, max: 0 }, '2002': { avg: 0, min: 0, max: 0 }, '2003': { avg: 0, min: 0, max: 0 } }],
  ]),

  // §7.16 YearlyExtremeHeatEventsTestCase (IndicatorTests)
  ...cases({ name: 'extreme_heat_events', time_aggregation: 'yearly', units: undefined, extra: { percentile: '99', historic_range: '1961' } }, [
    ['test_indicator_rcp85', 'RCP85', NYC, {}, { '2000': { avg: 1, min: 1, max: 1 } }],
    ['test_indicator_rcp45', 'RCP45', NYC, {}, { '2000': { avg: 0, min: 0, max: 0 }, '2001': { avg: 0, min: 0, max: 0 }, '2002': { avg: 0, min: 0, max: 0 }, '2003': { avg: 0, min: 0, max: 0 } }],
    ['test_indicator_no_data', 'RCP85', LA, {}, {}],
    ['test_years_filter', 'RCP45', NYC, { years: '2001:2002' }, { '2001': { avg: 0, min: 0, max: 0 }, '2002': { avg: 0, min: 0, max: 0 } }],
    ['test_models_filter', 'RCP45', NYC, { models: 'CCSM4' }, { '2000': { avg: 0, min: 0, max: 0 }, '2001': { avg: 0, min: 0, max: 0 }, '2002': { avg: 0, min: 0, max: 0 }, '2003': { avg: 0, min: 0, max: 0 } }],
  ]),

  // §7.17 YearlyExtremeColdEventsTestCase (IndicatorTests)
  ...cases({ name: 'extreme_cold_events', time_aggregation: 'yearly', units: undefined, extra: { percentile: '1', historic_range: '1961' } }, [
    ['test_indicator_rcp85', 'RCP85', NYC, {}, { '2000': { avg: 0, min: 0, max: 0 } }],
    ['test_indicator_rcp45', 'RCP45', NYC, {}, { '2000': { avg: 0.5, min: 0, max: 1 }, '2001': { avg: 0.5, min: 0, max: 1 }, '2002': { avg: 1, min: 1, max: 1 }, '2003': { avg: 1, min: 1, max: 1 } }],
    ['test_indicator_no_data', 'RCP85', LA, {}, {}],
    ['test_years_filter', 'RCP45', NYC, { years: '2001:2002' }, { '2001': { avg: 0.5, min: 0, max: 1 }, '2002': { avg: 1.0, min: 1, max: 1 } }],
    ['test_models_filter', 'RCP45', NYC, { models: 'CCSM4' }, { '2000': { avg: 1.0, min: 1, max: 1 }, '2001': { avg: 1.0, min: 1, max: 1 }, '2002': { avg: 1.0, min: 1, max: 1 }, '2003': { avg: 1.0, min: 1, max: 1 } }],
  ]),

  // §7.18 YearlyHeatingDegreeDaysTestCase (IndicatorTests)
  ...cases({ name: 'heating_degree_days', time_aggregation: 'yearly', units: undefined, extra: { basetemp: '42.5', basetemp_units: 'K' } }, [
    ['test_indicator_rcp85', 'RCP85', NYC, {}, { '2000': { avg: 13.5, min: 4.5, max: 22.5 } }],
    ['test_indicator_rcp45', 'RCP45', NYC, {}, { '2000': { avg: 49.5, min: 40.5, max: 58.5 }, '2001': { avg: 49.5, min: 40.5, max: 58.5 }, '2002': { avg: 58.5, min: 58.5, max: 58.5 }, '2003': { avg: 58.5, min: 58.5, max: 58.5 } }],
    ['test_indicator_no_data', 'RCP85', LA, {}, {}],
    ['test_years_filter', 'RCP45', NYC, { years: '2001:2002' }, { '2001': { avg: 49.5, min: 40.5, max: 58.5 }, '2002': { avg: 58.5, min: 58.5, max: 58.5 } }],
    ['test_models_filter', 'RCP45', NYC, { models: 'CCSM4' }, { '2000': { avg: 58.5, min: 58.5, max: 58.5 }, '2001': { avg: 58.5, min: 58.5, max: 58.5 }, '2002': { avg: 58.5, min: 58.5, max: 58.5 }, '2003': { avg: 58.5, min: 58.5, max: 58.5 } }],
  ]),

  // §7.19 YearlyDiurnalTemperatureRangeTestCase (IndicatorTests)
  ...cases({ name: 'diurnal_temperature_range', time_aggregation: 'yearly', units: 'K', extra: {} }, [
    ['test_indicator_rcp85', 'RCP85', NYC, {}, { '2000': { avg: 0.0, max: 0.0, min: 0.0 } }],
    ['test_indicator_rcp45', 'RCP45', NYC, {}, { '2000': { max: 0.0, avg: 0.0, min: 0.0 }, '2001': { max: 0.0, avg: 0.0, min: 0.0 }, '2002': { avg: 0.0, max: 0.0, min: 0.0 }, '2003': { avg: 0.0, max: 0.0, min: 0.0 } }],
    ['test_indicator_no_data', 'RCP85', LA, {}, {}],
    ['test_years_filter', 'RCP45', NYC, { years: '2001:2002' }, { '2001': { max: 0.0, avg: 0.0, min: 0.0 }, '2002': { avg: 0.0, max: 0.0, min: 0.0 } }],
    ['test_models_filter', 'RCP45', NYC, { models: 'CCSM4' }, { '2000': { avg: 0.0, max: 0.0, min: 0.0 }, '2001': { avg: 0.0, max: 0.0, min: 0.0 }, '2002': { avg: 0.0, max: 0.0, min: 0.0 }, '2003': { avg: 0.0, max: 0.0, min: 0.0 } }],
  ]),

  // §7.20 CrossYearlyHeatingDegreeDaysTestCase (IndicatorTests)
  ...cases({ name: 'heating_degree_days', time_aggregation: 'offset_yearly', units: undefined, extra: { basetemp: '42.5', basetemp_units: 'K' } }, [
    ['test_indicator_rcp85', 'RCP85', NYC, {}, {}],
    ['test_indicator_rcp45', 'RCP45', NYC, {}, { '2000-2001': { avg: 49.5, min: 40.5, max: 58.5 }, '2001-2002': { avg: 58.5, min: 58.5, max: 58.5 }, '2002-2003': { avg: 58.5, min: 58.5, max: 58.5 } }],
    ['test_indicator_no_data', 'RCP85', LA, {}, {}],
    ['test_years_filter', 'RCP45', NYC, { years: '2001:2002' }, { '2001-2002': { avg: 58.5, min: 58.5, max: 58.5 }, '2002-2003': { avg: 58.5, min: 58.5, max: 58.5 } }],
    ['test_models_filter', 'RCP45', NYC, { models: 'CCSM4' }, { '2000-2001': { avg: 58.5, min: 58.5, max: 58.5 }, '2001-2002': { avg: 58.5, min: 58.5, max: 58.5 }, '2002-2003': { avg: 58.5, min: 58.5, max: 58.5 } }],
  ]),

  // §7.21 YearlyCoolingDegreeDaysTestCase (IndicatorTests) — (source comment: `# 7.3K`)
  ...cases({ name: 'cooling_degree_days', time_aggregation: 'yearly', units: undefined, extra: { basetemp: '-265.85', basetemp_units: 'C' } }, [
    ['test_indicator_rcp85', 'RCP85', NYC, {}, { '2000': { avg: 49.860000000000085, max: 58.860000000000085, min: 40.860000000000085 } }],
    ['test_indicator_rcp45', 'RCP45', NYC, {}, { '2000': { avg: 13.860000000000081, max: 22.86000000000008, min: 4.860000000000082 }, '2001': { avg: 13.860000000000081, max: 22.86000000000008, min: 4.860000000000082 }, '2002': { avg: 4.860000000000082, max: 4.860000000000082, min: 4.860000000000082 }, '2003': { avg: 4.860000000000082, max: 4.860000000000082, min: 4.860000000000082 } }],
    ['test_indicator_no_data', 'RCP85', LA, {}, {}],
    ['test_years_filter', 'RCP45', NYC, { years: '2001:2002' }, { '2001': { min: 4.860000000000082, avg: 13.860000000000081, max: 22.86000000000008 }, '2002': { min: 4.860000000000082, avg: 4.860000000000082, max: 4.860000000000082 } }],
    ['test_models_filter', 'RCP45', NYC, { models: 'CCSM4' }, { '2000': { avg: 4.860000000000082, max: 4.860000000000082, min: 4.860000000000082 }, '2001': { avg: 4.860000000000082, max: 4.860000000000082, min: 4.860000000000082 }, '2002': { avg: 4.860000000000082, max: 4.860000000000082, min: 4.860000000000082 }, '2003': { avg: 4.860000000000082, max: 4.860000000000082, min: 4.860000000000082 } }],
  ]),

  // §7.22 CrossYearlyAccumulatedFreezingDegreeDaysTestCase (IndicatorTests)
  ...cases({ name: 'accumulated_freezing_degree_days', time_aggregation: 'offset_yearly', units: undefined, extra: {} }, [
    ['test_indicator_rcp85', 'RCP85', NYC, {}, {}],
    ['test_indicator_rcp45', 'RCP45', NYC, {}, { '2000-2001': { avg: 464.66999999999996, min: 455.66999999999996, max: 473.66999999999996 }, '2001-2002': { avg: 473.66999999999996, max: 473.66999999999996, min: 473.66999999999996 }, '2002-2003': { avg: 473.66999999999996, max: 473.66999999999996, min: 473.66999999999996 } }],
    ['test_indicator_no_data', 'RCP85', LA, {}, {}],
    ['test_years_filter', 'RCP45', NYC, { years: '2001:2002' }, { '2001-2002': { avg: 473.66999999999996, max: 473.66999999999996, min: 473.66999999999996 }, '2002-2003': { avg: 473.66999999999996, max: 473.66999999999996, min: 473.66999999999996 } }],
    ['test_models_filter', 'RCP45', NYC, { models: 'CCSM4' }, { '2000-2001': { avg: 473.66999999999996, max: 473.66999999999996, min: 473.66999999999996 }, '2001-2002': { avg: 473.66999999999996, max: 473.66999999999996, min: 473.66999999999996 }, '2002-2003': { avg: 473.66999999999996, max: 473.66999999999996, min: 473.66999999999996 } }],
  ]),

  // §7.23 MonthlyAverageHighTemperatureTestCase (TemperatureIndicatorTests)
  ...cases({ name: 'average_high_temperature', time_aggregation: 'monthly', units: 'K', extra: {} }, [
    ['test_indicator_rcp85', 'RCP85', NYC, {}, { '2000-01': { avg: 35.0, max: 40.0, min: 30.0 } }],
    ['test_indicator_rcp45', 'RCP45', NYC, {}, { '2000-01': { max: 20.0, avg: 15.0, min: 10.0 }, '2001-01': { max: 20.0, avg: 15.0, min: 10.0 }, '2002-01': { avg: 10.0, max: 10.0, min: 10.0 }, '2003-01': { avg: 10.0, max: 10.0, min: 10.0 } }],
    ['test_indicator_no_data', 'RCP85', LA, {}, {}],
    ['test_years_filter', 'RCP45', NYC, { years: '2001:2002' }, { '2001-01': { max: 20.0, avg: 15.0, min: 10.0 }, '2002-01': { avg: 10.0, max: 10.0, min: 10.0 } }],
    ['test_models_filter', 'RCP45', NYC, { models: 'CCSM4' }, { '2000-01': { avg: 10.0, max: 10.0, min: 10.0 }, '2001-01': { avg: 10.0, max: 10.0, min: 10.0 }, '2002-01': { avg: 10.0, max: 10.0, min: 10.0 }, '2003-01': { avg: 10.0, max: 10.0, min: 10.0 } }],
    ['test_unit_conversion', 'RCP85', NYC, { units: 'F' }, { '2000-01': { avg: -396.67, max: -387.67, min: -405.67 } }],
  ]),

  // §7.24 MonthlyAverageLowTemperatureTestCase (TemperatureIndicatorTests)
  ...cases({ name: 'average_low_temperature', time_aggregation: 'monthly', units: 'K', extra: {} }, [
    ['test_indicator_rcp85', 'RCP85', NYC, {}, { '2000-01': { avg: 35.0, max: 40.0, min: 30.0 } }],
    ['test_indicator_rcp45', 'RCP45', NYC, {}, { '2000-01': { max: 20.0, avg: 15.0, min: 10.0 }, '2001-01': { max: 20.0, avg: 15.0, min: 10.0 }, '2002-01': { avg: 10.0, max: 10.0, min: 10.0 }, '2003-01': { avg: 10.0, max: 10.0, min: 10.0 } }],
    ['test_indicator_no_data', 'RCP85', LA, {}, {}],
    ['test_years_filter', 'RCP45', NYC, { years: '2001:2002' }, { '2001-01': { max: 20.0, avg: 15.0, min: 10.0 }, '2002-01': { avg: 10.0, max: 10.0, min: 10.0 } }],
    ['test_models_filter', 'RCP45', NYC, { models: 'CCSM4' }, { '2000-01': { avg: 10.0, max: 10.0, min: 10.0 }, '2001-01': { avg: 10.0, max: 10.0, min: 10.0 }, '2002-01': { avg: 10.0, max: 10.0, min: 10.0 }, '2003-01': { avg: 10.0, max: 10.0, min: 10.0 } }],
    ['test_unit_conversion', 'RCP85', NYC, { units: 'F' }, { '2000-01': { avg: -396.67, max: -387.67, min: -405.67 } }],
  ]),

  // §7.25 MonthlyMaxHighTemperatureTestCase (TemperatureIndicatorTests)
  ...cases({ name: 'max_high_temperature', time_aggregation: 'monthly', units: 'K', extra: {} }, [
    ['test_indicator_rcp85', 'RCP85', NYC, {}, { '2000-01': { avg: 35.0, max: 40.0, min: 30.0 } }],
    ['test_indicator_rcp45', 'RCP45', NYC, {}, { '2000-01': { max: 20.0, avg: 15.0, min: 10.0 }, '2001-01': { max: 20.0, avg: 15.0, min: 10.0 }, '2002-01': { avg: 10.0, max: 10.0, min: 10.0 }, '2003-01': { avg: 10.0, max: 10.0, min: 10.0 } }],
    ['test_indicator_no_data', 'RCP85', LA, {}, {}],
    ['test_years_filter', 'RCP45', NYC, { years: '2001:2002' }, { '2001-01': { max: 20.0, avg: 15.0, min: 10.0 }, '2002-01': { avg: 10.0, max: 10.0, min: 10.0 } }],
    ['test_models_filter', 'RCP45', NYC, { models: 'CCSM4' }, { '2000-01': { avg: 10.0, max: 10.0, min: 10.0 }, '2001-01': { avg: 10.0, max: 10.0, min: 10.0 }, '2002-01': { avg: 10.0, max: 10.0, min: 10.0 }, '2003-01': { avg: 10.0, max: 10.0, min: 10.0 } }],
    ['test_unit_conversion', 'RCP85', NYC, { units: 'F' }, { '2000-01': { avg: -396.67, max: -387.67, min: -405.67 } }],
  ]),

  // §7.26 MonthlyMinLowTemperatureTestCase (TemperatureIndicatorTests)
  ...cases({ name: 'min_low_temperature', time_aggregation: 'monthly', units: 'K', extra: {} }, [
    ['test_indicator_rcp85', 'RCP85', NYC, {}, { '2000-01': { avg: 35.0, max: 40.0, min: 30.0 } }],
    ['test_indicator_rcp45', 'RCP45', NYC, {}, { '2000-01': { max: 20.0, avg: 15.0, min: 10.0 }, '2001-01': { max: 20.0, avg: 15.0, min: 10.0 }, '2002-01': { avg: 10.0, max: 10.0, min: 10.0 }, '2003-01': { avg: 10.0, max: 10.0, min: 10.0 } }],
    ['test_indicator_no_data', 'RCP85', LA, {}, {}],
    ['test_years_filter', 'RCP45', NYC, { years: '2001:2002' }, { '2001-01': { max: 20.0, avg: 15.0, min: 10.0 }, '2002-01': { avg: 10.0, max: 10.0, min: 10.0 } }],
    ['test_models_filter', 'RCP45', NYC, { models: 'CCSM4' }, { '2000-01': { avg: 10.0, max: 10.0, min: 10.0 }, '2001-01': { avg: 10.0, max: 10.0, min: 10.0 }, '2002-01': { avg: 10.0, max: 10.0, min: 10.0 }, '2003-01': { avg: 10.0, max: 10.0, min: 10.0 } }],
    ['test_unit_conversion', 'RCP85', NYC, { units: 'F' }, { '2000-01': { avg: -396.67, max: -387.67, min: -405.67 } }],
  ]),

  // §7.27 MonthlyTotalPrecipitationTestCase (IndicatorTests)
  ...cases({ name: 'total_precipitation', time_aggregation: 'monthly', units: 'kg/m^2', extra: {} }, [
    ['test_indicator_rcp85', 'RCP85', NYC, {}, { '2000-01': { avg: 3024000, min: 2592000, max: 3456000 } }],
    ['test_indicator_rcp45', 'RCP45', NYC, {}, { '2000-01': { max: 1728000, avg: 1296000.0, min: 864000 }, '2001-01': { max: 1728000, avg: 1296000.0, min: 864000 }, '2002-01': { avg: 864000, max: 864000, min: 864000 }, '2003-01': { avg: 0.0, max: 0.0, min: 0.0 } }],
    ['test_indicator_no_data', 'RCP85', LA, {}, {}],
    ['test_years_filter', 'RCP45', NYC, { years: '2001:2002' }, { '2001-01': { max: 1728000, avg: 1296000.0, min: 864000 }, '2002-01': { avg: 864000, max: 864000, min: 864000 } }],
    ['test_models_filter', 'RCP45', NYC, { models: 'CCSM4' }, { '2000-01': { avg: 864000, max: 864000, min: 864000 }, '2001-01': { avg: 864000, max: 864000, min: 864000 }, '2002-01': { avg: 864000, max: 864000, min: 864000 }, '2003-01': { avg: 0.0, max: 0.0, min: 0.0 } }],
  ]),

  // §7.28 MonthlyFrostDaysTestCase (IndicatorTests)
  ...cases({ name: 'frost_days', time_aggregation: 'monthly', units: undefined, extra: {} }, [
    ['test_indicator_rcp85', 'RCP85', NYC, {}, { '2000-01': { avg: 1, min: 1, max: 1 } }],
    ['test_indicator_rcp45', 'RCP45', NYC, {}, { '2000-01': { avg: 1, min: 1, max: 1 }, '2001-01': { avg: 1, min: 1, max: 1 }, '2002-01': { avg: 1, min: 1, max: 1 }, '2003-01': { avg: 1, min: 1, max: 1 } }],
    ['test_indicator_no_data', 'RCP85', LA, {}, {}],
    ['test_years_filter', 'RCP45', NYC, { years: '2001:2002' }, { '2001-01': { avg: 1, min: 1, max: 1 }, '2002-01': { avg: 1, min: 1, max: 1 } }],
    ['test_models_filter', 'RCP45', NYC, { models: 'CCSM4' }, { '2000-01': { avg: 1, min: 1, max: 1 }, '2001-01': { avg: 1, min: 1, max: 1 }, '2002-01': { avg: 1, min: 1, max: 1 }, '2003-01': { avg: 1, min: 1, max: 1 } }],
  ]),

  // §7.29 MonthlyExtremePrecipitationEventsTestCase (IndicatorTests)
  ...cases({ name: 'extreme_precipitation_events', time_aggregation: 'monthly', units: undefined, extra: { percentile: '99', historic_range: '1961' } }, [
    ['test_indicator_rcp85', 'RCP85', NYC, {}, { '2000-01': { avg: 1.0, min: 1, max: 1 } }],
    ['test_indicator_rcp45', 'RCP45', NYC, {}, { '2000-01': { avg: 0.0, min: 0, max: 0 }, '2001-01': { avg: 0.0, min: 0, max: 0 }, '2002-01': { avg: 0.0, min: 0, max: 0 }, '2003-01': { avg: 0.0, min: 0, max: 0 } }],
    ['test_indicator_no_data', 'RCP85', LA, {}, {}],
    ['test_years_filter', 'RCP45', NYC, { years: '2001:2002' }, { '2001-01': { avg: 0.0, min: 0, max: 0 }, '2002-01': { avg: 0.0, min: 0, max: 0 } }],
    ['test_models_filter', 'RCP45', NYC, { models: 'CCSM4' }, { '2000-01': { avg: 0.0, min: 0, max: 0 }, '2001-01': { avg: 0.0, min: 0, max: 0 }, '2002-01': { avg: 0.0, min: 0, max: 0 }, '2003-01': { avg: 0.0, min: 0, max: 0 } }],
  ]),

  // §7.30 MonthlyExtremeHeatEventsTestCase (IndicatorTests)
  ...cases({ name: 'extreme_heat_events', time_aggregation: 'monthly', units: undefined, extra: { percentile: '99', historic_range: '1961' } }, [
    ['test_indicator_rcp85', 'RCP85', NYC, {}, { '2000-01': { avg: 1.0, min: 1, max: 1 } }],
    ['test_indicator_rcp45', 'RCP45', NYC, {}, { '2000-01': { avg: 0.0, min: 0, max: 0 }, '2001-01': { avg: 0.0, min: 0, max: 0 }, '2002-01': { avg: 0.0, min: 0, max: 0 }, '2003-01': { avg: 0.0, min: 0, max: 0 } }],
    ['test_indicator_no_data', 'RCP85', LA, {}, {}],
    ['test_years_filter', 'RCP45', NYC, { years: '2001:2002' }, { '2001-01': { avg: 0.0, min: 0, max: 0 }, '2002-01': { avg: 0.0, min: 0, max: 0 } }],
    ['test_models_filter', 'RCP45', NYC, { models: 'CCSM4' }, { '2000-01': { avg: 0.0, min: 0, max: 0 }, '2001-01': { avg: 0.0, min: 0, max: 0 }, '2002-01': { avg: 0.0, min: 0, max: 0 }, '2003-01': { avg: 0.0, min: 0, max: 0 } }],
  ]),

  // §7.31 MonthlyExtremeColdEventsTestCase (IndicatorTests)
  ...cases({ name: 'extreme_cold_events', time_aggregation: 'monthly', units: undefined, extra: { percentile: '1', historic_range: '1961' } }, [
    ['test_indicator_rcp85', 'RCP85', NYC, {}, { '2000-01': { avg: 0.0, min: 0, max: 0 } }],
    ['test_indicator_rcp45', 'RCP45', NYC, {}, { '2000-01': { avg: 0.5, min: 0, max: 1 }, '2001-01': { avg: 0.5, min: 0, max: 1 }, '2002-01': { avg: 1.0, min: 1, max: 1 }, '2003-01': { avg: 1.0, min: 1, max: 1 } }],
    ['test_indicator_no_data', 'RCP85', LA, {}, {}],
    ['test_years_filter', 'RCP45', NYC, { years: '2001:2002' }, { '2001-01': { avg: 0.5, min: 0, max: 1 }, '2002-01': { avg: 1.0, min: 1, max: 1 } }],
    ['test_models_filter', 'RCP45', NYC, { models: 'CCSM4' }, { '2000-01': { avg: 1.0, min: 1, max: 1 }, '2001-01': { avg: 1.0, min: 1, max: 1 }, '2002-01': { avg: 1.0, min: 1, max: 1 }, '2003-01': { avg: 1.0, min: 1, max: 1 } }],
  ]),

  // §7.32 MonthlyHeatingDegreeDaysTestCase (IndicatorTests)
  ...cases({ name: 'heating_degree_days', time_aggregation: 'monthly', units: 'F', extra: { basetemp: '-384.07' } }, [
    ['test_indicator_rcp85', 'RCP85', NYC, {}, { '2000-01': { max: 21.600000000000026, avg: 12.600000000000026, min: 3.600000000000026 } }],
    ['test_indicator_rcp45', 'RCP45', NYC, {}, { '2000-01': { avg: 48.60000000000003, min: 39.60000000000003, max: 57.60000000000003 }, '2001-01': { avg: 48.60000000000003, min: 39.60000000000003, max: 57.60000000000003 }, '2002-01': { avg: 57.60000000000003, min: 57.60000000000003, max: 57.60000000000003 }, '2003-01': { avg: 57.60000000000003, min: 57.60000000000003, max: 57.60000000000003 } }],
    ['test_indicator_no_data', 'RCP85', LA, {}, {}],
    ['test_years_filter', 'RCP45', NYC, { years: '2001:2002' }, { '2001-01': { avg: 48.60000000000003, min: 39.60000000000003, max: 57.60000000000003 }, '2002-01': { avg: 57.60000000000003, min: 57.60000000000003, max: 57.60000000000003 } }],
    ['test_models_filter', 'RCP45', NYC, { models: 'CCSM4' }, { '2000-01': { avg: 57.60000000000003, min: 57.60000000000003, max: 57.60000000000003 }, '2001-01': { avg: 57.60000000000003, min: 57.60000000000003, max: 57.60000000000003 }, '2002-01': { avg: 57.60000000000003, min: 57.60000000000003, max: 57.60000000000003 }, '2003-01': { avg: 57.60000000000003, min: 57.60000000000003, max: 57.60000000000003 } }],
  ]),

  // §7.33 MonthlyCoolingDegreeDaysTestCase (IndicatorTests)
  ...cases({ name: 'cooling_degree_days', time_aggregation: 'monthly', units: 'C', extra: { basetemp: '-273.15', basetemp_units: 'C' } }, [
    ['test_indicator_rcp85', 'RCP85', NYC, {}, { '2000-01': { max: 40.0, avg: 35.0, min: 30.0 } }],
    ['test_indicator_rcp45', 'RCP45', NYC, {}, { '2000-01': { max: 20.0, avg: 15.0, min: 10.0 }, '2003-01': { max: 10.0, avg: 10.0, min: 10.0 }, '2001-01': { max: 20.0, avg: 15.0, min: 10.0 }, '2002-01': { max: 10.0, avg: 10.0, min: 10.0 } }],
    ['test_indicator_no_data', 'RCP85', LA, {}, {}],
    ['test_years_filter', 'RCP45', NYC, { years: '2001:2002' }, { '2001-01': { max: 20.0, avg: 15.0, min: 10.0 }, '2002-01': { max: 10.0, avg: 10.0, min: 10.0 } }],
    ['test_models_filter', 'RCP45', NYC, { models: 'CCSM4' }, { '2000-01': { max: 10.0, avg: 10.0, min: 10.0 }, '2003-01': { max: 10.0, avg: 10.0, min: 10.0 }, '2001-01': { max: 10.0, avg: 10.0, min: 10.0 }, '2002-01': { max: 10.0, avg: 10.0, min: 10.0 } }],
  ]),

  // §7.34 MonthlyPrecipitationThresholdTestcase (IndicatorTests)
  ...cases({ name: 'precipitation_threshold', time_aggregation: 'monthly', units: undefined, extra: { threshold: '43200', threshold_comparator: 'lt', threshold_units: 'in/day' } }, [
    ['test_indicator_rcp85', 'RCP85', NYC, {}, { '2000-01': { avg: 0.0, min: 0.0, max: 0.0 } }],
    ['test_indicator_rcp45', 'RCP45', NYC, {}, { '2000-01': { max: 1.0, avg: 0.5, min: 0.0 }, '2001-01': { max: 1.0, avg: 0.5, min: 0.0 }, '2002-01': { avg: 1.0, max: 1.0, min: 1.0 }, '2003-01': { avg: 1.0, max: 1.0, min: 1.0 } }],
    ['test_indicator_no_data', 'RCP85', LA, {}, {}],
    ['test_years_filter', 'RCP45', NYC, { years: '2001:2002' }, { '2001-01': { max: 1.0, avg: 0.5, min: 0.0 }, '2002-01': { avg: 1.0, max: 1.0, min: 1.0 } }],
    ['test_models_filter', 'RCP45', NYC, { models: 'CCSM4' }, { '2000-01': { avg: 1.0, max: 1.0, min: 1.0 }, '2001-01': { avg: 1.0, max: 1.0, min: 1.0 }, '2002-01': { avg: 1.0, max: 1.0, min: 1.0 }, '2003-01': { avg: 1.0, max: 1.0, min: 1.0 } }],
  ]),
];

// ---- comparison ----

function close(actual: unknown, expected: number): boolean {
  if (typeof actual !== 'number' || !Number.isFinite(actual)) return false;
  const diff = Math.abs(actual - expected);
  return diff <= 1e-12 || diff <= 1e-12 * Math.max(Math.abs(actual), Math.abs(expected));
}

/** The differences between `data` and the expected dict: same period keys, same stat keys, close numbers. */
function differences(actual: unknown, expected: Expected): string[] {
  const out: string[] = [];
  if (typeof actual !== 'object' || actual === null || Array.isArray(actual)) return [`data is not an object: ${JSON.stringify(actual)}`];
  const got = actual as Record<string, unknown>;
  const sorted = (o: object) => Object.keys(o).sort();
  if (JSON.stringify(sorted(got)) !== JSON.stringify(sorted(expected))) {
    out.push(`periods ${JSON.stringify(sorted(got))} != expected ${JSON.stringify(sorted(expected))}`);
  }
  for (const [period, stats] of Object.entries(expected)) {
    const g = got[period];
    if (typeof g !== 'object' || g === null) continue;
    const gs = g as Record<string, unknown>;
    if (JSON.stringify(sorted(gs)) !== JSON.stringify(sorted(stats))) {
      out.push(`${period}: keys ${JSON.stringify(sorted(gs))} != expected ${JSON.stringify(sorted(stats))}`);
    }
    for (const [k, v] of Object.entries(stats)) {
      if (k in gs && !close(gs[k], v)) out.push(`${period}.${k}: ${JSON.stringify(gs[k])} != expected ${v}`);
    }
  }
  return out;
}

// ---- the app on the acceptance fixture ----

let t: Pick<TestApp, 'app' | 'token' | 'queries'> & { catalog: Catalog };
let fixtureDir: string;

async function acceptanceApp(dataDir: string, env: Record<string, string>) {
  const config = loadConfig({ LOG_LEVEL: 'silent', ...process.env, DATA_DIR: dataDir, ACCOUNTS_DB: tempAccountsDb(), ...env });
  const db = await openDuckDB({ threads: 2, memoryLimit: '512MB' });
  const catalog = await loadCatalog(await db.connect(), dataDir);
  const queries = await QueryPool.open(db, config.QUERY_CONCURRENCY, config.QUERY_TIMEOUT_MS, sqlFile('indicators/macros.sql'));
  const auth = await createAuth(config);
  const account = await auth.accounts.create('acceptance@example.com', await hashPassword('test-password'));
  const token = await auth.tokens.issue(account.id, account.tokenVersion);
  return { app: createApp({ config, catalog, queries, auth }), token, catalog, queries };
}

beforeAll(async () => {
  fixtureDir = fs.mkdtempSync(path.join(os.tmpdir(), 'climate-acceptance-'));
  await writeAcceptanceFixture(inject('dataDir'), fixtureDir);
  t = await acceptanceApp(fixtureDir, { THROTTLE_BURST_RATE: '1000000/min', THROTTLE_SUSTAINED_RATE: '100000000/day' });
});

afterAll(() => {
  if (fixtureDir) fs.rmSync(fixtureDir, { recursive: true, force: true });
});

describe('acceptance fixture', () => {
  it('holds the cases of §7.1-§7.34 (every row of every table)', () => {
    expect(section).toBe(34);
    expect(CASES).toHaveLength(181);
  });

  it('has NYC data, no LA data, and the one 1961-1990 historic range', () => {
    expect(t.catalog.historicRanges).toEqual([{ start_year: 1961, end_year: 1990, datasets: ['NEX-GDDP', 'LOCA', 'NEX-GDDP-CMIP6', 'LOCA2'] }]);
    expect(t.catalog.datasetByName.get('NEX-GDDP')?.models.slice().sort()).toEqual([...NEX_GDDP_MODELS].sort());
    const cell = (city: number) => t.catalog.cityCells.get(city)?.get('NEX-GDDP');
    expect(cell(NYC)).toBeDefined();
    expect(fs.existsSync(path.join(fixtureDir, 'climate', 'NEX-GDDP', 'RCP85', `${cell(NYC)}.parquet`))).toBe(true);
    for (const scenario of ['historical', 'RCP45', 'RCP85']) {
      expect(fs.existsSync(path.join(fixtureDir, 'climate', 'NEX-GDDP', scenario, `${cell(LA)}.parquet`))).toBe(false);
    }
  });
});

describe('indicators: the original test cases (§7.1-§7.34)', () => {
  it.each(CASES.map((c) => [c.title, c] as const))('%s', async (_title, c) => {
    const query: Record<string, string> = { ...c.extra, time_aggregation: c.time_aggregation };
    if (c.units !== undefined) query.units = c.units;
    Object.assign(query, c.params);
    const qs = new URLSearchParams(query).toString();
    const res = await request(t.app)
      .get(`/api/climate-data/${c.city}/${c.scenario}/indicator/${c.name}/?${qs}`)
      .set('Authorization', `Token ${t.token}`);

    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.body.indicator.name).toBe(c.name);
    expect(res.body.time_aggregation).toBe(c.time_aggregation);
    expect(res.body.units).toBe(query.units ?? DEFAULT_UNITS[c.name]);
    const models = query.models === undefined ? NEX_GDDP_MODELS : query.models.split(',');
    expect([...(res.body.climate_models as string[])].sort()).toEqual([...models].sort());
    if (Object.keys(c.expected).length === 0) {
      expect(res.body.data).toEqual({});
    } else {
      expect(differences(res.body.data, c.expected), JSON.stringify(res.body.data)).toEqual([]);
    }
  });
});
