import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cellPath } from '../src/dataBuild/files.js';
import { openDuckDB } from '../src/db/duckdb.js';
import { ingestNetcdf, IngestError, type IngestSummary } from '../src/ingest/netcdf/ingest.js';
import { historicRanges, rangesOfDataset } from '../src/ingest/summaries.js';
import { LOCA2_PR_REVISION_SHIFT, NEX6_V11_SHIFT, SAMPLE_FIXTURES, writeSampleFixtures } from '../scripts/archiveModel/fixtureSets.js';
import { fixtureExpected, writeFixture, type FixtureSpec } from '../scripts/archiveModel/fixtureFiles.js';
import { TEST_BUILD } from './global-setup.js';
import { heatRangesOf, testApp, type TestApp } from './helpers.js';
import { cityCell, copyOfTestData, expectClose, get, NYC, partitionRows, series, THROTTLE } from './ingest-support.js';

const tmpRoot = fs.mkdtempSync(path.join(os.tmpdir(), 'climate-ingest-cmip6-'));
afterAll(() => fs.rmSync(tmpRoot, { recursive: true, force: true }));

/** The sample spec of a folder that matches. */
function sample(folder: 'nex6' | 'loca2', match: Partial<FixtureSpec>): FixtureSpec {
  const found = SAMPLE_FIXTURES[folder].filter((s) => Object.entries(match).every(([k, v]) => s[k as keyof FixtureSpec] === v));
  if (found.length !== 1) throw new Error(`${found.length} sample specs match ${JSON.stringify(match)}`);
  return found[0]!;
}

/** Slots (0..365) the API shows as null. */
const nullSlots = (values: (number | null)[]) => values.flatMap((v, slot) => (v === null ? [slot] : []));

describe('make ingest: NEX-GDDP-CMIP6 and LOCA2 files as their publishers name them', () => {
  let dataDir: string;
  let after: TestApp;
  let nex: IngestSummary;
  let loca: IngestSummary;
  const nexLog: string[] = [];
  const locaLog: string[] = [];

  beforeAll(async () => {
    const samples = path.join(tmpRoot, 'samples');
    await writeSampleFixtures(samples);
    dataDir = copyOfTestData(tmpRoot, 'build');
    nex = await ingestNetcdf({ dataDir, dataset: 'NEX-GDDP-CMIP6', sources: [path.join(samples, 'nex6')], log: (l) => nexLog.push(l) });
    loca = await ingestNetcdf({ dataDir, dataset: 'LOCA2', sources: [path.join(samples, 'loca2')], log: (l) => locaLog.push(l) });
    after = await testApp(THROTTLE, dataDir);
  });

  it('serves the newest version of a NEX-GDDP-CMIP6 file, and says which file it skipped for which', async () => {
    const c = cityCell(after, NYC, 'NEX-GDDP-CMIP6');
    const v11 = sample('nex6', { variable: 'tasmax', model: 'ACCESS-CM2', scenario: 'ssp245', version: '1.1' });
    const tasmax = await series(after, String(NYC), 'ssp245', 'ACCESS-CM2', 2052, 'tasmax', 'NEX-GDDP-CMIP6');
    expect(tasmax).toHaveLength(366);
    for (let slot = 0; slot < 366; slot++) expectClose(tasmax[slot]!, fixtureExpected(v11, 2052, slot, c.lat, c.lon), false);
    // v1.0 is 8 K cooler: not what is served.
    expect(tasmax[100]! - NEX6_V11_SHIFT).toBeCloseTo(fixtureExpected({ ...v11, shift: 0 }, 2052, 100, c.lat, c.lon), 3);

    const old = nex.skipped.find((s) => path.basename(s.file) === 'tasmax_day_ACCESS-CM2_ssp245_r1i1p1f1_gn_2052.nc');
    expect(old?.instead && path.basename(old.instead)).toBe('tasmax_day_ACCESS-CM2_ssp245_r1i1p1f1_gn_2052_v1.1.nc');
    expect(old?.reason).toMatch(/^v1\.0, replaced by the newer v1\.1: .*_2052_v1\.1\.nc$/);
    expect(nexLog.some((l) => /skipped .*tasmax_day_ACCESS-CM2_ssp245_r1i1p1f1_gn_2052\.nc: v1\.0, replaced by the newer v1\.1/.test(l))).toBe(true);
    const wind = nex.skipped.find((s) => path.basename(s.file).startsWith('sfcWind_'));
    expect(wind?.reason).toBe('holds sfcWind; the service serves tasmax, tasmin, pr, tas, hurs, huss');
    expect(nex.skipped).toHaveLength(2);
    expect(nex.files).toBe(SAMPLE_FIXTURES.nex6.length - 2);
  });

  it('serves tasmin and pr of a gregorian leap year exactly', async () => {
    const c = cityCell(after, NYC, 'NEX-GDDP-CMIP6');
    const tasminSpec = sample('nex6', { variable: 'tasmin', model: 'ACCESS-CM2' });
    const prSpec = sample('nex6', { variable: 'pr', model: 'ACCESS-CM2' });
    const tasmin = await series(after, String(NYC), 'ssp245', 'ACCESS-CM2', 2052, 'tasmin', 'NEX-GDDP-CMIP6');
    const pr = await series(after, String(NYC), 'ssp245', 'ACCESS-CM2', 2052, 'pr', 'NEX-GDDP-CMIP6');
    for (let slot = 0; slot < 366; slot++) {
      expectClose(tasmin[slot]!, fixtureExpected(tasminSpec, 2052, slot, c.lat, c.lon), false);
      expectClose(pr[slot]!, fixtureExpected(prSpec, 2052, slot, c.lat, c.lon), false);
    }
  });

  it('leaves the dates a 365_day or 360_day model lacks empty, and places its other days in order', async () => {
    const c = cityCell(after, NYC, 'NEX-GDDP-CMIP6');
    const canesm = await series(after, String(NYC), 'ssp585', 'CanESM5', 2052, 'tasmax', 'NEX-GDDP-CMIP6');
    const canSpec = sample('nex6', { model: 'CanESM5' });
    expect(nullSlots(canesm)).toEqual([59]);
    canesm.filter((v) => v !== null).forEach((v, t) => expectClose(v, fixtureExpected(canSpec, 2052, t, c.lat, c.lon), false));

    // 360_day, leap year: Jan 31, Mar 31, Jun 1, Jul 31, Oct 1 and Nov 30 have no day.
    const ukesm = await series(after, String(NYC), 'ssp126', 'UKESM1-0-LL', 2052, 'tasmax', 'NEX-GDDP-CMIP6');
    expect(nullSlots(ukesm)).toEqual([30, 90, 152, 212, 274, 334]);
    const ukSpec = sample('nex6', { model: 'UKESM1-0-LL' });
    ukesm.filter((v) => v !== null).forEach((v, t) => expectClose(v, fixtureExpected(ukSpec, 2052, t, c.lat, c.lon), false));

    // 360_day, common year: Feb 6, Apr 19, Jul 2, Sep 12 and Nov 25, and the 366th slot.
    const hadgem = await series(after, String(NYC), 'ssp585', 'HadGEM3-GC31-LL', 2051, 'tasmax', 'NEX-GDDP-CMIP6');
    expect(nullSlots(hadgem)).toEqual([36, 108, 182, 254, 328, 365]);
    const hgSpec = sample('nex6', { model: 'HadGEM3-GC31-LL' });
    const hadgemDays = hadgem.filter((v) => v !== null);
    expect(hadgemDays).toHaveLength(360);
    hadgemDays.forEach((v, t) => expectClose(v, fixtureExpected(hgSpec, 2051, t, c.lat, c.lon), false));
  });

  it('files GFDL-CM4 on grid gr2 under the model directory GFDL-CM4_gr2', async () => {
    const c = cityCell(after, NYC, 'NEX-GDDP-CMIP6');
    const spec = sample('nex6', { model: 'GFDL-CM4' });
    const gr2 = await series(after, String(NYC), 'historical', 'GFDL-CM4_gr2', 1991, 'tasmax', 'NEX-GDDP-CMIP6');
    expect(nullSlots(gr2)).toEqual([365]);
    for (let t = 0; t < 365; t++) expectClose(gr2[t]!, fixtureExpected(spec, 1991, t, c.lat, c.lon), false);
    // Nothing under GFDL-CM4 (grid gr1) itself; the other models are the suite build's synthetic ones.
    const cell = after.catalog.cityCells.get(NYC)!.get('NEX-GDDP-CMIP6')!;
    const rows = await partitionRows(cellPath(dataDir, 'climate', 'NEX-GDDP-CMIP6', 'historical', cell));
    expect([...new Set(rows.map((r) => r.model))].sort()).toEqual([...new Set([...TEST_BUILD.models['NEX-GDDP-CMIP6']!, 'GFDL-CM4_gr2'])].sort());
  });

  it('reads model, scenario and member from NASA\'s global attributes when the name does not say', async () => {
    const c = cityCell(after, NYC, 'NEX-GDDP-CMIP6');
    const spec = sample('nex6', { model: 'MIROC6' });
    const values = await series(after, String(NYC), 'ssp370', 'MIROC6', 2052, 'tasmax', 'NEX-GDDP-CMIP6');
    for (let t = 0; t < 366; t++) expectClose(values[t]!, fixtureExpected(spec, 2052, t, c.lat, c.lon), false);
  });

  it('records each dataset\'s own years, CMIP6 historical up to 2014', () => {
    const manifest = JSON.parse(fs.readFileSync(path.join(dataDir, 'manifest.json'), 'utf8'));
    // The suite build's synthetic CMIP6 years (historical 1990-1992, SSPs 2050-2052), widened by the
    // files': NEX-GDDP-CMIP6 historical 1991 and 2014, SSPs 2051-2052; LOCA2 ssp245 2015-2044, ssp585 2075-2100.
    expect(manifest.dataset_years['NEX-GDDP-CMIP6']).toEqual({ historical: [1990, 2014], ssp126: [2050, 2052], ssp245: [2050, 2052], ssp370: [2050, 2052], ssp585: [2050, 2052] });
    expect(manifest.dataset_years.LOCA2).toEqual({ historical: [1990, 1992], ssp245: [2015, 2052], ssp370: [2050, 2052], ssp585: [2050, 2100] });
    // The build-wide years are shared with the CMIP5 datasets, whose historical ends in 2005: unchanged.
    expect(manifest.years.historical).toEqual(TEST_BUILD.years.historical);
    expect(manifest.years.ssp245).toEqual([2015, 2052]);
  });

  // Needs the API to take a CMIP6 dataset's historical years from the dataset (1950-2014), not
  // from the build-wide years shared with CMIP5 (historical ends in 2005).
  it('serves a CMIP6 historical year after 2005 (2014)', async () => {
    const c = cityCell(after, NYC, 'NEX-GDDP-CMIP6');
    const spec = sample('nex6', { model: 'ACCESS-CM2', scenario: 'historical' });
    const res = await get(after, `/api/climate-data/${NYC}/historical/?dataset=NEX-GDDP-CMIP6&models=ACCESS-CM2&years=2014&variables=tasmax`).expect(200);
    const tasmax = res.body.data?.['2014']?.tasmax as (number | null)[] | undefined;
    expect(tasmax, 'no 2014 in the response: the API does not serve CMIP6 historical years after 2005').toBeDefined();
    expect(nullSlots(tasmax!)).toEqual([365]);
    for (let t = 0; t < 365; t++) expectClose(tasmax![t]!, fixtureExpected(spec, 2014, t, c.lat, c.lon), false);
  });

  it('counts the days where tasmin is above tasmax, reports them per file and serves them as published', async () => {
    const inv = nex.inverted;
    expect(inv).toHaveLength(1);
    expect(inv[0]).toMatchObject({ model: 'ACCESS-CM2', scenario: 'ssp245', dates: 3, first_date: '2052-01-11' });
    expect(path.basename(inv[0]!.tasmin_file)).toBe('tasmin_day_ACCESS-CM2_ssp245_r1i1p1f1_gn_2052.nc');
    // Compared with the tasmax served: the newer version.
    expect(path.basename(inv[0]!.tasmax_file)).toBe('tasmax_day_ACCESS-CM2_ssp245_r1i1p1f1_gn_2052_v1.1.nc');
    expect(inv[0]!.cell_days % 3).toBe(0);
    expect(inv[0]!.max_excess).toBeCloseTo(10 - NEX6_V11_SHIFT, 3);
    expect(nexLog.some((l) => /warning: tasmin > tasmax on \d+ cell-days \(3 dates from 2052-01-11, up to 2\.00 K\) of ACCESS-CM2 ssp245: tasmin_day_ACCESS-CM2/.test(l))).toBe(true);
    const tasmin = await series(after, String(NYC), 'ssp245', 'ACCESS-CM2', 2052, 'tasmin', 'NEX-GDDP-CMIP6');
    const tasmax = await series(after, String(NYC), 'ssp245', 'ACCESS-CM2', 2052, 'tasmax', 'NEX-GDDP-CMIP6');
    expect([10, 11, 200].map((s) => tasmin[s]! > tasmax[s]!)).toEqual([true, true, true]);
    expect(tasmin.filter((v, s) => v! > tasmax[s]!)).toHaveLength(3);

    expect(loca.inverted).toHaveLength(1);
    expect(loca.inverted[0]).toMatchObject({ model: 'ACCESS-CM2', scenario: 'ssp245', dates: 1, first_date: '2015-01-01' });
  });

  it('reads LOCA2 30-year files, serves the revised pr (v20240915) over v20220519, skips the monthly aggregate', async () => {
    const c = cityCell(after, NYC, 'LOCA2');
    expect([c.lat, c.lon]).toEqual([40.71875, -74.03125]);
    const specs = {
      tasmax: sample('loca2', { variable: 'tasmax', model: 'ACCESS-CM2' }),
      tasmin: sample('loca2', { variable: 'tasmin', model: 'ACCESS-CM2' }),
      pr: sample('loca2', { variable: 'pr', version: '20240915' }),
    };
    for (const year of [2015, 2028, 2044]) {
      const days = year % 4 === 0 ? 366 : 365;
      for (const variable of ['tasmax', 'tasmin', 'pr'] as const) {
        const values = await series(after, String(NYC), 'ssp245', 'ACCESS-CM2', year, variable, 'LOCA2');
        expect(nullSlots(values), `${variable} ${year}`).toEqual(days === 366 ? [] : [365]);
        for (let t = 0; t < days; t++) expectClose(values[t]!, fixtureExpected(specs[variable], year, t, c.lat, c.lon), false);
        if (variable === 'pr') {
          const original = fixtureExpected({ ...specs.pr, shift: 0 }, year, 3, c.lat, c.lon);
          expect(values[3]! - original).toBeCloseTo(LOCA2_PR_REVISION_SHIFT, 9);
        }
      }
    }
    const replaced = loca.skipped.find((s) => s.file.endsWith('LOCA_16thdeg_v20220519.nc'));
    expect(replaced?.reason).toMatch(/^v20220519, replaced by the newer v20240915: .*pr\.ACCESS-CM2\.ssp245\.r1i1p1f1\.2015-2044\.LOCA_16thdeg_v20240915\.nc$/);
    const monthly = loca.skipped.find((s) => s.file.endsWith('.monthly.nc'));
    expect(monthly?.reason).toMatch(/^a LOCA2 monthly aggregate, not daily values/);
    expect(locaLog.some((l) => /skipped .*v20240915\.monthly\.nc: a LOCA2 monthly aggregate, not daily values/.test(l))).toBe(true);
    expect(loca.skipped).toHaveLength(2);
  });

  it('reads a LOCA2 region-split file', async () => {
    const c = cityCell(after, NYC, 'LOCA2');
    const spec = sample('loca2', { region: 'n_east' });
    const values = await series(after, String(NYC), 'ssp585', 'HadGEM3-GC31-LL', 2100, 'tasmax', 'LOCA2');
    expect(nullSlots(values)).toEqual([365]);
    for (const t of [0, 180, 364]) expectClose(values[t]!, fixtureExpected(spec, 2100, t, c.lat, c.lon), false);
  });

  it('writes the heat-wave summaries of a CMIP6 dataset against its four historic ranges, 1981-2010 included', async () => {
    const db = await openDuckDB({ threads: 1, memoryLimit: '256MB' });
    const conn = await db.connect();
    try {
      expect(rangesOfDataset(await historicRanges(conn, dataDir), 'NEX-GDDP-CMIP6').map((r) => r.start_year)).toEqual([1951, 1961, 1971, 1981]);
      expect(rangesOfDataset(await historicRanges(conn, dataDir), 'NEX-GDDP').map((r) => r.start_year)).toEqual([1951, 1961, 1971]);
      // The cell's historical days: GFDL-CM4_gr2 1991 (in 1971-2000 and 1981-2010), ACCESS-CM2 2014
      // (in none) and the suite build's synthetic 1990-1992 (1990 is in 1961-1990 too); ACCESS-CM2's
      // ssp245 2052 is 8 K warmer than v1.0, so its days are flagged against every range with a norm.
      const cell = after.catalog.cityCells.get(NYC)!.get('NEX-GDDP-CMIP6')!;
      const file = cellPath(dataDir, 'monthly', 'NEX-GDDP-CMIP6', 'ssp245', cell);
      expect(await heatRangesOf(conn, file)).toEqual([1961, 1971, 1981]);
    } finally {
      conn.closeSync();
      await db.close();
    }
  });
});

describe('make ingest: CMIP6 files the ingest refuses', () => {
  let dataDir: string;
  beforeAll(() => {
    dataDir = copyOfTestData(tmpRoot, 'failures');
  });
  const NYC_NEX = { lat: [40.625, 40.875] as [number, number], lon: [-74.125, -73.875] as [number, number], lon360: true };
  const NYC_LOCA2 = { lat: [40.71875, 40.71875] as [number, number], lon: [-74.03125, -74.03125] as [number, number], lon360: true };
  const nex6: FixtureSpec = { layout: 'NEX-GDDP-CMIP6', variable: 'tasmax', model: 'ACCESS-CM2', scenario: 'ssp245', year: 2052, calendar: 'gregorian', ...NYC_NEX };
  const loca2: FixtureSpec = { layout: 'LOCA2', variable: 'tasmax', model: 'ACCESS-CM2', scenario: 'ssp245', year: 2015, endYear: 2044, calendar: 'gregorian', ...NYC_LOCA2 };

  const failing = async (dataset: string, name: string, spec: FixtureSpec) => {
    const dir = path.join(tmpRoot, 'bad', dataset, name);
    const file = await writeFixture(dir, spec);
    const err = await ingestNetcdf({ dataDir, dataset, sources: [dir], log: () => {} }).then(
      () => null,
      (e: unknown) => e,
    );
    expect(err).toBeInstanceOf(IngestError);
    expect((err as Error).message.startsWith(`${file}: `), (err as Error).message).toBe(true);
    return (err as Error).message;
  };

  it('refuses a standard-calendar year with 364 daily steps or with a day missing, saying why', async () => {
    expect(await failing('NEX-GDDP-CMIP6', '364', { ...nex6, scenario: 'ssp585', year: 2015, steps: 364 })).toMatch(
      /it has 364 daily steps for 2015, whose year has 365 days on the gregorian calendar\. A year missing days cannot be placed on real dates without guessing which days are gone \(IITM-ESM in NEX-GDDP-CMIP6 has such 364-day years\), so the file is refused$/,
    );
    expect(await failing('NEX-GDDP-CMIP6', 'gap', { ...nex6, year: 2016, dropSteps: [182] })).toMatch(
      /it has 365 daily steps for 2016, whose year has 366 days on the gregorian calendar; no step for 1 day\(s\) of its calendar \(1 after 2016-06-30\)\. A year missing days/,
    );
    expect(await failing('NEX-GDDP-CMIP6', 'iitm', { ...nex6, model: 'IITM-ESM', scenario: 'historical', year: 2010 })).toMatch(
      /model 'IITM-ESM' is not a NEX-GDDP-CMIP6 model of this service: NEX-GDDP-CMIP6 has no daily tasmax or tasmin for IITM-ESM, and its years divisible by 5 have 364 daily steps/,
    );
  });

  it('refuses a member or grid other than the catalog\'s run, and a scenario the model lacks', async () => {
    expect(await failing('NEX-GDDP-CMIP6', 'member', { ...nex6, member: 'r2i1p1f1' })).toMatch(
      /its ensemble member is r2i1p1f1, but NEX-GDDP-CMIP6 offers ACCESS-CM2 as member r1i1p1f1, the run the catalog lists; expected member r1i1p1f1$/,
    );
    expect(await failing('NEX-GDDP-CMIP6', 'grid', { ...nex6, model: 'GFDL-CM4', gridLabel: 'gr3', scenario: 'historical', year: 1991, calendar: 'noleap' })).toMatch(
      /its grid label is gr3, but NEX-GDDP-CMIP6's GFDL-CM4 files have grid label gr1; expected grid gr1 \(gr2 files belong to GFDL-CM4_gr2\)$/,
    );
    expect(await failing('NEX-GDDP-CMIP6', 'scenario', { ...nex6, model: 'GFDL-CM4', gridLabel: 'gr1', scenario: 'ssp126', calendar: 'noleap' })).toMatch(
      /model GFDL-CM4 has no ssp126 in NEX-GDDP-CMIP6 \(its scenarios: historical, ssp245, ssp585\)$/,
    );
    expect(await failing('LOCA2', 'scenario', { ...loca2, model: 'TaiESM1', scenario: 'ssp585' })).toMatch(
      /model TaiESM1 has no ssp585 in LOCA2 \(its scenarios: historical, ssp245, ssp370\)$/,
    );
    expect(await failing('LOCA2', 'member', { ...loca2, model: 'HadGEM3-GC31-LL', member: 'r1i1p1f1' })).toMatch(
      /offers HadGEM3-GC31-LL as member r1i1p1f3, the run the catalog lists; expected member r1i1p1f3$/,
    );
  });

  it('takes the years from the dataset: historical to 2014, and the years the name states', async () => {
    expect(await failing('NEX-GDDP-CMIP6', 'historical', { ...nex6, scenario: 'historical', year: 2015 })).toMatch(
      /its dates run from 2015-01-01 to 2015-12-31, outside historical's years 1950-2014 in NEX-GDDP-CMIP6$/,
    );
    expect(await failing('NEX-GDDP-CMIP6', 'named', { ...nex6, year: 2051, fileName: 'tasmax_day_ACCESS-CM2_ssp245_r1i1p1f1_gn_2052' })).toMatch(
      /its dates run from 2051-01-01 to 2051-12-31, outside the year 2052 its name states$/,
    );
  });

  it('skips a LOCA2 monthly aggregate, and fails naming it when nothing else is given', async () => {
    const dir = path.join(tmpRoot, 'bad', 'monthly');
    const file = await writeFixture(dir, { ...loca2, variable: 'pr', aggregate: 'monthly' });
    const log: string[] = [];
    await expect(ingestNetcdf({ dataDir, dataset: 'LOCA2', sources: [dir], log: (l) => log.push(l) })).rejects.toThrow(
      /^none of the 1 NetCDF files in .* holds daily values to read \(each was skipped, as listed above\)$/,
    );
    expect(log.join('\n')).toContain(`skipped ${file}: a LOCA2 monthly aggregate, not daily values (the ingest reads the daily files, named without .monthly)`);
  });
});
