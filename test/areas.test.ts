import request from 'supertest';
import { beforeAll, describe, expect, it } from 'vitest';
import { cachedBuild } from './support/cachedBuild.js';
import { GRIDS } from '../src/reference/grids.js';
import { storedBoundary, testApp, type TestApp } from './helpers.js';

/**
 * Areas (GET and POST /api/climate-data/area/...): the answer is checked against the single-cell
 * endpoints, one model at a time, combined here in TypeScript: weighted over the cells by the
 * weights the answer gives, then the statistics across models. The weights of a bbox are checked
 * against the closed-form area of lon/lat rectangles on the sphere. The test build has data in
 * every NEX-GDDP cell of New York City's boundary.
 */

const NYC = 5128581;
const MODELS = ['ACCESS1-0', 'CCSM4', 'MIROC5'];
const NEX = GRIDS['NEX-GDDP']!;
let t: TestApp;
const get = (url: string) => request(t.app).get(url).set('Authorization', `Token ${t.token}`);
const post = (url: string, body: unknown) => request(t.app).post(url).set('Authorization', `Token ${t.token}`).send(body as object);

type AreaCell = { id: number; lat: number; lon: number; weight: number };
type Stats = Record<string, Record<string, number | null>>;

beforeAll(async () => {
  t = await testApp({ THROTTLE_BURST_RATE: '1000000/min', THROTTLE_SUSTAINED_RATE: '100000000/day' });
});

// ---- the oracle: single-cell answers, one model at a time ----
const sorted = (xs: number[]) => [...xs].sort((a, b) => a - b);
function percentile(xs: number[], q: number): number {
  const s = sorted(xs);
  const idx = (q / 100) * (s.length - 1);
  const lo = Math.floor(idx);
  const w = idx - lo;
  return s[lo]! * (1 - w) + s[Math.min(lo + 1, s.length - 1)]! * w;
}
const STATS: Record<string, (xs: number[]) => number> = {
  min: (xs) => Math.min(...xs),
  max: (xs) => Math.max(...xs),
  avg: (xs) => xs.reduce((a, b) => a + b, 0) / xs.length,
  median: (xs) => percentile(xs, 50),
};

/** cell -> model -> period -> value, from the lat/lon endpoint at the cell's centre with one model. */
async function cellIndicator(cells: AreaCell[], path: string): Promise<Map<number, Map<string, Record<string, number>>>> {
  const out = new Map<number, Map<string, Record<string, number>>>();
  for (const c of cells) {
    const byModel = new Map<string, Record<string, number>>();
    for (const m of MODELS) {
      const res = await get(`/api/climate-data/${c.lat}/${c.lon}/RCP85/indicator/${path}&models=${m}&agg=avg`).expect(200);
      byModel.set(m, Object.fromEntries(Object.entries(res.body.data as Stats).map(([p, s]) => [p, s.avg!])));
    }
    out.set(c.id, byModel);
  }
  return out;
}

function combine(cells: AreaCell[], values: Map<number, Map<string, Record<string, number>>>, areaAgg: 'mean' | 'min' | 'max', stats: string[]): Stats {
  const periods = Object.keys(values.get(cells[0]!.id)!.get(MODELS[0]!)!);
  const out: Stats = {};
  for (const p of periods) {
    const perModel = MODELS.map((m) => {
      const xs = cells.map((c) => values.get(c.id)!.get(m)![p]!);
      if (areaAgg === 'min') return Math.min(...xs);
      if (areaAgg === 'max') return Math.max(...xs);
      return cells.reduce((s, c, i) => s + c.weight * xs[i]!, 0);
    });
    out[p] = Object.fromEntries(stats.map((s) => [s, STATS[s]!(perModel)]));
  }
  return out;
}

function expectClose(actual: Stats, expected: Stats, digits = 9) {
  expect(Object.keys(actual).sort()).toEqual(Object.keys(expected).sort());
  for (const [p, s] of Object.entries(expected)) {
    expect(Object.keys(actual[p]!).sort()).toEqual(Object.keys(s).sort());
    for (const [k, v] of Object.entries(s)) expect(actual[p]![k], `${p} ${k}`).toBeCloseTo(v!, digits);
  }
}

/** The area on the unit sphere of the lon/lat rectangle [x0, x1] x [y0, y1] (degrees). */
const rectArea = (x0: number, y0: number, x1: number, y1: number) => ((x1 - x0) * Math.PI) / 180 * (Math.sin((y1 * Math.PI) / 180) - Math.sin((y0 * Math.PI) / 180));

describe('indicators over an area', () => {
  it("answers a city's boundary with the weighted mean of its cells, then the statistics across models", async () => {
    const res = await get(`/api/climate-data/area/RCP85/indicator/frost_days/?city=${NYC}&agg=min,max,avg,median`).expect(200);
    const area = res.body.area;
    expect(area.type).toBe('Feature');
    // The boundary as the build stores it (the catalog holds only that the city has one).
    expect(area.geometry).toEqual(await storedBoundary(t, NYC));
    expect(area.properties.city).toBe(NYC);
    const cells = area.properties.cells as AreaCell[];
    // The test build covers every cell of the boundary.
    expect(area.properties.cells_with_data).toBe(cells.length);
    expect(area.properties.cells_in_area).toBe(cells.length);
    expect(cells.length).toBeGreaterThan(4);
    expect(cells.reduce((s, c) => s + c.weight, 0)).toBeCloseTo(1, 12);
    expect(res.body).toMatchObject({ area_agg: 'mean', dataset: 'NEX-GDDP', scenario: 'RCP85', climate_models: t.catalog.datasetByName.get('NEX-GDDP')!.models, time_aggregation: 'yearly', units: 'days' });
    expect(res.body).not.toHaveProperty('city');

    const perCell = await cellIndicator(cells, 'frost_days/?time_aggregation=yearly');
    expectClose(res.body.data, combine(cells, perCell, 'mean', ['min', 'max', 'avg', 'median']));
    for (const areaAgg of ['min', 'max'] as const) {
      const r = await get(`/api/climate-data/area/RCP85/indicator/frost_days/?city=${NYC}&agg=min,max,avg,median&area_agg=${areaAgg}`).expect(200);
      expect(r.body.area_agg).toBe(areaAgg);
      expectClose(r.body.data, combine(cells, perCell, areaAgg, ['min', 'max', 'avg', 'median']), 12);
    }
  });

  it('takes the indicator parameters (units, time aggregation, models) as the single endpoints do', async () => {
    const path = 'average_high_temperature/?time_aggregation=monthly&units=F&years=2051';
    const res = await get(`/api/climate-data/area/RCP85/indicator/${path}&bbox=-74.1,40.55,-73.7,40.85&agg=avg,max`).expect(200);
    const cells = res.body.area.properties.cells as AreaCell[];
    expect(res.body.units).toBe('F');
    expect(Object.keys(res.body.data)).toHaveLength(12);
    expectClose(res.body.data, combine(cells, await cellIndicator(cells, path), 'mean', ['avg', 'max']));

    const two = await get(`/api/climate-data/area/RCP85/indicator/${path}&bbox=-74.1,40.55,-73.7,40.85&agg=avg&models=CCSM4,MIROC5`).expect(200);
    expect(two.body.climate_models).toEqual(['CCSM4', 'MIROC5']);
  });

  it('weights a bbox by the area on the sphere of each cell within it', async () => {
    const [x0, y0, x1, y1] = [-74.4, 40.5, -73.71, 40.93];
    const res = await get(`/api/climate-data/area/RCP85/indicator/frost_days/?bbox=${x0},${y0},${x1},${y1}`).expect(200);
    const props = res.body.area.properties;
    expect(props.bbox).toEqual([x0, y0, x1, y1]);
    expect(res.body.area.geometry).toEqual({ type: 'Polygon', coordinates: [[[x0, y0], [x1, y0], [x1, y1], [x0, y1], [x0, y0]]] });
    // Every grid cell the rectangle overlaps, counted from the grid; those with data from the catalog.
    const rows = Math.ceil((y1 - NEX.lat0) / NEX.size) - Math.floor((y0 - NEX.lat0) / NEX.size);
    const cols = Math.ceil((x1 - NEX.lon0) / NEX.size) - Math.floor((x0 - NEX.lon0) / NEX.size);
    expect(props.cells_in_area).toBe(rows * cols);
    const half = NEX.size / 2;
    const overlap = (c: { lat: number; lon: number }) =>
      rectArea(Math.max(x0, c.lon - half), Math.max(y0, c.lat - half), Math.min(x1, c.lon + half), Math.min(y1, c.lat + half));
    const withData = [...t.catalog.mapCells.all()].filter((c) => c.dataset === 'NEX-GDDP' && c.lon + half > x0 && c.lon - half < x1 && c.lat + half > y0 && c.lat - half < y1);
    expect(withData.length).toBeGreaterThan(3);
    expect(withData.length).toBeLessThan(rows * cols);
    const total = withData.reduce((s, c) => s + overlap(c), 0);
    const expected = withData.map((c) => ({ id: c.cellId, lat: c.lat, lon: c.lon, weight: overlap(c) / total })).sort((a, b) => a.id - b.id);
    const cells = props.cells as AreaCell[];
    expect(cells.map((c) => [c.id, c.lat, c.lon])).toEqual(expected.map((c) => [c.id, c.lat, c.lon]));
    cells.forEach((c, i) => expect(c.weight).toBeCloseTo(expected[i]!.weight, 12));
    expect(props.cells_with_data).toBe(cells.length);
    expectClose(res.body.data, combine(cells, await cellIndicator(cells, 'frost_days/?time_aggregation=yearly'), 'mean', ['min', 'max', 'avg']));
  });

  it('answers a POSTed polygon, and a polygon inside one cell exactly as that cell', async () => {
    const cell = [...t.catalog.mapCells.all()].find((c) => c.dataset === 'NEX-GDDP')!;
    const triangle = { type: 'Polygon', coordinates: [[[cell.lon - 0.05, cell.lat - 0.05], [cell.lon + 0.05, cell.lat - 0.05], [cell.lon, cell.lat + 0.05], [cell.lon - 0.05, cell.lat - 0.05]]] };
    const res = await post('/api/climate-data/area/RCP85/indicator/frost_days/?agg=min,max,avg', triangle).expect(200);
    expect(res.body.area.geometry).toEqual(triangle);
    expect(res.body.area.properties).toEqual({ cells: [{ id: cell.cellId, lat: cell.lat, lon: cell.lon, weight: 1 }], cells_in_area: 1, cells_with_data: 1 });
    const single = await get(`/api/climate-data/${cell.lat}/${cell.lon}/RCP85/indicator/frost_days/?agg=min,max,avg`).expect(200);
    expect(res.body.data).toEqual(single.body.data);

    // A Feature, and the bbox as a posted polygon: the same answer as the GET.
    const bbox = [-74.1, 40.6, -73.8, 40.8];
    const ring = [[bbox[0], bbox[1]], [bbox[2], bbox[1]], [bbox[2], bbox[3]], [bbox[0], bbox[3]], [bbox[0], bbox[1]]];
    const feature = { type: 'Feature', properties: { name: 'x' }, geometry: { type: 'MultiPolygon', coordinates: [[ring]] } };
    const posted = await post('/api/climate-data/area/RCP85/indicator/frost_days/', feature).expect(200);
    const got = await get(`/api/climate-data/area/RCP85/indicator/frost_days/?bbox=${bbox.join(',')}`).expect(200);
    expect(posted.body.data).toEqual(got.body.data);
    expect(posted.body.area.properties.cells).toEqual(got.body.area.properties.cells);
    expect(posted.body.area.geometry).toEqual(feature.geometry);
  });

  it("averages each model's area values over a window's years, then the statistics across models", async () => {
    const res = await get(`/api/climate-data/area/RCP85/indicator/frost_days/?city=${NYC}&time_aggregation=window&windows=2050:2052,2051:2052&agg=min,avg`).expect(200);
    const cells = res.body.area.properties.cells as AreaCell[];
    const perCell = await cellIndicator(cells, 'frost_days/?time_aggregation=yearly');
    const expected: Stats = {};
    for (const [s, e] of [[2050, 2052], [2051, 2052]] as const) {
      const perModel = MODELS.map((m) => {
        const years = Array.from({ length: e - s + 1 }, (_, i) => String(s + i));
        return years.reduce((sum, y) => sum + cells.reduce((a, c) => a + c.weight * perCell.get(c.id)!.get(m)![y]!, 0), 0) / years.length;
      });
      expected[`${s}-${e}`] = { min: STATS.min!(perModel), avg: STATS.avg!(perModel) };
    }
    expectClose(res.body.data, expected);
  });

  it('leaves out what a hole leaves out', async () => {
    // The 3 x 3 cells around New York City's own cell, less a hole that is exactly that cell.
    const cell = t.catalog.mapCells.get('NEX-GDDP', t.catalog.cityCells.get(NYC)!.get('NEX-GDDP')!)!;
    const h = NEX.size / 2;
    const outer = [[cell.lon - 3 * h, cell.lat - 3 * h], [cell.lon + 3 * h, cell.lat - 3 * h], [cell.lon + 3 * h, cell.lat + 3 * h], [cell.lon - 3 * h, cell.lat + 3 * h], [cell.lon - 3 * h, cell.lat - 3 * h]];
    const hole = [[cell.lon - h, cell.lat - h], [cell.lon - h, cell.lat + h], [cell.lon + h, cell.lat + h], [cell.lon + h, cell.lat - h], [cell.lon - h, cell.lat - h]];
    const whole = await post('/api/climate-data/area/RCP85/indicator/frost_days/', { type: 'Polygon', coordinates: [outer] }).expect(200);
    const holed = await post('/api/climate-data/area/RCP85/indicator/frost_days/', { type: 'Polygon', coordinates: [outer, hole] }).expect(200);
    const ids = (r: request.Response) => (r.body.area.properties.cells as AreaCell[]).map((c) => c.id);
    expect(ids(whole)).toContain(cell.cellId);
    expect(ids(holed)).toEqual(ids(whole).filter((id) => id !== cell.cellId));
    expect(holed.body.area.properties.cells_in_area).toBe(whole.body.area.properties.cells_in_area - 1);
    expect(whole.body.area.properties.cells_in_area).toBe(9);
  });

  it('answers an ecoregion with the cells of it that have data', async () => {
    const regionId = t.catalog.cityById.get(NYC)!.regionId!;
    const res = await get(`/api/climate-data/area/RCP85/indicator/frost_days/?region=${regionId}&years=2050&models=CCSM4`).expect(200);
    const props = res.body.area.properties;
    expect(props.region).toBe(regionId);
    expect(props.cells_in_area).toBeGreaterThan(100);
    expect(props.cells_with_data).toBeGreaterThan(0);
    expect(props.cells_with_data).toBeLessThan(props.cells_in_area);
    expect((props.cells as AreaCell[]).reduce((s, c) => s + c.weight, 0)).toBeCloseTo(1, 12);
  });

  it('answers CSV naming the area', async () => {
    const res = await get(`/api/climate-data/area/RCP85/indicator/frost_days/?city=${NYC}&format=csv`).expect(200).expect('Content-Type', /text\/csv/);
    expect(res.headers['content-disposition']).toContain(`climate-data_area_city_${NYC}_RCP85_NEX-GDDP_frost_days.csv`);
    expect(res.text.split('\n')[1]).toMatch(new RegExp(`^area/city/${NYC},NEX-GDDP,RCP85,frost_days,`));
  });
});

describe('raw daily data over an area', () => {
  it("combines each model's day over the cells, then across models", async () => {
    const bbox = '-74.1,40.6,-73.8,40.8';
    const res = await get(`/api/climate-data/area/RCP85/?bbox=${bbox}&years=2051&variables=tasmax,pr`).expect(200);
    // Years with a gap read only the years asked for.
    const gapped = await get(`/api/climate-data/area/RCP85/?bbox=${bbox}&years=2050,2052&variables=tasmax,pr`).expect(200);
    expect(Object.keys(gapped.body.data)).toEqual(['2050', '2052']);
    const y2050 = await get(`/api/climate-data/area/RCP85/?bbox=${bbox}&years=2050&variables=tasmax,pr`).expect(200);
    expect(gapped.body.data['2050']).toEqual(y2050.body.data['2050']);
    const cells = res.body.area.properties.cells as AreaCell[];
    expect(cells.length).toBeGreaterThan(1);
    expect(res.body).toMatchObject({ area_agg: 'mean', dataset: 'NEX-GDDP', scenario: 'RCP85', climate_models: t.catalog.datasetByName.get('NEX-GDDP')!.models, variables: ['tasmax', 'pr'] });
    const days = new Map<string, (number | null)[]>();
    for (const c of cells)
      for (const m of MODELS) {
        const r = await get(`/api/climate-data/${c.lat}/${c.lon}/RCP85/?years=2051&variables=tasmax,pr&models=${m}`).expect(200);
        for (const v of ['tasmax', 'pr']) days.set(`${c.id}|${m}|${v}`, r.body.data['2051'][v]);
      }
    const maxRes = await get(`/api/climate-data/area/RCP85/?bbox=${bbox}&years=2051&variables=tasmax&area_agg=max&agg=min`).expect(200);
    for (const v of ['tasmax', 'pr']) {
      const actual = res.body.data['2051'][v] as (number | null)[];
      expect(actual).toHaveLength(366);
      expect(actual[365]).toBeNull();
      for (let slot = 0; slot < 365; slot++) {
        // The endpoint prints the shortest decimal of each float32; fround recovers the stored value.
        const perModel = MODELS.map((m) => cells.reduce((s, c) => s + c.weight * Math.fround(days.get(`${c.id}|${m}|${v}`)![slot]!), 0));
        const expected = Math.fround(perModel.reduce((a, b) => a + b, 0) / perModel.length);
        expect(Math.abs(actual[slot]! - expected), `${v} ${slot}`).toBeLessThanOrEqual(Math.abs(expected) * 1e-6);
        if (v === 'tasmax') {
          const hottest = Math.min(...MODELS.map((m) => Math.max(...cells.map((c) => Math.fround(days.get(`${c.id}|${m}|${v}`)![slot]!)))));
          expect(Math.fround(maxRes.body.data['2051'].tasmax[slot])).toBe(hottest);
        }
      }
    }
  });

  it('takes a POSTed polygon and answers CSV', async () => {
    const polygon = { type: 'Polygon', coordinates: [[[-74.0, 40.6], [-73.8, 40.6], [-73.9, 40.8], [-74.0, 40.6]]] };
    const res = await post('/api/climate-data/area/RCP85/?years=2050&variables=tasmin', polygon).expect(200);
    expect(Object.keys(res.body.data)).toEqual(['2050']);
    expect(res.body.area.geometry).toEqual(polygon);
    const csv = await post('/api/climate-data/area/RCP85/?years=2050&variables=tasmin&format=csv', polygon).expect(200).expect('Content-Type', /text\/csv/);
    expect(csv.text.split('\n')[1]).toMatch(/^area\/polygon,/);
  });
});

describe('area errors', () => {
  const url = '/api/climate-data/area/RCP85/indicator/frost_days/';
  const polygon = (ring: number[][]) => ({ type: 'Polygon', coordinates: [ring] });

  it('400 for bad geometries, saying what is wrong', async () => {
    const cases: [unknown, RegExp][] = [
      [polygon([[-74, 40.6], [-73.8, 40.8], [-73.8, 40.6], [-74, 40.8], [-74, 40.6]]), /intersects itself at lon\/lat \(-73\.9, 40\.7\)/],
      [polygon([[-74, 40.6], [-73.8, 40.6], [-73.8, 95], [-74, 40.6]]), /\[-73\.8, 95\], out of range/],
      [polygon([[-74, 40.6], [-73.8, 40.6], [-73.8, 40.8]]), /is not closed/],
      [polygon([[-74, 40.6], [-73.8, 40.6], [-74, 40.6]]), /at least 3/],
      [{ type: 'Point', coordinates: [-74, 40.7] }, /Polygon, MultiPolygon, or a Feature .*; got a Point/],
      [{ type: 'Feature', properties: {}, geometry: { type: 'LineString', coordinates: [[-74, 40.7], [-73, 40]] } }, /got a LineString/],
      [{ type: 'FeatureCollection', features: [] }, /got a FeatureCollection/],
      [{ type: 'Polygon', coordinates: [[[-74, 'x'], [-73.8, 40.6], [-73.8, 40.8], [-74, 'x']]] }, /not \[lon, lat\] numbers/],
      [[1, 2], /got an array/],
    ];
    for (const [body, message] of cases) {
      const res = await post(url, body).expect(400);
      expect(res.body.detail, JSON.stringify(body)).toMatch(message);
    }
    await request(t.app).post(url).set('Authorization', `Token ${t.token}`).set('Content-Type', 'application/json').send('{"type": "Polygon",').expect(400);
    // No body at all.
    expect((await request(t.app).post(url).set('Authorization', `Token ${t.token}`).expect(400)).body.detail).toMatch(/body must be a GeoJSON Polygon/);
  });

  it('400 past MAX_AREA_VERTICES', async () => {
    const small = await testApp({ MAX_AREA_VERTICES: '5' });
    const ring = [[-74, 40.6], [-73.9, 40.55], [-73.8, 40.6], [-73.8, 40.8], [-73.9, 40.85], [-74, 40.8], [-74, 40.6]];
    const res = await request(small.app).post(url).set('Authorization', `Token ${small.token}`).send(polygon(ring)).expect(400);
    expect(res.body.detail).toBe('The area has 6 vertices; the limit is 5 (MAX_AREA_VERTICES). Simplify the geometry.');
    await request(small.app).post(url).set('Authorization', `Token ${small.token}`).send(polygon(ring.slice(0, 5).concat([ring[0]!]))).expect(200);
  });

  it('400 unless exactly one of region, city and bbox names the area; none of them with a POST', async () => {
    expect((await get(`${url}?region=1&bbox=-74,40,-73,41`).expect(400)).body.detail).toBe('Name the area with exactly one of region, city or bbox; got region and bbox.');
    expect((await get(url).expect(400)).body.detail).toMatch(/^Name the area with exactly one of region .*or POST a GeoJSON Polygon\.$/);
    expect((await post(`${url}?city=${NYC}`, polygon([[-74, 40.6], [-73.8, 40.6], [-73.8, 40.8], [-74, 40.6]])).expect(400)).body.detail).toMatch(/leave out city/);
    for (const bbox of ['-74,40,-73', '-73,40,-74,41', '-74,40,-73,91', 'a,b,c,d']) expect((await get(`${url}?bbox=${bbox}`).expect(400)).body.detail, bbox).toMatch(/^bbox must/);
    expect((await get(`${url}?city=abc`).expect(400)).body.detail).toMatch(/city must be an integer id/);
    expect((await get(`${url}?city=${NYC}&area_agg=median`).expect(400)).body.detail).toMatch(/area_agg must be one of mean, min, max/);
  });

  it('404 for an unknown city, region or indicator, and for an area without data', async () => {
    await get(`${url}?city=1`).expect(404);
    await get(`${url}?region=999999`).expect(404);
    await get(`/api/climate-data/area/RCP85/indicator/nope/?city=${NYC}`).expect(404);
    await get(`/api/climate-data/area/RCP99/indicator/frost_days/?city=${NYC}`).expect(404);
    const res = await get(`${url}?bbox=-116,38,-115,39`).expect(404);
    expect(res.body.detail).toBe('No NEX-GDDP data for this area: none of the 16 map cells it covers has data in this build.');
  });

  it('400 over the cost bound: model-years per cell, and cells per area', async () => {
    const few = await testApp({ MAX_AREA_CELLS: '2' });
    const res = await request(few.app).get(`${url}?city=${NYC}`).set('Authorization', `Token ${few.token}`).expect(400);
    expect(res.body.detail).toMatch(/^This area covers \d+ map cells with data; the limit is 2 \(MAX_AREA_CELLS\)/);
    const short = await testApp({ MAX_MODEL_YEARS: '5' });
    const res2 = await request(short.app).get(`${url}?city=${NYC}`).set('Authorization', `Token ${short.token}`).expect(400);
    expect(res2.body.detail).toMatch(/model-years; the limit is 5/);
  });
});

describe('relative_to over an area', () => {
  // The suite's build has 3 historical years, fewer than a baseline needs: a build of its own, with
  // every NEX-GDDP cell of New York City's boundary and 10 historical years.
  const BASE_MODELS = ['CCSM4', 'MIROC5'];
  let own: TestApp;
  let tmp: string;
  const ownGet = (url: string) => request(own.app).get(url).set('Authorization', `Token ${own.token}`);

  beforeAll(async () => {
    tmp = await cachedBuild('areas-baseline', { climateCities: 1, areaCities: 1, seed: 5, models: { 'NEX-GDDP': BASE_MODELS, LOCA: [] }, years: { historical: [1971, 1980], RCP45: [2050, 2050], RCP85: [2050, 2051] } });
    own = await testApp({ THROTTLE_BURST_RATE: '1000000/min', THROTTLE_SUSTAINED_RATE: '100000000/day' }, tmp);
  }, 180_000);

  /** cell -> model -> period -> value of one model at the cell's centre. */
  async function perCell(cells: AreaCell[], scenario: string, qs: string) {
    const out = new Map<number, Map<string, Record<string, number>>>();
    for (const c of cells) {
      const byModel = new Map<string, Record<string, number>>();
      for (const m of BASE_MODELS) {
        const res = await ownGet(`/api/climate-data/${c.lat}/${c.lon}/${scenario}/indicator/frost_days/?${qs}&models=${m}&agg=avg`).expect(200);
        byModel.set(m, Object.fromEntries(Object.entries(res.body.data as Stats).map(([p, s]) => [p, s.avg!])));
      }
      out.set(c.id, byModel);
    }
    return out;
  }

  it("changes each model's area value against its area baseline, absolute and percent", async () => {
    const absolute = await ownGet(`/api/climate-data/area/RCP85/indicator/frost_days/?city=${NYC}&relative_to=1971:1980&agg=min,max,avg`).expect(200);
    const cells = absolute.body.area.properties.cells as AreaCell[];
    expect(absolute.body.area.properties.cells_with_data).toBe(absolute.body.area.properties.cells_in_area);
    expect(absolute.body.relative_to).toEqual({ start_year: 1971, end_year: 1980, change: 'absolute' });
    const values = await perCell(cells, 'RCP85', 'time_aggregation=yearly');
    const history = await perCell(cells, 'historical', 'time_aggregation=yearly&years=1971:1980');
    const areaOf = (m: string, source: typeof values, year: string) => cells.reduce((s, c) => s + c.weight * source.get(c.id)!.get(m)![year]!, 0);
    const baseline = (m: string) => Array.from({ length: 10 }, (_, i) => areaOf(m, history, String(1971 + i))).reduce((a, b) => a + b, 0) / 10;
    const expected = (change: (v: number, b: number) => number): Stats =>
      Object.fromEntries(
        ['2050', '2051'].map((y) => {
          const perModel = BASE_MODELS.map((m) => change(areaOf(m, values, y), baseline(m)));
          return [y, { min: STATS.min!(perModel), max: STATS.max!(perModel), avg: STATS.avg!(perModel) }];
        }),
      );
    expectClose(absolute.body.data, expected((v, b) => v - b));
    const percent = await ownGet(`/api/climate-data/area/RCP85/indicator/frost_days/?city=${NYC}&relative_to=1971:1980&change=percent&agg=min,max,avg`).expect(200);
    expectClose(percent.body.data, expected((v, b) => (100 * (v - b)) / b));
  });
});
