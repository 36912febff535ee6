import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cellPath } from '../src/dataBuild/files.js';
import { ingestNetcdf, type IngestSummary } from '../src/ingest/netcdf/ingest.js';
import { HUMID_FIXTURES, SAMPLE_FIXTURES, writeHumidFixtures } from '../scripts/archiveModel/fixtureSets.js';
import { fixtureExpected, writeFixture, type FixtureSpec } from '../scripts/archiveModel/fixtureFiles.js';
import { testApp, type TestApp } from './helpers.js';
import { cityCell, copyOfTestData, expectClose, get, NYC, series, THROTTLE } from './ingest-support.js';
import { heatIndexK, perYear, toF, wetBulbK, type Days } from './support/humidFormulas.js';
import { openDuckDB, readRows } from '../src/db/duckdb.js';

/**
 * Issue 38: NEX-GDDP-CMIP6's tas, hurs and huss read by `make ingest` from files written as NASA
 * writes them (the `humid` sample set: hurs in %, huss in `1` or `kg kg-1`, a model of each
 * calendar, the models published without hurs or huss, a year without hurs), served on the raw
 * endpoints as the files hold them, and the four humid-heat indicators on the ingested cell checked
 * against the formulas computed here from those days.
 */
const tmpRoot = fs.mkdtempSync(path.join(os.tmpdir(), 'climate-ingest-humid-'));
afterAll(() => fs.rmSync(tmpRoot, { recursive: true, force: true }));

const CMIP6 = 'NEX-GDDP-CMIP6';
const HUMID = HUMID_FIXTURES;
const spec = (model: string, variable: string, year = 2052): FixtureSpec => {
  const found = HUMID.filter((s) => s.model === model && s.variable === variable && s.year === year);
  if (found.length !== 1) throw new Error(`${found.length} humid specs for ${model} ${variable} ${year}`);
  return found[0]!;
};
/** Slots (0..365) the API shows as null. */
const nullSlots = (values: (number | null)[]) => values.flatMap((v, slot) => (v === null ? [slot] : []));

/** The three calendars: the slots each leaves empty in 2052 (a leap year). */
const CALENDARS = [
  { model: 'ACCESS-CM2', scenario: 'ssp245', calendar: 'standard', empty: [] as number[] },
  { model: 'CanESM5', scenario: 'ssp585', calendar: 'noleap', empty: [59] },
  { model: 'UKESM1-0-LL', scenario: 'ssp126', calendar: '360_day', empty: [30, 90, 152, 212, 274, 334] },
];

let dataDir: string;
let before: TestApp;
let after: TestApp;
let humid: IngestSummary;
let coreAfter: TestApp;
const afterHumid: Record<string, (number | null)[]> = {};
const coreFiles: Record<'tasmin' | 'pr', FixtureSpec> = {
  tasmin: SAMPLE_FIXTURES.nex6.find((s) => s.variable === 'tasmin' && s.model === 'ACCESS-CM2')!,
  pr: SAMPLE_FIXTURES.nex6.find((s) => s.variable === 'pr' && s.model === 'ACCESS-CM2')!,
};

async function days(app: TestApp, model: string, scenario: string, years: string, variables: string): Promise<Days> {
  const res = await get(app, `/api/climate-data/${NYC}/${scenario}/?dataset=${CMIP6}&models=${model}&years=${years}&variables=${variables}`).expect(200);
  return res.body.data;
}
async function indicator(app: TestApp, name: string, scenario: string, query: string) {
  return (await get(app, `/api/climate-data/${NYC}/${scenario}/indicator/${name}/?dataset=${CMIP6}&${query}`).expect(200)).body;
}

beforeAll(async () => {
  const samples = path.join(tmpRoot, 'samples');
  await writeHumidFixtures(path.join(samples, 'humid'));
  for (const s of Object.values(coreFiles)) await writeFixture(path.join(samples, 'core'), s);
  dataDir = copyOfTestData(tmpRoot, 'build');
  before = await testApp(THROTTLE);
  humid = await ingestNetcdf({ dataDir, dataset: CMIP6, sources: [path.join(samples, 'humid')], log: () => {} });
  after = await testApp(THROTTLE, dataDir);
  // ACCESS-CM2's days as the humidity ingest left them (the app reads the files: the next ingest changes what it serves).
  for (const variable of ['tasmin', 'pr', 'tas', 'hurs', 'huss', 'tasmax']) {
    afterHumid[variable] = await series(after, String(NYC), 'ssp245', 'ACCESS-CM2', 2052, variable, CMIP6);
  }
  // Then tasmin and pr of ACCESS-CM2 into the same cell: its humidity must stay.
  await ingestNetcdf({ dataDir, dataset: CMIP6, sources: [path.join(samples, 'core')], log: () => {} });
  coreAfter = await testApp(THROTTLE, dataDir);
}, 240_000);

describe('make ingest of NEX-GDDP-CMIP6 humidity', () => {
  it('reads every humid sample file (none skipped)', () => {
    expect(humid.files).toBe(HUMID.length);
    expect(humid.skipped).toEqual([]);
  });

  it('serves tas, hurs, huss and tasmax as the files hold them, on each calendar', async () => {
    const c = cityCell(after, NYC, CMIP6);
    for (const { model, scenario, empty } of CALENDARS) {
      for (const variable of ['tas', 'hurs', 'huss', 'tasmax']) {
        const s = spec(model, variable);
        const values = await series(after, String(NYC), scenario, model, 2052, variable, CMIP6);
        expect(nullSlots(values), `${model} ${variable}`).toEqual(empty);
        const held = values.filter((v) => v !== null);
        expect(held).toHaveLength(366 - empty.length);
        held.forEach((v, t) => expectClose(v, fixtureExpected(s, 2052, t, c.lat, c.lon), false));
      }
    }
    // The files' hurs runs a little outside 0..100, as NASA's does: served as published.
    const hurs = (await series(after, String(NYC), 'ssp245', 'ACCESS-CM2', 2052, 'hurs', CMIP6)) as number[];
    expect(Math.min(...hurs)).toBeLessThan(0);
    expect(Math.max(...hurs)).toBeGreaterThan(100);
  });

  it('keeps what the cell had: humidity after tasmin and pr, and tasmin and pr after humidity', async () => {
    const c = cityCell(after, NYC, CMIP6);
    // The build's (synthetic) tasmin and pr survive the humidity ingest ...
    for (const variable of ['tasmin', 'pr']) {
      const was = await series(before, String(NYC), 'ssp245', 'ACCESS-CM2', 2052, variable, CMIP6);
      expect(was.filter((v) => v !== null)).toHaveLength(366);
      expect(afterHumid[variable]).toEqual(was);
    }
    for (const variable of ['tas', 'hurs', 'huss', 'tasmax']) {
      afterHumid[variable]!.forEach((v, t) => expectClose(v, fixtureExpected(spec('ACCESS-CM2', variable), 2052, t, c.lat, c.lon), false));
    }
    // ... and the humidity survives the tasmin and pr ingest that followed, which replaced them.
    for (const variable of ['tas', 'hurs', 'huss', 'tasmax']) {
      expect(await series(coreAfter, String(NYC), 'ssp245', 'ACCESS-CM2', 2052, variable, CMIP6)).toEqual(afterHumid[variable]);
    }
    for (const variable of ['tasmin', 'pr'] as const) {
      const values = await series(coreAfter, String(NYC), 'ssp245', 'ACCESS-CM2', 2052, variable, CMIP6);
      values.forEach((v, t) => expectClose(v, fixtureExpected(coreFiles[variable], 2052, t, c.lat, c.lon), false));
    }
  });

  it('writes tasmax, tasmin, pr, tas, hurs and huss in the partition, in that order', async () => {
    const cell = after.catalog.cityCells.get(NYC)!.get(CMIP6)!;
    const db = await openDuckDB({ threads: 1, memoryLimit: '256MB' });
    const conn = await db.connect();
    try {
      const cols = await readRows<{ name: string }>(conn, `SELECT column_name AS name FROM (DESCRIBE SELECT * FROM read_parquet('${cellPath(dataDir, 'climate', CMIP6, 'ssp245', cell)}'))`);
      expect(cols.map((r) => r.name)).toEqual(['model', 'date', 'tasmax', 'tasmin', 'pr', 'tas', 'hurs', 'huss']);
    } finally {
      conn.closeSync();
      await db.close();
    }
  });
});

describe('the humid-heat indicators on ingested days', () => {
  for (const { model, scenario, calendar } of CALENDARS) {
    it(`equal the formulas computed from the raw days (${model}, ${calendar})`, async () => {
      const q = `models=${model}&years=2052&agg=max`;
      const wet = perYear(await days(after, model, scenario, '2052', 'tas,hurs'), ['tas', 'hurs'], wetBulbK).get('2052')!;
      const heat = perYear(await days(after, model, scenario, '2052', 'tasmax,huss'), ['tasmax', 'huss'], heatIndexK).get('2052')!;
      // The shifted samples reach the heat index's Rothfusz branch (80 F and more) on many days.
      expect(heat.filter((k) => toF(k) >= 80).length).toBeGreaterThan(50);

      const maxWet = await indicator(after, 'max_wet_bulb_temperature', scenario, `${q}&units=K`);
      expect(maxWet.data['2052'].max).toBeCloseTo(Math.max(...wet), 6);
      const maxHeat = await indicator(after, 'max_heat_index', scenario, q);
      expect(maxHeat.data['2052'].max).toBeCloseTo(toF(Math.max(...heat)), 6);

      const wetDays = wet.filter((k) => k >= 293.15).length;
      expect(wetDays).toBeGreaterThan(0);
      expect(wetDays).toBeLessThan(wet.length);
      const wetCount = await indicator(after, 'wet_bulb_temperature_threshold', scenario, `${q}&threshold=20&threshold_units=C&threshold_comparator=gte`);
      expect(wetCount.data['2052'].max).toBe(wetDays);
      const heatDays = heat.filter((k) => toF(k) > 95).length;
      expect(heatDays).toBeGreaterThan(0);
      expect(heatDays).toBeLessThan(heat.length);
      const heatCount = await indicator(after, 'heat_index_threshold', scenario, `${q}&threshold=95&threshold_units=F&threshold_comparator=gt`);
      expect(heatCount.data['2052'].max).toBe(heatDays);
    });
  }
});

describe('models and years the archive lacks', () => {
  it('serves what a model without hurs (BCC-CSM2-MR) or without both (NESM3) has, and names them in the answers that need the rest', async () => {
    const c = cityCell(after, NYC, CMIP6);
    for (const [model, variable] of [['BCC-CSM2-MR', 'huss'], ['BCC-CSM2-MR', 'tas'], ['NESM3', 'tas']] as const) {
      const values = await series(after, String(NYC), 'ssp245', model, 2052, variable, CMIP6);
      values.filter((v) => v !== null).forEach((v, t) => expectClose(v, fixtureExpected(spec(model, variable), 2052, t, c.lat, c.lon), false));
    }
    const only = await get(after, `/api/climate-data/${NYC}/ssp245/?dataset=${CMIP6}&models=BCC-CSM2-MR,NESM3&years=2052&variables=hurs`).expect(400);
    expect(only.body.detail).toContain('BCC-CSM2-MR has no hurs');

    const three = 'models=ACCESS-CM2,BCC-CSM2-MR,NESM3&years=2052&agg=min,max';
    const heat = await indicator(after, 'max_heat_index', 'ssp245', three);
    expect(heat.climate_models).toEqual(['ACCESS-CM2', 'BCC-CSM2-MR']);
    expect(heat.models_left_out).toEqual([{ model: 'NESM3', lacks: ['huss'] }]);
    const maxima = [];
    for (const model of ['ACCESS-CM2', 'BCC-CSM2-MR']) {
      maxima.push(toF(Math.max(...perYear(await days(after, model, 'ssp245', '2052', 'tasmax,huss'), ['tasmax', 'huss'], heatIndexK).get('2052')!)));
    }
    expect(heat.data['2052'].min).toBeCloseTo(Math.min(...maxima), 6);
    expect(heat.data['2052'].max).toBeCloseTo(Math.max(...maxima), 6);

    const wet = await indicator(after, 'max_wet_bulb_temperature', 'ssp245', `${three}&units=K`);
    expect(wet.climate_models).toEqual(['ACCESS-CM2']);
    expect(wet.models_left_out).toEqual([{ model: 'BCC-CSM2-MR', lacks: ['hurs'] }, { model: 'NESM3', lacks: ['hurs'] }]);
    const access = perYear(await days(after, 'ACCESS-CM2', 'ssp245', '2052', 'tas,hurs'), ['tas', 'hurs'], wetBulbK).get('2052')!;
    expect(wet.data['2052'].max).toBeCloseTo(Math.max(...access), 6);
  });

  it('gives no value for a year without hurs (KIOST-ESM ssp245 2058), not a made-up one; the years around it and its heat index are served', async () => {
    const raw = await days(after, 'KIOST-ESM', 'ssp245', '2057:2059', 'tas,hurs,huss');
    expect(raw['2058']!.hurs!.every((v) => v === null)).toBe(true);
    expect(raw['2058']!.tas!.filter((v) => v !== null)).toHaveLength(365);
    expect(raw['2057']!.hurs!.filter((v) => v !== null)).toHaveLength(365);

    const q = 'models=KIOST-ESM&years=2057:2059&agg=max';
    const wet = perYear(raw, ['tas', 'hurs'], wetBulbK);
    const maxWet = await indicator(after, 'max_wet_bulb_temperature', 'ssp245', `${q}&units=K`);
    expect(maxWet.data['2058'].max).toBeNull();
    for (const year of ['2057', '2059']) expect(maxWet.data[year].max).toBeCloseTo(Math.max(...wet.get(year)!), 6);
    const count = await indicator(after, 'wet_bulb_temperature_threshold', 'ssp245', `${q}&threshold=20&threshold_units=C&threshold_comparator=gte`);
    expect(count.data['2058'].max).toBeNull();
    for (const year of ['2057', '2059']) expect(count.data[year].max).toBe(wet.get(year)!.filter((k) => k >= 293.15).length);
    // huss has every year: the heat index of 2058 is there.
    const heat = await indicator(after, 'heat_index_threshold', 'ssp245', `${q}&threshold=90&threshold_units=F&threshold_comparator=gt`);
    expect(typeof heat.data['2058'].max).toBe('number');
  });
});

describe('LOCA2 humidity', () => {
  it('is skipped by name, saying what LOCA2 serves: LOCA2 publishes hursmax, hursmin and perhaps huss, none a daily mean tas or hurs', async () => {
    const dir = path.join(tmpRoot, 'loca2-humidity');
    const cell = { lat: [40.71875, 40.71875] as [number, number], lon: [-74.03125, -74.03125] as [number, number] };
    const base = { layout: 'LOCA2', model: 'ACCESS-CM2', scenario: 'ssp245', year: 2015, endYear: 2015, ...cell, lon360: true, version: '20250218' } as const;
    await writeFixture(dir, { ...base, variable: 'huss' });
    await writeFixture(dir, { ...base, variable: 'hurs', storeAs: 'hursmin', fileName: 'hursmin.ACCESS-CM2.ssp245.r1i1p1f1.2015-2015.LOCA_16thdeg_v20250218' });
    const log: string[] = [];
    await expect(ingestNetcdf({ dataDir, dataset: 'LOCA2', sources: [dir], log: (l) => log.push(l) })).rejects.toThrow(/none of the 2 NetCDF files .* holds daily values to read/);
    expect(log.some((l) => /skipped .*huss\.ACCESS-CM2.*: holds huss; the service serves tasmax, tasmin, pr$/.test(l))).toBe(true);
    expect(log.some((l) => /skipped .*hursmin\.ACCESS-CM2.*: holds hursmin; the service serves tasmax, tasmin, pr$/.test(l))).toBe(true);
  });
});
