import request from 'supertest';
import { beforeAll, describe, expect, it } from 'vitest';
import { testApp, type TestApp } from './helpers.js';

/**
 * The CMIP6 datasets in the catalog, checked against the lists of ../shared/reference/cmip6.md
 * (written out here, not read from src/reference/fixtures.ts, so that a slip in either shows), and
 * how requests pair datasets, scenarios, models and historic ranges.
 */

let t: TestApp;
const get = (url: string) => request(t.app).get(url).set('Authorization', `Token ${t.token}`);
const NYC = 5128581;

beforeAll(async () => {
  t = await testApp({ THROTTLE_BURST_RATE: '1000000/min', THROTTLE_SUSTAINED_RATE: '100000000/day' });
});

const ALL = ['historical', 'ssp126', 'ssp245', 'ssp370', 'ssp585'];
/** Reference section 1.5 without CESM2, CESM2-WACCM and IITM-ESM (no tasmax/tasmin): directory -> member, grid, calendar, scenarios. */
const NEX6: Record<string, [string, string, string, string[]]> = {
  'ACCESS-CM2': ['r1i1p1f1', 'gn', 'standard', ALL],
  'ACCESS-ESM1-5': ['r1i1p1f1', 'gn', 'standard', ALL],
  'BCC-CSM2-MR': ['r1i1p1f1', 'gn', 'noleap', ALL],
  CanESM5: ['r1i1p1f1', 'gn', 'noleap', ALL],
  'CMCC-CM2-SR5': ['r1i1p1f1', 'gn', 'noleap', ALL],
  'CMCC-ESM2': ['r1i1p1f1', 'gn', 'noleap', ALL],
  'CNRM-CM6-1': ['r1i1p1f2', 'gr', 'standard', ALL],
  'CNRM-ESM2-1': ['r1i1p1f2', 'gr', 'standard', ALL],
  'EC-Earth3': ['r1i1p1f1', 'gr', 'standard', ALL],
  'EC-Earth3-Veg-LR': ['r1i1p1f1', 'gr', 'standard', ALL],
  'FGOALS-g3': ['r3i1p1f1', 'gn', 'noleap', ALL],
  'GFDL-CM4': ['r1i1p1f1', 'gr1', 'noleap', ['historical', 'ssp245', 'ssp585']],
  'GFDL-CM4_gr2': ['r1i1p1f1', 'gr2', 'noleap', ['historical', 'ssp245', 'ssp585']],
  'GFDL-ESM4': ['r1i1p1f1', 'gr1', 'noleap', ALL],
  'GISS-E2-1-G': ['r1i1p1f2', 'gn', 'noleap', ALL],
  'HadGEM3-GC31-LL': ['r1i1p1f3', 'gn', '360_day', ALL],
  'HadGEM3-GC31-MM': ['r1i1p1f3', 'gn', '360_day', ['historical', 'ssp126', 'ssp245', 'ssp585']],
  'INM-CM4-8': ['r1i1p1f1', 'gr1', 'noleap', ALL],
  'INM-CM5-0': ['r1i1p1f1', 'gr1', 'noleap', ALL],
  'IPSL-CM6A-LR': ['r1i1p1f1', 'gr', 'standard', ALL],
  'KACE-1-0-G': ['r1i1p1f1', 'gr', '360_day', ALL],
  'KIOST-ESM': ['r1i1p1f1', 'gr1', 'noleap', ['historical', 'ssp126', 'ssp245', 'ssp585']],
  'MIROC-ES2L': ['r1i1p1f2', 'gn', 'standard', ALL],
  MIROC6: ['r1i1p1f1', 'gn', 'standard', ALL],
  'MPI-ESM1-2-HR': ['r1i1p1f1', 'gn', 'standard', ALL],
  'MPI-ESM1-2-LR': ['r1i1p1f1', 'gn', 'standard', ALL],
  'MRI-ESM2-0': ['r1i1p1f1', 'gn', 'standard', ALL],
  NESM3: ['r1i1p1f1', 'gn', 'standard', ['historical', 'ssp126', 'ssp245', 'ssp585']],
  'NorESM2-LM': ['r1i1p1f1', 'gn', 'noleap', ALL],
  'NorESM2-MM': ['r1i1p1f1', 'gn', 'noleap', ALL],
  TaiESM1: ['r1i1p1f1', 'gn', 'noleap', ALL],
  'UKESM1-0-LL': ['r1i1p1f2', 'gn', '360_day', ALL],
};

/** Reference section 2.4: the SSPs each model's first member has ("–" cells left out). */
const LOCA2: Record<string, string[]> = {
  'ACCESS-CM2': ['ssp245', 'ssp370', 'ssp585'],
  'ACCESS-ESM1-5': ['ssp245', 'ssp370', 'ssp585'],
  'AWI-CM-1-1-MR': ['ssp245', 'ssp370', 'ssp585'],
  'BCC-CSM2-MR': ['ssp245', 'ssp370', 'ssp585'],
  'CESM2-LENS': ['ssp370'],
  'CNRM-CM6-1': ['ssp245', 'ssp370', 'ssp585'],
  'CNRM-CM6-1-HR': ['ssp585'],
  'CNRM-ESM2-1': ['ssp245', 'ssp370', 'ssp585'],
  CanESM5: ['ssp245', 'ssp370', 'ssp585'],
  'EC-Earth3': ['ssp245', 'ssp370', 'ssp585'],
  'EC-Earth3-Veg': ['ssp245', 'ssp370', 'ssp585'],
  'FGOALS-g3': ['ssp245', 'ssp370', 'ssp585'],
  'GFDL-CM4': ['ssp245', 'ssp585'],
  'GFDL-ESM4': ['ssp245', 'ssp370', 'ssp585'],
  'HadGEM3-GC31-LL': ['ssp245', 'ssp585'],
  'HadGEM3-GC31-MM': ['ssp585'],
  'INM-CM4-8': ['ssp245', 'ssp370', 'ssp585'],
  'INM-CM5-0': ['ssp245', 'ssp370', 'ssp585'],
  'IPSL-CM6A-LR': ['ssp245', 'ssp370', 'ssp585'],
  'KACE-1-0-G': ['ssp245', 'ssp370', 'ssp585'],
  MIROC6: ['ssp245', 'ssp370', 'ssp585'],
  'MPI-ESM1-2-HR': ['ssp245', 'ssp370', 'ssp585'],
  'MPI-ESM1-2-LR': ['ssp245', 'ssp370', 'ssp585'],
  'MRI-ESM2-0': ['ssp245', 'ssp370', 'ssp585'],
  'NorESM2-LM': ['ssp245', 'ssp370', 'ssp585'],
  'NorESM2-MM': ['ssp245', 'ssp370', 'ssp585'],
  TaiESM1: ['ssp245', 'ssp370'],
};
const LOCA2_FORCING: Record<string, string> = { 'CNRM-CM6-1': 'f2', 'CNRM-CM6-1-HR': 'f2', 'CNRM-ESM2-1': 'f2', 'HadGEM3-GC31-LL': 'f3', 'HadGEM3-GC31-MM': 'f3' };

type Run = { dataset: string; member: string | null; grid_label: string | null; calendar: string; scenarios: string[] };
const runIn = (model: { runs: Run[] }, dataset: string) => model.runs.find((r) => r.dataset === dataset);

describe('the CMIP6 catalog against the reference lists', () => {
  it('lists both datasets with grid, generation, scenarios and years, and one member per model said in the description', async () => {
    const nex = (await get('/api/dataset/NEX-GDDP-CMIP6/').expect(200)).body;
    expect(nex.generation).toBe('CMIP6');
    expect(nex.grid).toMatch(/0\.25 degree/);
    expect(nex.url).toMatch(/^https:\/\//);
    expect(nex.scenarios).toEqual([
      { name: 'historical', start_year: 1950, end_year: 2014 },
      ...['ssp126', 'ssp245', 'ssp370', 'ssp585'].map((name) => ({ name, start_year: 2015, end_year: 2100 })),
    ]);
    expect([...nex.models].sort()).toEqual(Object.keys(NEX6).sort());
    expect(nex.description).toMatch(/one ensemble member per model/);
    const loca2 = (await get('/api/dataset/LOCA2/').expect(200)).body;
    expect(loca2.generation).toBe('CMIP6');
    expect(loca2.grid).toMatch(/1\/16 degree/);
    expect(loca2.scenarios.map((s: { name: string }) => s.name)).toEqual(['historical', 'ssp245', 'ssp370', 'ssp585']);
    expect([...loca2.models].sort()).toEqual(Object.keys(LOCA2).sort());
    expect(loca2.description).toMatch(/one per model, the first listed/);
    for (const d of [nex, loca2]) expect(d.description).toMatch(/synthetic/);
  });

  it('gives each NEX-GDDP-CMIP6 model its member, grid label, calendar and scenarios', async () => {
    const models = (await get('/api/climate-model/').expect(200)).body as { name: string; runs: Run[] }[];
    const nex = models.filter((m) => runIn(m, 'NEX-GDDP-CMIP6'));
    expect(nex).toHaveLength(32);
    for (const m of nex) {
      const [member, grid, calendar, scenarios] = NEX6[m.name]!;
      expect(runIn(m, 'NEX-GDDP-CMIP6'), m.name).toEqual({ dataset: 'NEX-GDDP-CMIP6', member, grid_label: grid, calendar, scenarios });
    }
    // Directories without daily temperatures are not served.
    for (const name of ['CESM2', 'CESM2-WACCM', 'IITM-ESM']) await get(`/api/climate-model/${name}/`).expect(404);
  });

  it('gives each LOCA2 model its first member and scenarios: 24, 23 and 25 models per SSP', async () => {
    const models = (await get('/api/climate-model/').expect(200)).body as { name: string; runs: Run[] }[];
    const loca2 = models.filter((m) => runIn(m, 'LOCA2'));
    expect(loca2).toHaveLength(27);
    for (const m of loca2) {
      const run = runIn(m, 'LOCA2')!;
      expect(run.member, m.name).toBe(`r1i1p1${LOCA2_FORCING[m.name] ?? 'f1'}`);
      expect(run.calendar).toBe('standard');
      expect(run.scenarios, m.name).toEqual(['historical', ...LOCA2[m.name]!]);
    }
    const count = (s: string) => loca2.filter((m) => runIn(m, 'LOCA2')!.scenarios.includes(s)).length;
    expect([count('ssp245'), count('ssp370'), count('ssp585')]).toEqual([24, 23, 25]);
    // A model of both CMIP6 datasets has one run in each, with the calendars of each.
    const hadgem = (await get('/api/climate-model/HadGEM3-GC31-LL/').expect(200)).body;
    expect(hadgem.datasets).toEqual(['NEX-GDDP-CMIP6', 'LOCA2']);
    expect(hadgem.runs.map((r: Run) => r.calendar)).toEqual(['360_day', 'standard']);
  });

  it('keeps the CMIP5 entries an old client reads', async () => {
    const datasets = (await get('/api/dataset/').expect(200)).body;
    expect(datasets.slice(0, 2).map((d: { name: string }) => d.name)).toEqual(['NEX-GDDP', 'LOCA']);
    const scenarios = (await get('/api/scenario/').expect(200)).body.map((s: { name: string }) => s.name);
    expect(scenarios.slice(0, 3)).toEqual(['RCP45', 'RCP85', 'historical']);
    const ranges = (await get('/api/historic-range/?dataset=NEX-GDDP').expect(200)).body;
    expect(ranges.map((r: { start_year: number; end_year: number }) => [r.start_year, r.end_year])).toEqual([[1951, 1980], [1961, 1990], [1971, 2000]]);
    // The indicator metadata keeps the default dataset's default range.
    const meta = (await get('/api/indicator/heat_wave_incidents/').expect(200)).body;
    expect(meta.parameters.find((p: { name: string }) => p.name === 'historic_range').default).toBe('1971');
  });
});

describe('datasets, scenarios and models together', () => {
  const detail = async (url: string) => {
    const res = await get(url);
    expect(res.status, url).toBe(400);
    return res.body.detail as string;
  };

  it('refuses a scenario the dataset does not have, naming its scenarios', async () => {
    expect(await detail(`/api/climate-data/${NYC}/ssp245/?dataset=NEX-GDDP`)).toBe('Dataset NEX-GDDP has no scenario ssp245; its scenarios are historical, RCP45, RCP85.');
    expect(await detail(`/api/climate-data/${NYC}/RCP85/indicator/frost_days/?dataset=LOCA2`)).toBe('Dataset LOCA2 has no scenario RCP85; its scenarios are historical, ssp245, ssp370, ssp585.');
    expect(await detail(`/api/climate-data/${NYC}/ssp126/indicator/frost_days/?dataset=LOCA2`)).toMatch(/^Dataset LOCA2 has no scenario ssp126/);
    // The default dataset is still NEX-GDDP.
    expect(await detail(`/api/climate-data/${NYC}/ssp585/`)).toMatch(/^Dataset NEX-GDDP has no scenario ssp585/);
  });

  it('refuses a model without a run of the scenario, naming the model and the scenario', async () => {
    const text = await detail(`/api/climate-data/${NYC}/ssp585/indicator/frost_days/?dataset=LOCA2&models=ACCESS-CM2,TaiESM1`);
    expect(text).toMatch(/^In LOCA2, model\(s\) TaiESM1 have no ssp585 run\. Its models with ssp585: ACCESS-CM2, /);
    expect(text).not.toMatch(/TaiESM1, /);
    expect(await detail(`/api/climate-data/${NYC}/ssp370/?dataset=NEX-GDDP-CMIP6&models=GFDL-CM4_gr2`)).toMatch(/^In NEX-GDDP-CMIP6, model\(s\) GFDL-CM4_gr2 have no ssp370 run/);
    // A CMIP6 model is not a CMIP5 dataset's.
    expect(await detail(`/api/climate-data/${NYC}/RCP85/?models=ACCESS-CM2`)).toMatch(/^Dataset NEX-GDDP has no data for model\(s\): ACCESS-CM2\./);
  });

  it('refuses the 1981-2010 range on a CMIP5 dataset, saying why', async () => {
    expect(await detail(`/api/climate-data/${NYC}/RCP85/indicator/heat_wave_incidents/?historic_range=1981`)).toBe(
      "historic_range must be the start year of one of the historic ranges: 1951, 1961, 1971; 1981-2010 is a range of NEX-GDDP-CMIP6, LOCA2 only: NEX-GDDP's historical run ends in 2005.",
    );
    expect(await detail(`/api/climate-data/${NYC}/RCP85/indicator/frost_days/?dataset=LOCA&relative_to=1981`)).toBe(
      "relative_to must be the start year of a historic range (1951, 1961, 1971) or a span YYYY:YYYY of at least 10 historical years; 1981-2010 is a range of NEX-GDDP-CMIP6, LOCA2 only: LOCA's historical run ends in 2005.",
    );
  });
});

describe('CMIP6 data through the other endpoints (the suite build has it for New York City)', () => {
  it("lists the city's CMIP6 map cells after the CMIP5 ones", async () => {
    const city = (await get(`/api/city/${NYC}/`).expect(200)).body;
    expect(city.properties.datasets).toEqual(['NEX-GDDP', 'LOCA', 'NEX-GDDP-CMIP6', 'LOCA2']);
    const cell = (await get(`/api/city/${NYC}/map-cell/LOCA2/`).expect(200)).body;
    expect(cell.properties.dataset).toBe('LOCA2');
    const [lon, lat] = city.geometry.coordinates;
    const here = (await get(`/api/map-cell/${lat}/${lon}/`).expect(200)).body.map((f: { properties: { datasets: string[] } }) => f.properties.datasets[0]);
    expect([...here].sort()).toEqual(['LOCA', 'LOCA2', 'NEX-GDDP', 'NEX-GDDP-CMIP6']);
  });

  it('takes the 1981-2010 range on CMIP6 and makes it the default there', async () => {
    const url = `/api/climate-data/${NYC}/ssp585/indicator/extreme_heat_events/?dataset=NEX-GDDP-CMIP6`;
    const byDefault = (await get(url).expect(200)).body;
    expect(byDefault.indicator.parameters.find((p: { name: string }) => p.name === 'historic_range').default).toBe('1981');
    expect((await get(`${url}&historic_range=1981`).expect(200)).body.data).toEqual(byDefault.data);
    // The suite's historical years (1990-1992) lie in both ranges, so 1971 gives the same here.
    expect((await get(`${url}&historic_range=1971`).expect(200)).body.data).toEqual(byDefault.data);
  });

  it("answers every model of the dataset with the scenario for models=all, and CSV", async () => {
    const body = (await get(`/api/climate-data/${NYC}/ssp585/indicator/frost_days/?dataset=LOCA2`).expect(200)).body;
    expect(body.climate_models).toEqual(Object.keys(LOCA2).filter((m) => LOCA2[m]!.includes('ssp585')));
    expect(body.climate_models).toHaveLength(25);
    const csv = await get(`/api/climate-data/${NYC}/ssp245/indicator/frost_days/?dataset=LOCA2&format=csv`).expect(200).expect('Content-Type', /text\/csv/);
    expect(csv.text).toMatch(/LOCA2/);
    expect(csv.text).toMatch(/ssp245/);
  });

  it("answers an area on NEX-GDDP-CMIP6: one cell's area is that cell's answer", async () => {
    const city = t.catalog.cityById.get(NYC)!;
    const cellId = t.catalog.cityCells.get(NYC)!.get('NEX-GDDP-CMIP6')!;
    const cell = t.catalog.mapCells.get('NEX-GDDP-CMIP6', cellId)!;
    const d = 0.1;
    const bbox = [cell.lon - d, cell.lat - d, cell.lon + d, cell.lat + d].join(',');
    const qs = 'dataset=NEX-GDDP-CMIP6&agg=min,median,max&time_aggregation=quarterly';
    const area = (await get(`/api/climate-data/area/ssp245/indicator/frost_days/?bbox=${bbox}&${qs}`).expect(200)).body;
    expect(area.dataset).toBe('NEX-GDDP-CMIP6');
    expect(area.area.properties.cells_with_data).toBe(1);
    const point = (await get(`/api/climate-data/${cell.lat}/${cell.lon}/ssp245/indicator/frost_days/?${qs}`).expect(200)).body;
    expect(area.data).toEqual(point.data);
    // The whole city: every NEX-GDDP-CMIP6 cell of its boundary has data in the suite's build.
    const whole = (await get(`/api/climate-data/area/ssp245/indicator/frost_days/?city=${city.id}&dataset=NEX-GDDP-CMIP6`).expect(200)).body;
    expect(whole.area.properties.cells_with_data).toBe(whole.area.properties.cells_in_area);
  });
});

describe('a model the cell has no rows for (a partial ingest, a build of a few models)', () => {
  it('answers raw data without values, in JSON, CSV and Arrow, instead of failing', async () => {
    // GFDL-CM4 is a NEX-GDDP-CMIP6 model, but the suite's build has three others.
    const url = `/api/climate-data/${NYC}/historical/?dataset=NEX-GDDP-CMIP6&models=GFDL-CM4&years=1991`;
    expect((await get(url).expect(200)).body.data).toEqual({});
    const csv = await get(`${url}&format=csv`).expect(200);
    expect(csv.text.trim().split('\n')).toHaveLength(1);
    await get(`${url}&format=arrow`).expect(200);
    // The same for a CMIP5 model outside the suite's build.
    expect((await get(`/api/climate-data/${NYC}/RCP85/?models=BNU-ESM&years=2051`).expect(200)).body.data).toEqual({});
  });
});
