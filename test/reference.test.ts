import request from 'supertest';
import { beforeAll, describe, expect, it } from 'vitest';
import { decode } from 'geobuf';
import Pbf from 'pbf';
import type { City } from '../src/reference/catalog.js';
import { cellAt, cellCentre, GRIDS } from '../src/reference/grids.js';
import { storedBoundary, testApp, type TestApp } from './helpers.js';

const NYC = 5128581;
const LA = 5368361;
const CHICAGO = 4887398;

let t: TestApp;
const get = (url: string) => request(t.app).get(url).set('Authorization', `Token ${t.token}`);

beforeAll(async () => {
  t = await testApp();
});

describe('GET /api/city/', () => {
  it('returns a paginated GeoJSON feature collection ordered by name, admin', async () => {
    const res = await get('/api/city/').expect(200).expect('Content-Type', /application\/json/);
    expect(res.body.type).toBe('FeatureCollection');
    expect(res.body.count).toBe(t.catalog.cities.length);
    expect(res.body.count).toBeGreaterThan(4000);
    expect(res.body.features).toHaveLength(20);
    expect(res.body.previous).toBeNull();
    expect(res.body.next).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/api\/city\/\?page=2$/);
    const names = res.body.features.map((f: { properties: { name: string } }) => f.properties.name.toLowerCase());
    expect(names).toEqual([...names].sort());
  });

  it('serialises a city as the spec says', async () => {
    const res = await get(`/api/city/?name=New York City&admin=NY`).expect(200);
    expect(res.body.count).toBe(1);
    const f = res.body.features[0];
    expect(f.id).toBe(NYC);
    expect(f.type).toBe('Feature');
    expect(f.geometry.type).toBe('Point');
    expect(f.geometry.coordinates).toEqual([-74.00597, 40.71427]);
    expect(f.properties).toMatchObject({ name: 'New York City', admin: 'NY', population: 8175133 });
    expect(f.properties.proximity).toEqual({ ocean: true, coastal: true });
    // The suite's build has CMIP6 data for New York City, listed after the CMIP5 datasets.
    expect(f.properties.datasets).toEqual(['NEX-GDDP', 'LOCA', 'NEX-GDDP-CMIP6', 'LOCA2']);
    expect(typeof f.properties.region).toBe('number');
  });

  it('lists only datasets with data for the city', async () => {
    const small = t.catalog.cities.find((c: City) => c.population < 11000 && c.admin === 'TX')!;
    const res = await get(`/api/city/${small.id}/`).expect(200);
    expect(res.body.properties.datasets).toEqual([]);
  });

  it('pages with page and page_size, with next and previous links', async () => {
    const p1 = await get('/api/city/?page_size=5').expect(200);
    const p2 = await get('/api/city/?page_size=5&page=2').expect(200);
    const p3 = await get('/api/city/?page_size=5&page=3').expect(200);
    expect(p2.body.features[0].id).not.toBe(p1.body.features[0].id);
    expect(p2.body.previous).toMatch(/\/api\/city\/\?page_size=5$/);
    expect(p3.body.previous).toMatch(/page=2/);
    expect(p2.body.next).toMatch(/page=3/);
    const last = await get('/api/city/?page_size=1000&page=last').expect(200);
    expect(last.body.next).toBeNull();
    expect(last.body.features.length).toBe(t.catalog.cities.length % 1000 || 1000);
  });

  it('answers 404 Invalid page past the end and 400 for malformed paging', async () => {
    expect((await get('/api/city/?page=999').expect(404)).body).toEqual({ detail: 'Invalid page.' });
    expect((await get('/api/city/?page=0').expect(400)).body.detail).toMatch(/^page /);
    expect((await get('/api/city/?page=abc').expect(400)).body.detail).toMatch(/^page /);
    expect((await get('/api/city/?page_size=0').expect(400)).body.detail).toMatch(/^page_size must be an integer between 1 and 1000/);
    expect((await get('/api/city/?page_size=x').expect(400)).body.detail).toMatch(/^page_size /);
  });

  it('orders by several fields with - for descending', async () => {
    const res = await get('/api/city/?ordering=-population&page_size=3').expect(200);
    expect(res.body.features.map((f: { id: number }) => f.id)).toEqual([NYC, LA, CHICAGO]);
    const byAdmin = await get('/api/city/?ordering=admin,-population&page_size=100').expect(200);
    const rows = byAdmin.body.features.map((f: { properties: { admin: string; population: number } }) => f.properties);
    for (let i = 1; i < rows.length; i++) {
      expect(rows[i].admin >= rows[i - 1].admin).toBe(true);
      if (rows[i].admin === rows[i - 1].admin) expect(rows[i].population).toBeLessThanOrEqual(rows[i - 1].population);
    }
    const byRegion = await get('/api/city/?ordering=region,name&page_size=50').expect(200);
    const regions = byRegion.body.features.map((f: { properties: { region: number } }) => f.properties.region);
    expect(regions).toEqual([...regions].sort((a, b) => a - b));
  });

  it('rejects unknown ordering fields naming the allowed ones', async () => {
    const res = await get('/api/city/?ordering=id').expect(400);
    expect(res.body.detail).toMatch(/ordering .*name, admin, population, region/);
  });

  it('filters by name, admin and search (case-insensitive contains)', async () => {
    const byName = await get('/api/city/?name=springfield&page_size=100').expect(200);
    expect(byName.body.count).toBeGreaterThan(3);
    for (const f of byName.body.features) expect(f.properties.name.toLowerCase()).toContain('springfield');
    const byAdmin = await get('/api/city/?admin=vt&page_size=100').expect(200);
    expect(byAdmin.body.count).toBeGreaterThan(0);
    for (const f of byAdmin.body.features) expect(f.properties.admin).toBe('VT');
    const search = await get('/api/city/?search=de&page_size=1000').expect(200);
    const expected = t.catalog.cities.filter((c) => c.name.toLowerCase().includes('de') || c.admin.toLowerCase().includes('de'));
    expect(search.body.count).toBe(expected.length);
    expect(search.body.features.some((f: { properties: { admin: string } }) => f.properties.admin === 'DE')).toBe(true);
  });

  it('filters by population bounds, inclusive', async () => {
    const res = await get('/api/city/?population_gte=1000000&population_lte=3971883&page_size=100').expect(200);
    const expected = t.catalog.cities.filter((c) => c.population >= 1_000_000 && c.population <= 3_971_883);
    expect(res.body.count).toBe(expected.length);
    expect(res.body.features.map((f: { id: number }) => f.id)).toContain(LA);
    expect(res.body.features.map((f: { id: number }) => f.id)).not.toContain(NYC);
    expect((await get('/api/city/?population_gte=abc').expect(400)).body.detail).toMatch(/^population_gte must be an integer/);
  });

  it('filters by region id', async () => {
    const nyc = t.catalog.cityById.get(NYC)!;
    const res = await get(`/api/city/?region=${nyc.regionId}&page_size=1000`).expect(200);
    expect(res.body.count).toBe(t.catalog.cities.filter((c) => c.regionId === nyc.regionId).length);
    for (const f of res.body.features) expect(f.properties.region).toBe(nyc.regionId);
    expect((await get('/api/city/?region=x').expect(400)).body.detail).toMatch(/^region /);
  });

  it('filters by in_bbox with edges included', async () => {
    const nyc = t.catalog.cityById.get(NYC)!;
    const res = await get(`/api/city/?in_bbox=${nyc.lon},${nyc.lat},${nyc.lon},${nyc.lat}`).expect(200);
    expect(res.body.features.map((f: { id: number }) => f.id)).toContain(NYC);
    const co = await get('/api/city/?in_bbox=-109.05,37,-102.04,41&page_size=1000').expect(200);
    expect(co.body.count).toBeGreaterThan(20);
    for (const f of co.body.features) {
      const [x, y] = f.geometry.coordinates;
      expect(x >= -109.05 && x <= -102.04 && y >= 37 && y <= 41).toBe(true);
    }
    for (const bad of ['1,2,3', 'a,b,c,d', '10,0,5,1', '0,0,1,100']) {
      expect((await get(`/api/city/?in_bbox=${bad}`).expect(400)).body.detail).toMatch(/in_bbox/);
    }
  });

  it('rejects a repeated parameter', async () => {
    expect((await get('/api/city/?name=a&name=b').expect(400)).body.detail).toMatch(/^name must be given once/);
  });
});

describe('GET /api/city/nearest/', () => {
  it('returns the nearest city by default, as a feature collection', async () => {
    const res = await get('/api/city/nearest/?lat=40.71&lon=-74.0').expect(200);
    expect(res.body).toMatchObject({ type: 'FeatureCollection', count: 1, next: null, previous: null });
    expect(res.body.features[0].id).toBe(NYC);
  });

  it('folds 0..360 longitudes (the original docs: lat=40&lon=285 is Philadelphia)', async () => {
    const res = await get('/api/city/nearest/?lat=39.95&lon=284.84').expect(200);
    expect(res.body.features[0].properties.name).toBe('Philadelphia');
  });

  it('orders several results by distance and pages them', async () => {
    const res = await get('/api/city/nearest/?lat=41.88&lon=-87.63&limit=25').expect(200);
    expect(res.body.count).toBe(25);
    expect(res.body.features).toHaveLength(20);
    expect(res.body.next).toMatch(/page=2/);
    expect(res.body.features[0].id).toBe(CHICAGO);
    const d = (f: { geometry: { coordinates: number[] } }) => Math.hypot((f.geometry.coordinates[0]! + 87.63) * Math.cos(0.73), f.geometry.coordinates[1]! - 41.88);
    const ds = res.body.features.map(d);
    for (let i = 1; i < ds.length; i++) expect(ds[i]).toBeGreaterThanOrEqual(ds[i - 1] - 1e-3);
  });

  it('validates lat, lon and limit', async () => {
    expect((await get('/api/city/nearest/?lon=1').expect(400)).body.detail).toMatch(/^lat /);
    expect((await get('/api/city/nearest/?lat=1').expect(400)).body.detail).toMatch(/^lon /);
    expect((await get('/api/city/nearest/?lat=91&lon=1').expect(400)).body.detail).toMatch(/^lat must be a number between -90 and 90/);
    expect((await get('/api/city/nearest/?lat=x&lon=1').expect(400)).body.detail).toMatch(/^lat /);
    expect((await get('/api/city/nearest/?lat=1&lon=1&limit=0').expect(400)).body.detail).toMatch(/^limit must be an integer >= 1/);
    expect((await get('/api/city/nearest/?lat=1&lon=1&limit=1.5').expect(400)).body.detail).toMatch(/^limit /);
  });
});

describe('GET /api/city/{pk}/ and sub-resources', () => {
  it('returns one city', async () => {
    const res = await get(`/api/city/${LA}/`).expect(200);
    expect(res.body.properties.name).toBe('Los Angeles');
  });

  it('answers 404 JSON for unknown or malformed ids', async () => {
    expect((await get('/api/city/1/').expect(404)).body).toEqual({ detail: 'Not found.' });
    expect((await get('/api/city/abc/').expect(404)).body).toEqual({ detail: 'Not found.' });
  });

  it('returns the boundary as a MultiPolygon feature', async () => {
    const res = await get(`/api/city/${NYC}/boundary/`).expect(200);
    expect(res.body.type).toBe('Feature');
    expect(res.body.geometry.type).toBe('MultiPolygon');
    expect(res.body.properties).toEqual({});
    const ring = res.body.geometry.coordinates[0][0];
    expect(ring.length).toBeGreaterThan(3);
    expect(ring[0][0]).toBeGreaterThan(-75);
    expect(ring[0][0]).toBeLessThan(-73);
  });

  it("answers each city's own boundary, read from the build when first asked, the same when asked again", async () => {
    const ids = [...t.catalog.boundaries.keys()].sort((a, b) => a - b);
    for (const id of [ids[0]!, NYC, ids[ids.length - 1]!]) {
      const stored = await storedBoundary(t, id);
      for (let i = 0; i < 2; i++) expect((await get(`/api/city/${id}/boundary/`).expect(200)).body.geometry).toEqual(stored);
    }
  });

  it('answers 404 JSON for a city without a boundary', async () => {
    const without = t.catalog.cities.find((c: City) => !t.catalog.boundaries.has(c.id))!;
    const res = await get(`/api/city/${without.id}/boundary/`).expect(404).expect('Content-Type', /json/);
    expect(res.body.detail).toMatch(/no boundary/);
  });

  it('lists the map cells with data, one per dataset', async () => {
    const res = await get(`/api/city/${NYC}/map-cell/`).expect(200);
    // The suite's build has CMIP6 data for New York City: after the CMIP5 cells.
    expect(res.body.map((f: { properties: { dataset: string } }) => f.properties.dataset)).toEqual(['NEX-GDDP', 'LOCA', 'NEX-GDDP-CMIP6', 'LOCA2']);
    const nyc = t.catalog.cityById.get(NYC)!;
    for (const f of res.body) {
      const grid = GRIDS[f.properties.dataset]!;
      const centre = cellCentre(grid, cellAt(grid, nyc.lat, nyc.lon)!);
      expect(f.geometry).toEqual({ type: 'Point', coordinates: [centre.lon, centre.lat] });
    }
    const nex = res.body[0].geometry.coordinates;
    expect(Math.abs(nex[0] / 0.125) % 2).toBeCloseTo(1, 9);
    expect(Math.abs(nex[1] / 0.125) % 2).toBeCloseTo(1, 9);
  });

  it('returns one map cell per dataset, or 404', async () => {
    const res = await get(`/api/city/${NYC}/map-cell/LOCA/`).expect(200);
    expect(res.body.properties).toEqual({ dataset: 'LOCA' });
    expect((await get(`/api/city/${NYC}/map-cell/FOO/`).expect(404)).body).toEqual({ detail: 'Not found.' });
    const small = t.catalog.cities.find((c: City) => c.datasets.length === 0)!;
    await get(`/api/city/${small.id}/map-cell/`).expect(404);
    await get(`/api/city/${small.id}/map-cell/NEX-GDDP/`).expect(404);
  });
});

describe('GET /api/map-cell/{lat}/{lon}/', () => {
  it('returns the cells containing the point with distance and proximity', async () => {
    const nyc = t.catalog.cityById.get(NYC)!;
    const res = await get(`/api/map-cell/${nyc.lat}/${nyc.lon}/`).expect(200);
    expect(res.body).toHaveLength(4);
    // The 1/16 degree cells' centres (LOCA and LOCA2 share them) are nearer the point than the
    // 0.25 degree ones (NEX-GDDP and NEX-GDDP-CMIP6 share them); ties in catalog order.
    expect(res.body.map((f: { properties: { datasets: string[] } }) => f.properties.datasets)).toEqual([['LOCA'], ['LOCA2'], ['NEX-GDDP'], ['NEX-GDDP-CMIP6']]);
    for (const f of res.body) {
      expect(Number.isInteger(f.properties.distance_meters)).toBe(true);
      expect(f.properties.proximity).toHaveProperty('ocean');
    }
    expect(res.body[0].properties.distance_meters).toBeLessThanOrEqual(res.body[1].properties.distance_meters);
    expect(res.body[1].properties.distance_meters).toBeLessThan(20_000);
  });

  it('adds cells within distance, ordered by distance', async () => {
    const res = await get('/api/map-cell/40.5/-74.5/?distance=100000').expect(200);
    expect(res.body.length).toBeGreaterThanOrEqual(2);
    const ds = res.body.map((f: { properties: { distance_meters: number } }) => f.properties.distance_meters);
    expect(ds).toEqual([...ds].sort((a: number, b: number) => a - b));
    for (const d of ds) expect(d).toBeLessThanOrEqual(100000);
  });

  it('answers 404 where there is no data and 400 for bad input', async () => {
    expect((await get('/api/map-cell/0/0/').expect(404)).body).toEqual({ detail: 'Not found.' });
    expect((await get('/api/map-cell/91/0/').expect(400)).body.detail).toMatch(/^lat must be a number between -90 and 90/);
    expect((await get('/api/map-cell/0/181/').expect(400)).body.detail).toMatch(/^lon must be a number between -180 and 180/);
    expect((await get('/api/map-cell/abc/0/').expect(400)).body.detail).toMatch(/^lat /);
    expect((await get('/api/map-cell/40/-74/?distance=-1').expect(400)).body.detail).toMatch(/^distance must be a number >= 0/);
    expect((await get('/api/map-cell/40/-74/?distance=x').expect(400)).body.detail).toMatch(/^distance /);
  });
});

describe('datasets, models, scenarios, historic ranges', () => {
  it('lists the datasets with the fixture text and model lists, the CMIP5 ones first', async () => {
    const res = await get('/api/dataset/').expect(200);
    expect(res.body.map((d: { name: string }) => d.name)).toEqual(['NEX-GDDP', 'LOCA', 'NEX-GDDP-CMIP6', 'LOCA2']);
    const [nex, loca] = res.body;
    // The original's members first, in its order; the new ones after them.
    expect(Object.keys(nex)).toEqual(['name', 'label', 'description', 'url', 'models', 'grid', 'generation', 'scenarios', 'historic_ranges', 'variables', 'models_lacking', 'source', 'licence']);
    expect(nex.scenarios).toEqual([
      { name: 'historical', start_year: 1950, end_year: 2005 },
      { name: 'RCP45', start_year: 2006, end_year: 2100 },
      { name: 'RCP85', start_year: 2006, end_year: 2100 },
    ]);
    // Each dataset's historic ranges as /api/historic-range/?dataset= lists them: 1981-2010 for CMIP6 only.
    for (const d of res.body as { name: string; historic_ranges: unknown }[]) {
      const listed = (await get(`/api/historic-range/?dataset=${d.name}`).expect(200)).body.map(({ start_year, end_year }: { start_year: number; end_year: number }) => ({ start_year, end_year }));
      expect(d.historic_ranges, d.name).toEqual(listed);
    }
    expect(nex.historic_ranges.map((r: { start_year: number }) => r.start_year)).toEqual([1951, 1961, 1971]);
    expect(res.body[2].historic_ranges.at(-1)).toEqual({ start_year: 1981, end_year: 2010 });
    expect(nex.label).toBe('Nasa Earth Exchange Global Daily Downscaled Projections');
    expect(nex.url).toBe('https://nex.nasa.gov/nex/projects/1356/');
    expect(nex.models).toHaveLength(21);
    expect(loca.models).toHaveLength(32);
    expect(nex.description).toMatch(/^The NASA Earth Exchange \(NEX\) Global Daily Downscaled Projections/);
    expect(nex.description).toMatch(/synthetic/);
    expect(loca.description).toMatch(/To serve real model output, write it into the same Parquet layout/);
  });

  it('returns one dataset or 404', async () => {
    expect((await get('/api/dataset/LOCA/').expect(200)).body.name).toBe('LOCA');
    expect((await get('/api/dataset/FOO/').expect(404)).body).toEqual({ detail: 'Not found.' });
  });

  it('lists the climate models of every dataset in byte order with their datasets and runs', async () => {
    const res = await get('/api/climate-model/').expect(200);
    // 33 CMIP5 models; CMIP6: 32 NEX-GDDP-CMIP6 directories and 27 LOCA2 models, 23 of them in both
    // (LOCA2's AWI-CM-1-1-MR, CESM2-LENS, CNRM-CM6-1-HR and EC-Earth3-Veg are not NEX directories).
    expect(res.body).toHaveLength(33 + 32 + 27 - 23);
    const names = res.body.map((m: { name: string }) => m.name);
    expect(names).toEqual([...names].sort((a: string, b: string) => (a < b ? -1 : 1)));
    const standard = { member: null, grid_label: null, calendar: 'standard', scenarios: ['historical', 'RCP45', 'RCP85'] };
    expect(res.body.find((m: { name: string }) => m.name === 'ACCESS1-0')).toEqual({
      name: 'ACCESS1-0',
      label: 'ACCESS1-0',
      datasets: ['NEX-GDDP', 'LOCA'],
      base_time: null,
      runs: [
        { dataset: 'NEX-GDDP', ...standard },
        { dataset: 'LOCA', ...standard },
      ],
    });
    expect((await get('/api/climate-model/BNU-ESM/').expect(200)).body.datasets).toEqual(['NEX-GDDP']);
    expect((await get('/api/climate-model/HadGEM2-ES/').expect(200)).body.datasets).toEqual(['LOCA']);
    await get('/api/climate-model/nope/').expect(404);
    expect((await get('/api/climate-model/?name=MIROC5').expect(200)).body).toHaveLength(1);
    const desc = (await get('/api/climate-model/?ordering=-name').expect(200)).body.map((m: { name: string }) => m.name);
    expect(desc).toEqual([...names].reverse());
  });

  it('lists scenarios with alias, detail by name', async () => {
    const res = await get('/api/scenario/').expect(200);
    expect(res.body).toEqual([
      expect.objectContaining({ name: 'RCP45', label: 'RCP 4.5', alias: 'Low emissions', datasets: ['NEX-GDDP', 'LOCA'] }),
      expect.objectContaining({ name: 'RCP85', label: 'RCP 8.5', alias: 'High emissions', datasets: ['NEX-GDDP', 'LOCA'] }),
      expect.objectContaining({ name: 'historical', label: 'Historical', alias: '', datasets: ['NEX-GDDP', 'LOCA', 'NEX-GDDP-CMIP6', 'LOCA2'] }),
      expect.objectContaining({ name: 'ssp126', label: 'SSP1-2.6', datasets: ['NEX-GDDP-CMIP6'] }),
      expect.objectContaining({ name: 'ssp245', label: 'SSP2-4.5', datasets: ['NEX-GDDP-CMIP6', 'LOCA2'] }),
      expect.objectContaining({ name: 'ssp370', label: 'SSP3-7.0', datasets: ['NEX-GDDP-CMIP6', 'LOCA2'] }),
      expect.objectContaining({ name: 'ssp585', label: 'SSP5-8.5', datasets: ['NEX-GDDP-CMIP6', 'LOCA2'] }),
    ]);
    expect((await get('/api/scenario/historical/').expect(200)).body.description).toBe(
      'A historical dataset from 1950 to 2005 that blends reanalysis data with observations',
    );
    await get('/api/scenario/RCP26/').expect(404);
    expect((await get('/api/scenario/?ordering=up').expect(400)).body.detail).toMatch(/^ordering must be 'name' or '-name'/);
  });

  it("lists a dataset's historic ranges, the default dataset's without ?dataset=, each with the datasets it applies to", async () => {
    const all = ['NEX-GDDP', 'LOCA', 'NEX-GDDP-CMIP6', 'LOCA2'];
    const res = await get('/api/historic-range/').expect(200);
    expect(res.body).toEqual([
      { start_year: 1951, end_year: 1980, datasets: all },
      { start_year: 1961, end_year: 1990, datasets: all },
      { start_year: 1971, end_year: 2000, datasets: all },
    ]);
    expect((await get('/api/historic-range/?dataset=NEX-GDDP-CMIP6').expect(200)).body.at(-1)).toEqual({ start_year: 1981, end_year: 2010, datasets: ['NEX-GDDP-CMIP6', 'LOCA2'] });
    const starts = async (q: string) => (await get(`/api/historic-range/?${q}`).expect(200)).body.map((r: { start_year: number }) => r.start_year);
    expect(await starts('dataset=NEX-GDDP')).toEqual([1951, 1961, 1971]);
    expect(await starts('ordering=-start_year')).toEqual([1971, 1961, 1951]);
    expect(await starts('dataset=LOCA2&ordering=-start_year')).toEqual([1981, 1971, 1961, 1951]);
    // Reversing one answer leaves the next in order.
    expect(await starts('dataset=LOCA2')).toEqual([1951, 1961, 1971, 1981]);
    expect(await starts('')).toEqual([1951, 1961, 1971]);
    expect((await get('/api/historic-range/?dataset=CMIP7').expect(400)).body.detail).toBe("dataset must be one of NEX-GDDP, LOCA, NEX-GDDP-CMIP6, LOCA2; got 'CMIP7'.");
  });
});

describe('regions', () => {
  it('lists Level II ecoregions with limit/offset pagination', async () => {
    const res = await get('/api/region/').expect(200);
    expect(res.body.count).toBe(50);
    expect(res.body.results).toHaveLength(20);
    expect(Object.keys(res.body.results[0])).toEqual(['id', 'level1', 'level1_description', 'level2', 'level2_description']);
    expect(res.body.next).toMatch(/\/api\/region\/\?limit=20&offset=20$/);
    expect(res.body.previous).toBeNull();
    const p2 = await get('/api/region/?limit=20&offset=40').expect(200);
    expect(p2.body.results).toHaveLength(10);
    expect(p2.body.next).toBeNull();
    expect(p2.body.previous).toMatch(/offset=20/);
    const p1 = await get('/api/region/?limit=20&offset=20').expect(200);
    expect(p1.body.previous).toMatch(/\/api\/region\/\?limit=20$/);
  });

  it('filters by level1, level2 and search terms', async () => {
    const l8 = await get('/api/region/?level1=8').expect(200);
    expect(l8.body.count).toBeGreaterThan(2);
    for (const r of l8.body.results) expect(r.level1).toBe(8);
    const one = await get('/api/region/?level1=8&level2=5').expect(200);
    expect(one.body.count).toBe(1);
    expect(one.body.results[0].level2_description.toLowerCase()).toContain('mississippi alluvial');
    const s = await get('/api/region/?search=temperate,forests').expect(200);
    for (const r of s.body.results) {
      const text = `${r.level1_description} ${r.level2_description}`.toLowerCase();
      expect(text).toContain('temperate');
      expect(text).toContain('forests');
    }
    expect(s.body.count).toBeGreaterThan(0);
    expect((await get('/api/region/?level1=x').expect(400)).body.detail).toMatch(/^level1 /);
    expect((await get('/api/region/?limit=0').expect(400)).body.detail).toMatch(/^limit /);
  });

  it('returns one region as a MultiPolygon feature', async () => {
    const nyc = t.catalog.cityById.get(NYC)!;
    const res = await get(`/api/region/${nyc.regionId}/`).expect(200);
    expect(res.body.id).toBe(nyc.regionId);
    expect(res.body.type).toBe('Feature');
    expect(res.body.geometry.type).toBe('MultiPolygon');
    expect(Object.keys(res.body.properties)).toEqual(['level1', 'level1_description', 'level2', 'level2_description']);
    await get(`/api/region/${nyc.regionId}/?format=json`).expect(200);
    expect((await get('/api/region/999/').expect(404)).body).toEqual({ detail: 'Region 999 does not exist.' });
  });

  it('returns Geobuf for format=pbf and the .pbf suffix', async () => {
    const json = (await get('/api/region/3/').expect(200)).body;
    for (const url of ['/api/region/3/?format=pbf', '/api/region/3.pbf', '/api/region/3.pbf/']) {
      const res = await get(url)
        .buffer(true)
        .parse((r, cb) => {
          const chunks: Buffer[] = [];
          r.on('data', (c: Buffer) => chunks.push(c));
          r.on('end', () => cb(null, Buffer.concat(chunks)));
        })
        .expect(200)
        .expect('Content-Type', 'application/octet-stream')
        .expect('Content-Disposition', 'attachment; filename=region-3.pbf');
      const feature = decode(new Pbf(res.body as Buffer)) as { id: number; geometry: { type: string; coordinates: number[][][][] }; properties: object };
      expect(feature.id).toBe(3);
      expect(feature.properties).toEqual(json.properties);
      expect(feature.geometry.type).toBe('MultiPolygon');
      expect(feature.geometry.coordinates[0]![0]![0]![0]).toBeCloseTo(json.geometry.coordinates[0][0][0][0], 5);
    }
    expect((await get('/api/region/3/?format=xml').expect(400)).body.detail).toMatch(/^format must be one of json, pbf, api/);
    await get('/api/region/3.api').expect(200).expect('Content-Type', /text\/html/);
  });
});

describe('cross-cutting HTTP behaviour', () => {
  it('redirects a missing trailing slash, keeping the query, without a token', async () => {
    const res = await request(t.app).get('/api/city?page=2').expect(301);
    expect(res.headers.location).toBe('/api/city/?page=2');
    const post = await request(t.app).post('/api-token-auth').expect(308);
    expect(post.headers.location).toBe('/api-token-auth/');
  });

  it('answers other methods with 405 and Allow', async () => {
    const res = await request(t.app).post('/api/city/').set('Authorization', `Token ${t.token}`).expect(405);
    expect(res.body).toEqual({ detail: 'Method "POST" not allowed.' });
    expect(res.headers.allow).toBe('GET, HEAD, OPTIONS');
    await request(t.app).delete('/api/city/').expect(401);
    expect((await request(t.app).get('/api-token-auth/').expect(405)).headers.allow).toBe('POST, OPTIONS');
    await request(t.app).head('/api/scenario/').set('Authorization', `Token ${t.token}`).expect(200);
  });

  it('answers unknown paths with 404 JSON', async () => {
    expect((await get('/api/nothing-here/').expect(404)).body).toEqual({ detail: 'Not found.' });
    expect((await request(t.app).get('/nothing/').expect(404)).body).toEqual({ detail: 'Not found.' });
  });

  it('requires a token on every /api/ path', async () => {
    for (const url of ['/api/city/', '/api/region/', '/api/dataset/', '/api/historic-range/', `/api/city/${NYC}/boundary/`]) {
      const res = await request(t.app).get(url).expect(401);
      expect(res.body).toEqual({ detail: 'Authentication credentials were not provided.' });
    }
    await request(t.app).get('/api/city/').set('Authorization', 'Token nope').expect(401);
  });

  it('allows every origin, token endpoints included, and answers OPTIONS with Allow', async () => {
    const res = await get('/api/scenario/').set('Origin', 'https://example.org').expect(200);
    expect(res.headers['access-control-allow-origin']).toBe('*');
    const opt = await request(t.app).options('/api/scenario/').set('Origin', 'https://example.org').expect(200);
    expect(opt.headers.allow).toBe('GET, HEAD, OPTIONS');
    expect(opt.headers['access-control-allow-origin']).toBe('*');
    const pre = await request(t.app)
      .options('/api-token-auth/')
      .set('Origin', 'https://example.org')
      .set('Access-Control-Request-Method', 'POST')
      .set('Access-Control-Request-Headers', 'content-type')
      .expect(200);
    expect(pre.headers.allow).toBe('POST, OPTIONS');
    expect(pre.headers['access-control-allow-origin']).toBe('*');
    expect(pre.headers['access-control-allow-headers']).toMatch(/content-type/);
    const tok = await request(t.app).post('/api-token-auth/').set('Origin', 'https://example.org').send({});
    expect(tok.headers['access-control-allow-origin']).toBe('*');
  });

  it('keeps longitudes in [-180, 180) everywhere', async () => {
    const res = await get('/api/city/?page_size=1000&page=1').expect(200);
    for (const f of res.body.features) {
      expect(f.geometry.coordinates[0]).toBeGreaterThanOrEqual(-180);
      expect(f.geometry.coordinates[0]).toBeLessThan(180);
    }
    expect(cellCentre(GRIDS['NEX-GDDP']!, 1439).lon).toBe(179.875);
  });
});
