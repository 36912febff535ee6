import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ROOT } from '../src/config.js';
import { POINT, SEA_CELL, writeSampleFixtures } from '../scripts/archiveModel/fixtureSets.js';
import { fixtureValue, writeFixture, type FixtureSpec } from '../scripts/archiveModel/fixtureFiles.js';
import { ingestNetcdf, IngestError, parsePoints } from '../src/ingest/netcdf/ingest.js';
import { openDuckDB, readRows } from '../src/db/duckdb.js';
import { sqlString } from '../src/db/sqlFiles.js';
import { FORMER_SYNTHETIC_NOTE, SYNTHETIC_NOTE } from '../src/reference/fixtures.js';
import { cellAt, GRIDS } from '../src/reference/grids.js';
import { testApp, type TestApp } from './helpers.js';
import { cityCell, copyOfTestData as copyOfTestDataIn, expectClose, get, NYC, partitionRows, quiet, series, THROTTLE } from './ingest-support.js';
import { compiled } from './support/compiled.js';

const tmpRoot = fs.mkdtempSync(path.join(os.tmpdir(), 'climate-ingest-'));
afterAll(() => fs.rmSync(tmpRoot, { recursive: true, force: true }));
const copyOfTestData = (name: string) => copyOfTestDataIn(tmpRoot, name);

/**
 * Makes `dataset`'s description in a build's catalog carry the synthetic note as builds wrote it
 * before the note pointed at docs/, and returns the description now in the file.
 */
async function writeFormerSyntheticNote(dataDir: string, dataset: string): Promise<string> {
  const file = path.join(dataDir, 'catalog', 'dataset.parquet');
  const db = await openDuckDB({ threads: 1, memoryLimit: '256MB' });
  const conn = await db.connect();
  try {
    await conn.run(
      `COPY (SELECT * REPLACE (CASE WHEN name = $dataset THEN replace(description, $note, $former) ELSE description END AS description)
             FROM read_parquet(${sqlString(file)})) TO ${sqlString(`${file}.tmp`)} (FORMAT parquet)`,
      { dataset, note: SYNTHETIC_NOTE, former: FORMER_SYNTHETIC_NOTE },
    );
    fs.renameSync(`${file}.tmp`, file);
    const [row] = await readRows<{ description: string }>(conn, `SELECT description FROM read_parquet(${sqlString(file)}) WHERE name = $dataset`, { dataset });
    return row!.description;
  } finally {
    conn.closeSync();
    await db.close();
  }
}

describe('make ingest: the sample NetCDF folders through the API', () => {
  let dataDir: string;
  let before: TestApp;
  let after: TestApp;
  let samples: string;
  let formerLocaDescription: string;

  beforeAll(async () => {
    samples = path.join(tmpRoot, 'samples');
    await writeSampleFixtures(samples);
    dataDir = copyOfTestData('build');
    before = await testApp(THROTTLE, dataDir);
    // LOCA's catalog entry as a build made before the note pointed at docs/ has it.
    formerLocaDescription = await writeFormerSyntheticNote(dataDir, 'LOCA');
    await ingestNetcdf({ dataDir, dataset: 'NEX-GDDP', sources: [path.join(samples, 'nex'), path.join(samples, 'points')], points: [POINT], log: quiet });
    await ingestNetcdf({ dataDir, dataset: 'LOCA', sources: [path.join(samples, 'loca')], log: quiet });
    after = await testApp(THROTTLE, dataDir);
  });

  it('serves the values of a standard-calendar leap year: packed degC, hours since, and NetCDF-3 mm/day', async () => {
    const c = cityCell(after, NYC, 'NEX-GDDP');
    const tasmax = await series(after, String(NYC), 'RCP85', 'ACCESS1-0', 2052, 'tasmax');
    const tasmin = await series(after, String(NYC), 'RCP85', 'ACCESS1-0', 2052, 'tasmin');
    const pr = await series(after, String(NYC), 'RCP85', 'ACCESS1-0', 2052, 'pr');
    for (let slot = 0; slot < 366; slot++) {
      expectClose(tasmax[slot]!, fixtureValue('tasmax', 'ACCESS1-0', 2052, slot, c.lat, c.lon), true);
      expectClose(tasmin[slot]!, fixtureValue('tasmin', 'ACCESS1-0', 2052, slot, c.lat, c.lon), false);
      expectClose(pr[slot]!, fixtureValue('pr', 'ACCESS1-0', 2052, slot, c.lat, c.lon), false);
    }
  });

  it('leaves a 365-day model without Feb 29 and shifts the rest of a leap year by one slot', async () => {
    const c = cityCell(after, NYC, 'NEX-GDDP');
    const tasmax = await series(after, String(NYC), 'RCP85', 'CCSM4', 2052, 'tasmax');
    expect(tasmax[59]).toBeNull();
    expectClose(tasmax[58]!, fixtureValue('tasmax', 'CCSM4', 2052, 58, c.lat, c.lon), false);
    expectClose(tasmax[60]!, fixtureValue('tasmax', 'CCSM4', 2052, 59, c.lat, c.lon), false);
    expectClose(tasmax[365]!, fixtureValue('tasmax', 'CCSM4', 2052, 364, c.lat, c.lon), false);
    // pr of CCSM4 2052 was not in the files: the synthetic values stay, Feb 29 included.
    const pr = await series(after, String(NYC), 'RCP85', 'CCSM4', 2052, 'pr');
    expect(pr).toEqual(await series(before, String(NYC), 'RCP85', 'CCSM4', 2052, 'pr'));
  });

  it('maps a 360-day year onto the real year, leaving the documented dates empty', async () => {
    const c = cityCell(after, NYC, 'NEX-GDDP');
    const tasmax = await series(after, String(NYC), 'RCP85', 'MIROC5', 2052, 'tasmax');
    // Leap year: Jan 31, Mar 31, Jun 1, Jul 31, Oct 1 and Nov 30 have no 360-day day.
    const empty = [30, 90, 152, 212, 274, 334];
    expect(tasmax.map((v, slot) => (v === null ? slot : -1)).filter((s) => s >= 0)).toEqual(empty);
    expectClose(tasmax[0]!, fixtureValue('tasmax', 'MIROC5', 2052, 0, c.lat, c.lon), false);
    expectClose(tasmax[31]!, fixtureValue('tasmax', 'MIROC5', 2052, 30, c.lat, c.lon), false);
    expectClose(tasmax[365]!, fixtureValue('tasmax', 'MIROC5', 2052, 359, c.lat, c.lon), false);
  });

  it('keeps what the files do not cover: other years and other variables', async () => {
    for (const [model, year] of [['ACCESS1-0', 2050], ['ACCESS1-0', 2051], ['CCSM4', 2051]] as const) {
      for (const v of ['tasmax', 'tasmin', 'pr']) {
        expect(await series(after, String(NYC), 'RCP85', model, year, v)).toEqual(await series(before, String(NYC), 'RCP85', model, year, v));
      }
    }
    const tasminMiroc = await series(after, String(NYC), 'RCP85', 'MIROC5', 2052, 'tasmin');
    expect(tasminMiroc).toEqual(await series(before, String(NYC), 'RCP85', 'MIROC5', 2052, 'tasmin'));
  });

  it('reads the model, scenario and variable of a file from its global attributes when its name does not say', async () => {
    const c = cityCell(after, NYC, 'NEX-GDDP');
    const tasmax = await series(after, String(NYC), 'RCP45', 'BNU-ESM', 2051, 'tasmax');
    expectClose(tasmax[100]!, fixtureValue('tasmax', 'BNU-ESM', 2051, 100, c.lat, c.lon), false);
    expect(tasmax[365]).toBeNull();
    const hist = await series(after, String(NYC), 'historical', 'ACCESS1-0', 1991, 'tasmax');
    expectClose(hist[364]!, fixtureValue('tasmax', 'ACCESS1-0', 1991, 364, c.lat, c.lon), false);
  });

  it('gives data to every city cell the files cover, but not to a cell with only fill values', async () => {
    // The most populous city in the files' box whose cell had no data before.
    const newark = before.catalog.cities
      .filter((c) => c.lat > 40.25 && c.lat < 41.25 && c.lon > -74.75 && c.lon < -73 && !c.datasets.includes('NEX-GDDP'))
      .sort((a, b) => b.population - a.population)[0]!;
    expect(after.catalog.cityById.get(newark.id)!.datasets).toEqual(['NEX-GDDP', 'LOCA'].filter((d) => after.catalog.cityCells.get(newark.id)!.has(d)));
    const res = await get(after, `/api/city/${newark.id}/`).expect(200);
    expect(res.body.properties.datasets).toContain('NEX-GDDP');
    const c = cityCell(after, newark.id, 'NEX-GDDP');
    const tasmin = await series(after, String(newark.id), 'RCP85', 'ACCESS1-0', 2052, 'tasmin');
    expectClose(tasmin[200]!, fixtureValue('tasmin', 'ACCESS1-0', 2052, 200, c.lat, c.lon), false);
    // The sea cell holds fill values in every file: no partition, no data.
    const sea = cellAt(GRIDS['NEX-GDDP']!, SEA_CELL.lat, SEA_CELL.lon)!;
    expect(fs.existsSync(path.join(dataDir, 'climate', 'NEX-GDDP', 'RCP85', `${sea}.parquet`))).toBe(false);
    await get(after, `/api/climate-data/${SEA_CELL.lat}/${SEA_CELL.lon}/RCP85/`).expect(404);
  });

  it('ingests a point given with POINTS, away from any city', async () => {
    await get(before, `/api/climate-data/${POINT.lat}/${POINT.lon}/RCP85/`).expect(404);
    const cell = after.catalog.mapCells.get('NEX-GDDP', cellAt(GRIDS['NEX-GDDP']!, POINT.lat, POINT.lon)!)!;
    expect(cell).toBeDefined();
    const tasmax = await series(after, `${POINT.lat}/${POINT.lon}`, 'RCP85', 'ACCESS1-0', 2052, 'tasmax');
    for (const slot of [0, 59, 180, 365]) expectClose(tasmax[slot]!, fixtureValue('tasmax', 'ACCESS1-0', 2052, slot, cell.lat, cell.lon), false);
    const mapCell = await get(after, `/api/map-cell/${POINT.lat}/${POINT.lon}/`).expect(200);
    expect(JSON.stringify(mapCell.body)).toContain('NEX-GDDP');
  });

  it("writes the ingested cells' rows of the map files again: a map of the files' box is the point endpoint's, cells that gained data included", async () => {
    const ofBox = (app: TestApp) => get(app, '/api/climate-data/map/RCP85/indicator/average_high_temperature/?years=2052&agg=median,max&models=ACCESS1-0&bbox=-74.75,40.25,-73,41.25');
    const m = (await ofBox(after).expect(200)).body;
    const newark = before.catalog.cities.filter((c) => c.lat > 40.25 && c.lat < 41.25 && c.lon > -74.75 && c.lon < -73 && !c.datasets.includes('NEX-GDDP')).sort((a, b) => b.population - a.population)[0]!;
    expect(m.cells.id).toContain(cityCell(after, newark.id, 'NEX-GDDP').cellId);
    expect(m.cells.id).toContain(cityCell(after, NYC, 'NEX-GDDP').cellId);
    for (let i = 0; i < m.cells.id.length; i++) {
      const point = await get(after, `/api/climate-data/${m.cells.lat[i]}/${m.cells.lon[i]}/RCP85/indicator/average_high_temperature/?time_aggregation=window&windows=2052:2052&agg=median,max&models=ACCESS1-0`).expect(200);
      const want = point.body.data['2052-2052'];
      expect([m.values.median[i], m.values.max[i]], `cell ${m.cells.id[i]}`).toEqual([want.median, want.max]);
    }
    // Each file holds the cells it was written for: every cell of the box that has data.
    expect(m.models.every((n: number) => n === 1)).toBe(true);
  });

  it('says in the dataset description that ingested cells hold model output', async () => {
    const before_ = await get(before, '/api/dataset/NEX-GDDP/').expect(200);
    const res = await get(after, '/api/dataset/NEX-GDDP/').expect(200);
    expect(before_.body.description).toContain('synthetic (generated by `make data`');
    expect(res.body.description).toContain('serves model output read from the dataset\'s NetCDF files');
    expect(res.body.description).not.toContain('synthetic (generated by `make data`');
  });

  it('replaces the synthetic note of a build made before the note pointed at docs/', async () => {
    expect(formerLocaDescription).toContain(FORMER_SYNTHETIC_NOTE);
    const res = await get(after, '/api/dataset/LOCA/').expect(200);
    expect(res.body.description).toContain('serves model output read from the dataset\'s NetCDF files');
    expect(res.body.description).not.toContain('synthetic (generated by `make data`');
  });

  it('serves LOCA files: 1/16 degree grid, NetCDF-3 packed pr, noleap degC', async () => {
    const c = cityCell(after, NYC, 'LOCA');
    const tasmax = await series(after, String(NYC), 'RCP85', 'ACCESS1-0', 2052, 'tasmax', 'LOCA');
    const tasmin = await series(after, String(NYC), 'RCP85', 'ACCESS1-0', 2052, 'tasmin', 'LOCA');
    const pr = await series(after, String(NYC), 'RCP85', 'ACCESS1-0', 2052, 'pr', 'LOCA');
    for (const slot of [0, 59, 200, 365]) {
      expectClose(tasmax[slot]!, fixtureValue('tasmax', 'ACCESS1-0', 2052, slot, c.lat, c.lon), false);
      expectClose(tasmin[slot]!, fixtureValue('tasmin', 'ACCESS1-0', 2052, slot, c.lat, c.lon), false);
      expect(Math.abs(pr[slot]! - fixtureValue('pr', 'ACCESS1-0', 2052, slot, c.lat, c.lon))).toBeLessThan(1e-8);
    }
    const ccsm4 = await series(after, String(NYC), 'RCP85', 'CCSM4', 2052, 'tasmax', 'LOCA');
    expect(ccsm4[59]).toBeNull();
    expectClose(ccsm4[300]!, fixtureValue('tasmax', 'CCSM4', 2052, 299, c.lat, c.lon), false);
  });

  it('gives the same partitions when the same files are ingested again', async () => {
    const nycCell = after.catalog.cityCells.get(NYC)!.get('NEX-GDDP')!;
    const file = path.join(dataDir, 'climate', 'NEX-GDDP', 'RCP85', `${nycCell}.parquet`);
    const once = await partitionRows(file);
    const manifest = JSON.parse(fs.readFileSync(path.join(dataDir, 'manifest.json'), 'utf8'));
    const again = await ingestNetcdf({ dataDir, dataset: 'NEX-GDDP', sources: [path.join(samples, 'nex'), path.join(samples, 'points')], points: [POINT], log: quiet });
    const twice = await partitionRows(file);
    expect(twice.length).toBe(once.length);
    expect(twice).toEqual(once);
    // Nothing changed: no partition file, nor the manifest (its build id included).
    expect(again.partitions).toBeGreaterThan(0);
    expect(again.partitionsChanged).toBe(0);
    expect(JSON.parse(fs.readFileSync(path.join(dataDir, 'manifest.json'), 'utf8'))).toEqual(manifest);
    expect(fs.existsSync(path.join(dataDir, 'ingest-staging', 'NEX-GDDP'))).toBe(false);
  });
});

describe('make ingest: failures', () => {
  const base: FixtureSpec = { layout: 'NEX-GDDP', variable: 'tasmax', model: 'ACCESS1-0', scenario: 'RCP85', year: 2051, lat: [40.375, 40.875], lon: [-74.375, -73.875] };
  let dataDir: string;
  beforeAll(() => {
    dataDir = copyOfTestData('failures');
  });

  const failing = async (name: string, spec: Partial<FixtureSpec> | ((dir: string) => string)) => {
    const dir = path.join(tmpRoot, 'bad', name);
    const file = typeof spec === 'function' ? spec(dir) : await writeFixture(dir, { ...base, ...spec });
    const err = await ingestNetcdf({ dataDir, dataset: 'NEX-GDDP', sources: [dir], log: quiet }).then(
      () => null,
      (e: unknown) => e,
    );
    expect(err).toBeInstanceOf(IngestError);
    expect((err as Error).message.startsWith(`${file}: `)).toBe(true);
    return (err as Error).message;
  };

  it('names the file and the problem', async () => {
    expect(await failing('model', { model: 'FOO-1' })).toMatch(/model 'FOO-1' is not a NEX-GDDP model; NEX-GDDP models: ACCESS1-0, BNU-ESM/);
    expect(await failing('variable', { storeAs: 'sfcWind', fileName: 'wind_sample' })).toMatch(/cannot tell which variable it holds \(tasmax, tasmin or pr\).*its variables: .*sfcWind/);
    // NEX-GDDP-CMIP6's humidity, in a dataset whose files do not carry it.
    expect(await failing('humidity', { storeAs: 'huss', fileName: 'huss_sample' })).toMatch(/holds huss, which NEX-GDDP's files do not carry here: the ingest reads tasmax, tasmin, pr of NEX-GDDP/);
    expect(await failing('units', { units: 'furlongs' })).toMatch(/tasmax has units 'furlongs', which cannot be converted to K; accepted \(any case, \^ or \*\* optional\): K, Kelvin/);
    expect(await failing('grid', { lat: [40.2, 40.7] })).toMatch(/lat value 40.2 \(index 0\) is not the centre of a NEX-GDDP cell/);
    expect(await failing('dims', { lonFirst: true })).toMatch(/variable tasmax is shaped \(time, lon, lat\); the ingest reads \(time, lat, lon\)/);
    expect(await failing('years', { scenario: 'historical', year: 2051 })).toMatch(/its dates run from 2051-01-01 to 2051-12-31, outside historical's years 1950-2005/);
    expect(await failing('layout', { layout: 'LOCA', lat: [40.59375, 40.65625], lon: [-74.03125, -73.96875] })).toMatch(/follows the LOCA naming, but the ingest is for NEX-GDDP/);
    expect(
      await failing('garbage', (dir) => {
        fs.mkdirSync(dir, { recursive: true });
        fs.writeFileSync(path.join(dir, 'tasmax_day_BCSD_rcp85_r1i1p1_ACCESS1-0_2051.nc'), 'this is not netcdf');
        return path.join(dir, 'tasmax_day_BCSD_rcp85_r1i1p1_ACCESS1-0_2051.nc');
      }),
    ).toMatch(/is not a NetCDF file: its first bytes are "this"/);
    expect(() => parsePoints('40.7,-74;north')).toThrow(/POINTS takes 'lat,lon;lat,lon'.*got 'north'/);
  });

  it('leaves the previous data readable after a failure midway, and resumes without reading staged files again', async () => {
    const t = await testApp(THROTTLE, dataDir);
    const nycCell = t.catalog.cityCells.get(NYC)!.get('NEX-GDDP')!;
    const file = path.join(dataDir, 'climate', 'NEX-GDDP', 'RCP85', `${nycCell}.parquet`);
    const old = await partitionRows(file);
    const dir = path.join(tmpRoot, 'midway');
    const good = await writeFixture(dir, base);
    const broken = path.join(dir, 'tasmin_day_BCSD_rcp85_r1i1p1_ACCESS1-0_2051.nc');
    fs.writeFileSync(broken, fs.readFileSync(good).subarray(0, 2048)); // a truncated HDF5 file
    await expect(ingestNetcdf({ dataDir, dataset: 'NEX-GDDP', sources: [dir], log: quiet })).rejects.toThrow(`${broken}: cannot be read as NetCDF`);
    expect(await partitionRows(file)).toEqual(old);
    const before = await series(t, String(NYC), 'RCP85', 'ACCESS1-0', 2051, 'tasmax');
    expect(before.filter((v) => v !== null)).toHaveLength(365);

    fs.rmSync(broken);
    const summary = await ingestNetcdf({ dataDir, dataset: 'NEX-GDDP', sources: [dir], log: quiet });
    expect(summary.filesResumed).toBe(1);
    expect(summary.bytes).toBe(0);
    const c = cityCell(t, NYC, 'NEX-GDDP');
    const now = await series(t, String(NYC), 'RCP85', 'ACCESS1-0', 2051, 'tasmax');
    expectClose(now[10]!, fixtureValue('tasmax', 'ACCESS1-0', 2051, 10, c.lat, c.lon), false);
  });

  it('after a failed run, ingests only the files of the next command', async () => {
    const dir = copyOfTestData('other-src');
    const t = await testApp(THROTTLE, dir);
    const c = cityCell(t, NYC, 'NEX-GDDP');
    const a = path.join(tmpRoot, 'other-src-a');
    await writeFixture(a, { ...base, year: 2050 });
    fs.writeFileSync(path.join(a, 'zz_broken.nc'), 'CDF\x01 truncated');
    await expect(ingestNetcdf({ dataDir: dir, dataset: 'NEX-GDDP', sources: [a], log: quiet })).rejects.toThrow(/zz_broken\.nc: cannot be read as NetCDF/);
    const b = path.join(tmpRoot, 'other-src-b');
    await writeFixture(b, { ...base, model: 'MIROC5', year: 2050 });
    const oldAccess = await series(t, String(NYC), 'RCP85', 'ACCESS1-0', 2050, 'tasmax');
    const summary = await ingestNetcdf({ dataDir: dir, dataset: 'NEX-GDDP', sources: [b], log: quiet });
    expect(summary.files).toBe(1);
    expect(await series(t, String(NYC), 'RCP85', 'ACCESS1-0', 2050, 'tasmax')).toEqual(oldAccess);
    const miroc = await series(t, String(NYC), 'RCP85', 'MIROC5', 2050, 'tasmax');
    expectClose(miroc[5]!, fixtureValue('tasmax', 'MIROC5', 2050, 5, c.lat, c.lon), false);
  });

  it('leaves every partition readable when the ingest process is killed while rebuilding them', async () => {
    const dir = copyOfTestData('killed');
    const samples = path.join(tmpRoot, 'kill-samples');
    await writeSampleFixtures(samples);
    const env = { ...process.env, DATA_DIR: dir };
    const args = ['--dataset', 'NEX-GDDP', '--src', path.join(samples, 'nex')];
    // node itself (no wrapper that would leave its child running): the kill hits the ingest.
    const child = spawn(process.execPath, [compiled('src/cli/ingest.ts'), ...args], { env, cwd: ROOT, stdio: ['ignore', 'ignore', 'pipe'] });
    let stderr = '';
    await new Promise<void>((resolve) => {
      child.stderr.on('data', (b: Buffer) => {
        stderr += b.toString();
        if (/rebuilding/.test(stderr)) child.kill('SIGKILL');
      });
      child.on('exit', () => resolve());
    });
    const files = fs.readdirSync(path.join(dir, 'climate', 'NEX-GDDP', 'RCP85')).filter((f) => f.endsWith('.parquet'));
    for (const f of files) expect((await partitionRows(path.join(dir, 'climate', 'NEX-GDDP', 'RCP85', f))).length).toBeGreaterThan(0);
    const summary = await ingestNetcdf({ dataDir: dir, dataset: 'NEX-GDDP', sources: [path.join(samples, 'nex')], log: quiet });
    expect(summary.filesResumed).toBe(summary.files);
    const left = fs.readdirSync(path.join(dir, 'climate', 'NEX-GDDP', 'RCP85')).filter((f) => f.includes('.tmp-'));
    expect(left).toEqual([]);
    // Two ingests in a row (the killed one and its resumption): more than the default 30 s on a busy machine.
  }, 300_000);
});
