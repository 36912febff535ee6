import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { fixtureExpected, writeFixture, type FixtureSpec } from '../scripts/archiveModel/fixtureFiles.js';
import { TEST_FILTER_ID } from '../scripts/archiveModel/netcdf4Writer.js';
import { ingestNetcdf, IngestError } from '../src/ingest/netcdf/ingest.js';
import { testApp } from './helpers.js';
import { cityCell, copyOfTestData, expectClose, NYC, quiet, series, THROTTLE } from './ingest-support.js';

/**
 * `make ingest` of one NetCDF-4 file whose data variable is stored each way the format allows
 * (and the fixture writers can write): every one serves exactly what the same values stored in
 * the publishers' way (chunked, deflated) serve. Files that cannot be read fail with a sentence.
 */
const tmpRoot = fs.mkdtempSync(path.join(os.tmpdir(), 'climate-ingest-layouts-'));
afterAll(() => fs.rmSync(tmpRoot, { recursive: true, force: true }));

/** New York City's NEX-GDDP-CMIP6 cells, 2 x 2: 5.9 KB of values, small enough for compact storage. */
const spec: FixtureSpec = {
  layout: 'NEX-GDDP-CMIP6', variable: 'tasmax', model: 'ACCESS-CM2', scenario: 'ssp245', year: 2052, calendar: 'gregorian',
  lat: [40.625, 40.875], lon: [-74.125, -73.875], lon360: true,
};

const LAYOUTS: Record<string, Partial<FixtureSpec>> = {
  // What netCDF-C writes when no chunking is asked for (written here by the HDF5 library).
  contiguous: { storage: 'contiguous' },
  compact: { storage: 'compact' },
  'chunked without filters': { deflateLevel: 0 },
  'chunked, shuffled, deflated and checksummed (Fletcher-32)': { shuffle: true, fletcher32: true },
  'chunked, indexed by a fixed array': { libver: 'v110' },
  'chunked, indexed by an extensible array (unlimited time)': { libver: 'latest', unlimitedTime: true },
};

/** Ingests `file` into a fresh copy of the test build and returns the served tasmax of New York City in 2052. */
async function servedAfterIngest(name: string, file: string) {
  const dataDir = copyOfTestData(tmpRoot, name);
  try {
    const summary = await ingestNetcdf({ dataDir, dataset: 'NEX-GDDP-CMIP6', sources: [file], log: quiet });
    expect(summary.files).toBe(1);
    const app = await testApp(THROTTLE, dataDir);
    return { app, values: await series(app, String(NYC), 'ssp245', 'ACCESS-CM2', 2052, 'tasmax', 'NEX-GDDP-CMIP6') };
  } finally {
    fs.rmSync(dataDir, { recursive: true, force: true });
  }
}

describe('make ingest: a data variable in every storage layout', () => {
  let chunked: (number | null)[];

  beforeAll(async () => {
    const file = await writeFixture(path.join(tmpRoot, 'chunked'), spec);
    const { app, values } = await servedAfterIngest('build-chunked', file);
    const c = cityCell(app, NYC, 'NEX-GDDP-CMIP6');
    expect(values).toHaveLength(366);
    for (let slot = 0; slot < 366; slot++) expectClose(values[slot]!, fixtureExpected(spec, 2052, slot, c.lat, c.lon), false);
    chunked = values;
  });

  for (const [name, extra] of Object.entries(LAYOUTS)) {
    it(`serves a file stored ${name} as it serves the chunked one`, async () => {
      const file = await writeFixture(path.join(tmpRoot, name.replace(/\W+/g, '-')), { ...spec, ...extra });
      const { values } = await servedAfterIngest(`build-${name.replace(/\W+/g, '-')}`, file);
      expect(values).toEqual(chunked);
    }, 60_000);
  }

  describe('files it cannot read fail with a sentence naming the file', () => {
    let dataDir: string;
    beforeAll(() => {
      dataDir = copyOfTestData(tmpRoot, 'build-errors');
    });
    const ingest = (file: string) => ingestNetcdf({ dataDir, dataset: 'NEX-GDDP-CMIP6', sources: [file], log: quiet });

    it('a variable compressed with a filter neither reader has', async () => {
      const file = await writeFixture(path.join(tmpRoot, 'unreadable'), { ...spec, shuffle: true, testFilter: true });
      const failure = ingest(file);
      await expect(failure).rejects.toThrow(IngestError);
      await expect(failure).rejects.toThrow(
        `${file}: variable tasmax is compressed with filter ${TEST_FILTER_ID} (fixture test filter), which the ingest cannot decode (its own reader decodes deflate, shuffle and Fletcher-32, and the HDF5 library it carries has no plugins); rewrite the file with deflate`,
      );
    });

    it('an HTML page saved under a NetCDF name', async () => {
      const dir = path.join(tmpRoot, 'html');
      fs.mkdirSync(dir, { recursive: true });
      const file = path.join(dir, 'tasmax_day_ACCESS-CM2_ssp245_r1i1p1f1_gn_2052.nc');
      fs.writeFileSync(file, '\n<!DOCTYPE html>\n<html><head><title>503 Service Unavailable</title></head><body>Try again later</body></html>\n');
      await expect(ingest(file)).rejects.toThrow(
        `${file}: cannot be read as NetCDF: is an HTML page, not a NetCDF file: a server's error or login page saved under the file's name; download it again`,
      );
    });

    it('an empty file and an XML error document', async () => {
      const dir = path.join(tmpRoot, 'not-netcdf');
      fs.mkdirSync(dir, { recursive: true });
      const empty = path.join(dir, 'tasmax_day_ACCESS-CM2_ssp245_r1i1p1f1_gn_2052.nc');
      fs.writeFileSync(empty, '');
      await expect(ingest(empty)).rejects.toThrow(`${empty}: cannot be read as NetCDF: is empty (0 bytes): a download that never got its data; download it again`);
      const xml = path.join(dir, 'tasmax_day_ACCESS-CM2_ssp245_r1i1p1f1_gn_2051.nc');
      fs.writeFileSync(xml, '<?xml version="1.0" encoding="UTF-8"?>\n<Error><Code>SlowDown</Code><Message>Please reduce your request rate.</Message></Error>\n');
      await expect(ingest(xml)).rejects.toThrow(`${xml}: cannot be read as NetCDF: is an XML document, not a NetCDF file: a server's error or login page saved under the file's name; download it again`);
    });

    it('a truncated download of a contiguous file', async () => {
      const file = await writeFixture(path.join(tmpRoot, 'truncated'), { ...spec, storage: 'contiguous' });
      const whole = fs.statSync(file).size;
      fs.truncateSync(file, whole - 1000);
      await expect(ingest(file)).rejects.toThrow(
        `${file}: cannot be read as NetCDF: it is truncated: its HDF5 superblock says the file is ${whole} bytes, but it has ${whole - 1000}; download it again`,
      );
    });
  });
});
