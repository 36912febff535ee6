import path from 'node:path';
import { writeFixture, type FixtureSpec } from './fixtures.js';

/**
 * The sample NetCDF files `scripts/build-netcdf-fixtures.ts` writes and the ingest tests read: one
 * folder per dataset, in its file naming, around New York City, covering the variations of real
 * files; plus a `points` folder of a small grid away from any city (for POINTS).
 */
const NYC_NEX = { lat: [40.125, 41.375] as [number, number], lon: [-74.875, -72.875] as [number, number] };
const NYC_LOCA = { lat: [40.59375, 40.84375] as [number, number], lon: [-74.09375, -73.84375] as [number, number] };
/** A sea cell south of Long Island: fill values in every NEX-GDDP sample file. */
export const SEA_CELL = { lat: 40.125, lon: -73.125 };
/** The POINTS sample grid (Yellowstone) and a point inside it. */
export const POINT = { lat: 45.2, lon: -110.3 };

export const SAMPLE_FIXTURES: Record<'nex' | 'loca' | 'points', FixtureSpec[]> = {
  nex: [
    // ACCESS1-0, standard calendar, leap year: the three variables in three different encodings.
    { layout: 'NEX-GDDP', variable: 'tasmax', model: 'ACCESS1-0', scenario: 'RCP85', year: 2052, ...NYC_NEX, lon360: true, latDescending: true, packed: true, units: 'degC' },
    { layout: 'NEX-GDDP', variable: 'tasmin', model: 'ACCESS1-0', scenario: 'RCP85', year: 2052, ...NYC_NEX, calendar: 'proleptic_gregorian', timeUnits: 'hours since 1900-01-01 00:00:00' },
    { layout: 'NEX-GDDP', variable: 'pr', model: 'ACCESS1-0', scenario: 'RCP85', year: 2052, ...NYC_NEX, lon360: true, units: 'mm/day', format: 'netcdf3' },
    // CCSM4: a 365-day calendar.
    { layout: 'NEX-GDDP', variable: 'tasmax', model: 'CCSM4', scenario: 'RCP85', year: 2052, ...NYC_NEX, calendar: '365_day', lon360: true },
    { layout: 'NEX-GDDP', variable: 'tasmin', model: 'CCSM4', scenario: 'RCP85', year: 2052, ...NYC_NEX, calendar: 'noleap', packed: true },
    // A 360-day calendar.
    { layout: 'NEX-GDDP', variable: 'tasmax', model: 'MIROC5', scenario: 'RCP85', year: 2052, ...NYC_NEX, calendar: '360_day', latDescending: true },
    // A name that says nothing: variable, model and scenario from the global attributes.
    { layout: 'NEX-GDDP', variable: 'tasmax', model: 'BNU-ESM', scenario: 'RCP45', year: 2051, ...NYC_NEX, fileName: 'sample_attributes_only' },
    { layout: 'NEX-GDDP', variable: 'tasmax', model: 'ACCESS1-0', scenario: 'historical', year: 1991, ...NYC_NEX, calendar: 'gregorian' },
  ],
  loca: [
    { layout: 'LOCA', variable: 'tasmax', model: 'ACCESS1-0', scenario: 'RCP85', year: 2052, ...NYC_LOCA, lon360: true },
    { layout: 'LOCA', variable: 'tasmin', model: 'ACCESS1-0', scenario: 'RCP85', year: 2052, ...NYC_LOCA, lon360: true, latDescending: true },
    { layout: 'LOCA', variable: 'pr', model: 'ACCESS1-0', scenario: 'RCP85', year: 2052, ...NYC_LOCA, lon360: true, format: 'netcdf3', packed: true },
    { layout: 'LOCA', variable: 'tasmax', model: 'CCSM4', scenario: 'RCP85', year: 2052, ...NYC_LOCA, calendar: 'noleap', units: 'degC' },
  ],
  points: [
    { layout: 'NEX-GDDP', variable: 'tasmax', model: 'ACCESS1-0', scenario: 'RCP85', year: 2052, lat: [45.125, 45.375], lon: [-110.375, -110.125], lon360: true },
  ],
};

/** Writes the sample folders under `dir` (nex/, loca/, points/); returns the files written. */
export async function writeSampleFixtures(dir: string): Promise<Record<string, string[]>> {
  const out: Record<string, string[]> = {};
  for (const [name, specs] of Object.entries(SAMPLE_FIXTURES)) {
    out[name] = [];
    for (const spec of specs) {
      const withSea = spec.layout === 'NEX-GDDP' && name === 'nex' ? { ...spec, fillCells: [SEA_CELL] } : spec;
      out[name].push(await writeFixture(path.join(dir, name), withSea));
    }
  }
  return out;
}
