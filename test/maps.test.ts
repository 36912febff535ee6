import { execFileSync, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import request from 'supertest';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { inject } from 'vitest';
import { fromArrayBuffer } from 'geotiff';
import { openDuckDB } from '../src/db/duckdb.js';
import { sqlString } from '../src/db/sqlFiles.js';
import { INDICATORS } from '../src/indicators/metadata.js';
import { hasColourScale } from '../src/maps/colourScale.js';
import { scenarioModels } from '../src/reference/datasetContents.js';
import { GRIDS } from '../src/reference/grids.js';
import { TEST_BUILD } from './global-setup.js';
import { testApp, type TestApp } from './helpers.js';
import { copyOfTestData } from './ingest-support.js';
import { WARMING_BUILD } from './support/warmingBuild.js';

/**
 * GET /api/climate-data/map/{scenario}/indicator/{name}/. The oracle of every value is the point
 * endpoint asked for that cell alone (its centre's lat/lon) with time_aggregation=window&windows=
 * <years> (or the same warming_level) and the same models, agg, units and relative_to: the map
 * must answer the same doubles, cell by cell, for every indicator.
 */

const NYC = 5128581;
const LIMITS = { THROTTLE_BURST_RATE: '1000000/min', THROTTLE_SUSTAINED_RATE: '100000000/day' };
let t: TestApp;
let w: TestApp;
const getOn = (app: TestApp, url: string) => request(app.app).get(url).set('Authorization', `Token ${app.token}`);
const get = (url: string) => getOn(t, url);

beforeAll(async () => {
  t = await testApp(LIMITS);
  w = await testApp(LIMITS, inject('warmingDataDir'));
});

interface MapBody {
  request: Record<string, unknown>;
  units: string;
  grid: { resolution: number; origin: { lat: number; lon: number }; rows: number; cols: number };
  cells: { id: number[]; lat: number[]; lon: number[]; row: number[]; col: number[] };
  values: Record<string, (number | null)[]>;
  models: number[];
  color_scale: { kind: string; palette: string; breaks: number[]; colors: string[] };
}

/** The indicator's own required parameters (and the historic range its dataset has). */
function ownParams(name: string, dataset: string): string {
  const meta = INDICATORS.find((i) => i.name === name)!;
  const has = (p: string) => meta.parameters.some((x) => x.name === p);
  const q: string[] = [];
  if (has('threshold')) q.push(meta.variables[0] === 'pr' ? 'threshold=1&threshold_units=mm/day&threshold_comparator=gt' : 'threshold=70&threshold_units=F&threshold_comparator=gte');
  if (has('historic_range') && (dataset === 'NEX-GDDP-CMIP6' || dataset === 'LOCA2')) q.push('historic_range=1981');
  return q.join('&');
}

/** The dataset an indicator is tested on: the humid-heat ones need NEX-GDDP-CMIP6's tas, hurs, huss. */
const datasetOf = (name: string) => (INDICATORS.find((i) => i.name === name)!.variables.some((v) => ['tas', 'hurs', 'huss'].includes(v)) ? 'NEX-GDDP-CMIP6' : 'NEX-GDDP');
const futureOf = (dataset: string) => (dataset.startsWith('NEX-GDDP-CMIP6') || dataset === 'LOCA2' ? 'ssp585' : 'RCP85');

async function map(app: TestApp, scenario: string, name: string, qs: string): Promise<MapBody> {
  const res = await getOn(app, `/api/climate-data/map/${scenario}/indicator/${name}/?${qs}`);
  expect(res.status, `${name} ${qs}: ${JSON.stringify(res.body).slice(0, 400)}`).toBe(200);
  return res.body as MapBody;
}

/** The models a build has of a dataset, of those `qs` asks for: the synthetic data has each one's value everywhere. */
function builtModels(app: TestApp, dataset: string, scenario: string, qs: string): number {
  const models: Record<string, string[]> = (app === w ? WARMING_BUILD : TEST_BUILD).models;
  const ofScenario = scenarioModels(app.catalog.datasetByName.get(dataset)!, app.catalog.scenarioByName.get(scenario)!);
  const built = models[dataset]!.filter((m) => ofScenario.includes(m));
  const asked = /(?:^|&)models=([^&]*)/.exec(qs)?.[1]?.split(',');
  return asked ? built.filter((m) => asked.includes(m)).length : built.length;
}

/**
 * Every cell's values equal the point endpoint's for that cell alone, and the models behind them
 * are the build's (at warming levels, the point answer's model_count).
 */
async function expectExact(app: TestApp, scenario: string, name: string, mapQs: string, pointQs: string, key: (body: Record<string, unknown>) => Record<string, number | null>, cells?: number[]) {
  const m = await map(app, scenario, name, mapQs);
  const aggs = Object.keys(m.values);
  expect(aggs.length).toBeGreaterThan(0);
  let compared = 0;
  for (let i = 0; i < m.cells.id.length; i++) {
    if (cells && !cells.includes(m.cells.id[i]!)) continue;
    const res = await getOn(app, `/api/climate-data/${m.cells.lat[i]}/${m.cells.lon[i]}/${scenario}/indicator/${name}/?agg=${aggs.join(',')}&${pointQs}`);
    expect(res.status, `${name} cell ${m.cells.id[i]}: ${JSON.stringify(res.body).slice(0, 300)}`).toBe(200);
    expect(res.body.feature.properties.cell_id ?? m.cells.id[i]).toBe(m.cells.id[i]);
    const stats = key(res.body);
    for (const agg of aggs) expect(m.values[agg]![i], `${name} ${mapQs} cell ${m.cells.id[i]} ${agg}`).toBe(stats[agg] ?? null);
    // A percent change leaves out the models whose base is 0: the count is then checked where the point answer has one.
    const counted = stats.model_count !== undefined || !mapQs.includes('change=percent');
    if (counted && stats[aggs[0]!] !== null) expect(m.models[i]).toBe((stats.model_count as number | undefined) ?? builtModels(app, String(m.request.dataset), scenario, mapQs));
    compared++;
  }
  expect(compared).toBeGreaterThan(0);
  return m;
}

describe('every value is the point endpoint’s for that cell alone', () => {
  // Every indicator, every cell of its dataset in the suite's build (NEX-GDDP: 12, NEX-GDDP-CMIP6: 10).
  for (const meta of INDICATORS) {
    it(`${meta.name}: every cell, years as a window`, async () => {
      const dataset = datasetOf(meta.name);
      const scenario = futureOf(dataset);
      const own = ownParams(meta.name, dataset);
      const m = await expectExact(t, scenario, meta.name, `years=2050:2052&dataset=${dataset}&${own}`, `time_aggregation=window&windows=2050:2052&dataset=${dataset}&${own}`, (b) => (b.data as Record<string, Record<string, number | null>>)['2050-2052']!);
      expect(m.cells.id.length).toBe(t.catalog.mapCells.ids(dataset).length);
      expect(Object.keys(m.values)).toEqual(['10th', 'median', '90th']);
      expect(m.units).toBe(meta.defaultUnits);
    });
  }

  it('with other agg, units, models, a part of the years and the parameters only the days hold', async () => {
    const cases: [string, string][] = [
      ['average_high_temperature', 'agg=avg,min,max,stddev&units=C&models=CCSM4,MIROC5'],
      ['total_precipitation', 'agg=95th,median&units=mm'],
      ['percentile_high_temperature', 'percentile=90&agg=avg'],
      ['cooling_degree_days', 'basetemp=20&basetemp_units=C&units=C'],
      ['max_nday_precipitation', 'n=3&agg=max'],
      ['frost_days', 'models=ACCESS1-0'],
    ];
    for (const [name, qs] of cases) {
      const pointQs = qs.replace(/(^|&)agg=[^&]*/, '');
      await expectExact(t, 'RCP45', name, `years=2051:2052&${qs}`, `time_aggregation=window&windows=2051:2052&${pointQs}`, (b) => (b.data as Record<string, Record<string, number | null>>)['2051-2052']!);
    }
  });

  it('on LOCA and LOCA2 grids, in their units', async () => {
    await expectExact(t, 'RCP85', 'max_high_temperature', 'years=2050:2052&dataset=LOCA', 'time_aggregation=window&windows=2050:2052&dataset=LOCA', (b) => (b.data as Record<string, Record<string, number | null>>)['2050-2052']!);
    const m = await expectExact(t, 'ssp245', 'dry_spells', 'years=2050:2051&dataset=LOCA2', 'time_aggregation=window&windows=2050:2051&dataset=LOCA2', (b) => (b.data as Record<string, Record<string, number | null>>)['2050-2051']!);
    expect(m.grid).toMatchObject({ resolution: GRIDS.LOCA2!.size, origin: { lat: GRIDS.LOCA2!.lat0, lon: GRIDS.LOCA2!.lon0 } });
  });

  // The warming build: 45 historical years (a baseline) and models' windows at the levels.
  const perLevel = (level: string) => (b: Record<string, unknown>) => (b.data as Record<string, Record<string, number | null>>)[level]!;
  for (const name of ['frost_days', 'average_high_temperature', 'total_precipitation', 'max_consecutive_dry_days', 'heat_wave_incidents', 'percentile_low_temperature']) {
    it(`${name}: relative_to (absolute and percent) and warming levels, with and without a baseline`, async () => {
      const windowed = (b: Record<string, unknown>) => (b.data as Record<string, Record<string, number | null>>)['2031-2050']!;
      const abs = await expectExact(w, 'RCP85', name, 'years=2031:2050&relative_to=1971', 'time_aggregation=window&windows=2031:2050&relative_to=1971', windowed);
      expect(abs.request.relative_to).toEqual({ start_year: 1971, end_year: 2000, change: 'absolute' });
      expect(abs.color_scale.kind).toBe('diverging');
      await expectExact(w, 'RCP85', name, 'years=2031:2050&relative_to=1976:2005&change=percent&agg=avg', 'time_aggregation=window&windows=2031:2050&relative_to=1976:2005&change=percent', windowed);
      const level = await expectExact(w, 'RCP85', name, 'warming_level=1.5', 'warming_level=1.5', perLevel('1.5'));
      expect(level.request.warming_level).toBe('1.5');
      expect(level.color_scale.kind).toBe('sequential');
      await expectExact(w, 'RCP85', name, 'warming_level=2&relative_to=1971&agg=median,max', 'warming_level=2&relative_to=1971', perLevel('2.0'));
    });
  }
});

describe('where', () => {
  it("a city's boundary, a bbox and a region are the cells the area endpoints read, whole and in id order", async () => {
    for (const where of [`city=${NYC}`, 'bbox=-74.3,40.5,-73.7,40.95']) {
      const m = await map(t, 'RCP85', 'frost_days', `years=2050:2052&${where}`);
      const area = await get(`/api/climate-data/area/RCP85/indicator/frost_days/?${where}`).expect(200);
      const ids = (area.body.area.properties.cells as { id: number }[]).map((c) => c.id);
      expect(m.cells.id).toEqual(ids);
      expect([...m.cells.id].sort((a, b) => a - b)).toEqual(m.cells.id);
      expect(m.request.area).toEqual(where.startsWith('city') ? { city: NYC } : { bbox: [-74.3, 40.5, -73.7, 40.95] });
      const grid = GRIDS['NEX-GDDP']!;
      m.cells.id.forEach((id, i) => {
        expect(m.cells.row[i]! * grid.cols + m.cells.col[i]!).toBe(id);
        expect(m.cells.lat[i]).toBe(grid.lat0 + (m.cells.row[i]! + 0.5) * grid.size);
      });
    }
    const region = t.catalog.regions[0]!;
    const res = await get(`/api/climate-data/map/RCP85/indicator/frost_days/?years=2050&region=${region.id}`);
    const area = await get(`/api/climate-data/area/RCP85/indicator/frost_days/?region=${region.id}`);
    expect(res.status).toBe(area.status);
  });

  it('none of them: every cell of the dataset with data, and the whole grid described', async () => {
    const m = await map(t, 'RCP85', 'frost_days', 'years=2050:2052');
    expect(m.cells.id).toEqual([...t.catalog.mapCells.ids('NEX-GDDP')]);
    expect(m.grid).toEqual({ dataset: 'NEX-GDDP', resolution: 0.25, origin: { lat: -90, lon: -180 }, rows: 720, cols: 1440, crs: 'EPSG:4326' });
    expect(m.request.area).toBeNull();
  });
});

describe('the colour scale', () => {
  it('every indicator has one', () => {
    expect(INDICATORS.filter((m) => !hasColourScale(m.name)).map((m) => m.name)).toEqual([]);
  });

  it('is fixed per indicator, units and kind: the same for other years, areas and models, not from the data', async () => {
    const a = await map(t, 'RCP85', 'average_high_temperature', 'years=2050:2052');
    const b = await map(t, 'RCP45', 'average_high_temperature', `years=2051&city=${NYC}&models=CCSM4`);
    expect(a.color_scale).toEqual(b.color_scale);
    expect(a.color_scale.kind).toBe('sequential');
    expect(a.color_scale.colors).toHaveLength(a.color_scale.breaks.length - 1);
    const c = await map(t, 'RCP85', 'average_high_temperature', 'years=2050:2052&units=C');
    expect(c.color_scale.breaks).not.toEqual(a.color_scale.breaks);
    // 10..110 F is -12.2..43.3 C: the Celsius breaks span it in round steps.
    expect(c.color_scale.breaks[0]).toBeLessThanOrEqual(-12.2);
    expect(c.color_scale.breaks.at(-1)).toBeGreaterThanOrEqual(40);
  });

  it('diverges around zero for changes, blue-red for temperature, brown-green for precipitation', async () => {
    const t1 = await map(w, 'RCP85', 'average_high_temperature', 'years=2031:2050&relative_to=1971');
    const p1 = await map(w, 'RCP85', 'total_precipitation', 'years=2031:2050&relative_to=1971&change=percent');
    for (const s of [t1.color_scale, p1.color_scale]) {
      expect(s.kind).toBe('diverging');
      expect(s.breaks[0]).toBe(-s.breaks.at(-1)!);
      expect(s.breaks[s.breaks.length >> 1]).toBe(0);
    }
    expect(t1.color_scale.palette).toBe('temp_div');
    expect(t1.color_scale.colors[0]).toMatch(/^#0/); // blue first
    expect(p1.color_scale.palette).toBe('prec_div');
    expect(p1.color_scale.breaks.at(-1)).toBe(50);
  });
});

/** A response body as bytes. */
const binary = (res: unknown, cb: (err: Error | null, body: Buffer) => void) => {
  const chunks: Buffer[] = [];
  const r = res as NodeJS.ReadableStream;
  r.on('data', (c: Buffer) => chunks.push(c));
  r.on('end', () => cb(null, Buffer.concat(chunks)));
};

const hasGdal = spawnSync('gdalinfo', ['--version']).status === 0;

describe('formats', () => {
  const url = `/api/climate-data/map/RCP85/indicator/average_high_temperature/?years=2050:2052&city=${NYC}&agg=median,90th`;

  it('GeoJSON: a polygon per cell, its values as properties', async () => {
    const m = (await get(url).expect(200)).body as MapBody;
    const res = await get(`${url}&format=geojson`).expect(200).expect('Content-Type', /application\/geo\+json/);
    const fc = JSON.parse(res.text);
    expect(fc.type).toBe('FeatureCollection');
    expect(fc.features).toHaveLength(m.cells.id.length);
    fc.features.forEach((f: { geometry: { type: string; coordinates: number[][][] }; properties: Record<string, number> }, i: number) => {
      expect(f.geometry.type).toBe('Polygon');
      const ring = f.geometry.coordinates[0]!;
      expect(ring).toHaveLength(5);
      expect(ring[0]).toEqual(ring[4]);
      const lons = ring.map((p) => p[0]!);
      const lats = ring.map((p) => p[1]!);
      expect(Math.max(...lons) - Math.min(...lons)).toBeCloseTo(0.25, 12);
      expect((Math.max(...lats) + Math.min(...lats)) / 2).toBeCloseTo(m.cells.lat[i]!, 12);
      expect(f.properties.id).toBe(m.cells.id[i]);
      expect(f.properties.median).toBe(m.values.median![i]);
      expect(f.properties['90th']).toBe(m.values['90th']![i]);
      expect(f.properties.models).toBe(m.models[i]);
    });
    expect(fc.color_scale).toEqual(m.color_scale);
    expect(res.headers['content-disposition']).toMatch(/\.geojson"$/);
  });

  it('CSV: a row per cell', async () => {
    const m = (await get(url).expect(200)).body as MapBody;
    const res = await get(url).set('Accept', 'text/csv').expect(200).expect('Content-Type', /text\/csv/);
    const [header, ...rows] = res.text.trimEnd().split('\n');
    expect(header).toBe('dataset,scenario,indicator,units,period,cell_id,lat,lon,row,col,models,median,90th');
    expect(rows).toHaveLength(m.cells.id.length);
    rows.forEach((row, i) => {
      const f = row.split(',');
      expect(f.slice(0, 5)).toEqual(['NEX-GDDP', 'RCP85', 'average_high_temperature', 'F', '2050-2052']);
      expect(Number(f[5])).toBe(m.cells.id[i]);
      expect(Number(f[11])).toBe(m.values.median![i]);
      expect(Number(f[12])).toBe(m.values['90th']![i]);
    });
  });

  it('GeoTIFF: a float32 band per statistic, georeferenced in EPSG:4326, NaN outside the cells', async () => {
    const m = (await get(url).expect(200)).body as MapBody;
    const res = await get(`${url}&format=geotiff`)
      .buffer(true)
      .parse(binary)
      .expect(200)
      .expect('Content-Type', 'image/tiff');
    const bytes = res.body as Buffer;
    const tiff = await fromArrayBuffer(new Uint8Array(bytes).buffer);
    const image = await tiff.getImage();
    const r0 = Math.min(...m.cells.row);
    const r1 = Math.max(...m.cells.row);
    const c0 = Math.min(...m.cells.col);
    const c1 = Math.max(...m.cells.col);
    expect([image.getWidth(), image.getHeight(), image.getSamplesPerPixel()]).toEqual([c1 - c0 + 1, r1 - r0 + 1, 2]);
    expect(image.getResolution().slice(0, 2)).toEqual([0.25, -0.25]);
    expect(image.getOrigin().slice(0, 2)).toEqual([-180 + c0 * 0.25, -90 + (r1 + 1) * 0.25]);
    expect(image.getGeoKeys()).toMatchObject({ GTModelTypeGeoKey: 2, GTRasterTypeGeoKey: 1, GeographicTypeGeoKey: 4326 });
    expect(image.getGDALNoData()).toBeNaN();
    expect(image.getSampleFormat(0)).toBe(3);
    expect(image.getBitsPerSample(1)).toBe(32);
    const bands = (await image.readRasters()) as unknown as Float32Array[];
    const width = c1 - c0 + 1;
    const inMap = new Set<number>();
    ['median', '90th'].forEach((agg, b) =>
      m.cells.id.forEach((_, i) => {
        const at = (r1 - m.cells.row[i]!) * width + (m.cells.col[i]! - c0);
        inMap.add(at);
        expect(bands[b]![at]).toBe(Math.fround(m.values[agg]![i]!));
      }),
    );
    const outside = [...bands[0]!.keys()].filter((k) => !inMap.has(k));
    for (const k of outside) expect(bands[0]![k]).toBeNaN();
    expect(new TextDecoder().decode(bytes)).toContain('<Item name="DESCRIPTION" sample="1" role="description">90th</Item>');
  });

  // GDAL is not needed by the suite; where it is installed (apt-get install gdal-bin) it must read the file as written.
  it.skipIf(!hasGdal)('GeoTIFF: GDAL reads its georeferencing, bands and values', async () => {
    const m = (await get(url).expect(200)).body as MapBody;
    const res = await get(`${url}&format=geotiff`).buffer(true).parse(binary).expect(200);
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'map-tiff-'));
    const file = path.join(dir, 'map.tif');
    fs.writeFileSync(file, res.body as Buffer);
    const info = JSON.parse(execFileSync('gdalinfo', ['-json', file], { encoding: 'utf8' }));
    expect(info.driverShortName).toBe('GTiff');
    expect(info.coordinateSystem.wkt).toMatch(/ID\["EPSG",4326\]\]$/);
    expect(info.geoTransform[1]).toBe(0.25);
    expect(info.bands.map((b: { description: string; type: string }) => [b.description, b.type])).toEqual([['median', 'Float32'], ['90th', 'Float32']]);
    expect(info.bands[0].noDataValue).toBe('NaN');
    const i = m.cells.id.length - 1;
    const out = execFileSync('gdallocationinfo', ['-wgs84', '-valonly', file, String(m.cells.lon[i]), String(m.cells.lat[i])], { encoding: 'utf8' }).trim().split('\n').map(Number);
    // gdallocationinfo prints 15 significant digits of the float32.
    expect(out).toHaveLength(2);
    expect(out[0]).toBeCloseTo(Math.fround(m.values.median![i]!), 9);
    expect(out[1]).toBeCloseTo(Math.fround(m.values['90th']![i]!), 9);
    fs.rmSync(dir, { recursive: true, force: true });
  });

  it('format wins over Accept; a bad format is a 400 naming the four', async () => {
    const res = await get(`${url}&format=json`).set('Accept', 'text/csv').expect(200);
    expect(res.headers['content-type']).toMatch(/application\/json/);
    const bad = await get(`${url}&format=arrow`).expect(400);
    expect(bad.body.detail).toBe("format must be one of json, geojson, csv, geotiff; got 'arrow'.");
  });
});

describe('caching', () => {
  it('has an ETag and Cache-Control, and answers 304 to If-None-Match', async () => {
    const u = '/api/climate-data/map/RCP85/indicator/frost_days/?years=2050:2052';
    const res = await get(u).set('Host', 'api.test').expect(200);
    expect(res.headers.etag).toMatch(/^W\/"/);
    expect(res.headers['cache-control']).toMatch(/private, max-age=/);
    const again = await get(u).set('Host', 'api.test').set('If-None-Match', res.headers.etag!);
    expect(again.status, `${res.headers.etag} then ${again.headers.etag}`).toBe(304);
    const other = await get(`${u}&agg=avg`).set('Host', 'api.test').expect(200);
    expect(other.headers.etag).not.toBe(res.headers.etag);
  });
});

describe('errors', () => {
  const base = '/api/climate-data/map/RCP85/indicator/frost_days/';
  const cases: [string, number, RegExp][] = [
    ['', 400, /Give the map's period: years .* or warming_level/],
    ['?years=2050&warming_level=2', 400, /Give one of years and warming_level/],
    ['?years=2050-2060', 400, /years must be one span of years start:end/],
    ['?years=2060:2050', 400, /the start year must not be after the end year/],
    ['?years=2090:2099', 400, /years: 2090:2099 has no year within RCP85's years in this data, 2050-2052/],
    ['?warming_level=1.5,2', 400, /warming_level: a map shows one level/],
    ['?warming_level=7', 400, /warming_level accepts/],
    ['?years=2050&agg=middle', 400, /agg accepts/],
    ['?years=2050&units=C', 400, /units must be one of days for frost_days/],
    ['?years=2050&models=NOPE', 400, /NOPE/],
    ['?years=2050&dataset=NOPE', 400, /Dataset NOPE does not exist/],
    ['?years=2050&dataset=NEX-GDDP-CMIP6', 400, /has no scenario RCP85/],
    ['?years=2050&bbox=1,2,3', 400, /bbox/],
    ['?years=2050&bbox=-74.3,40.5,-73.7,40.9&city=5128581', 400, /exactly one of region, city or bbox; got city and bbox/],
    ['?years=2050&city=abc', 400, /city must be an integer id/],
    ['?years=2050&city=1', 404, /City 1 does not exist/],
    ['?years=2050&bbox=10,10,10.5,10.5', 404, /No NEX-GDDP data for this area/],
    ['?years=2050&relative_to=1971', 400, /relative_to/],
  ];
  it.each(cases)('%s -> %i', async (qs, status, detail) => {
    const res = await get(`${base}${qs}`);
    expect(res.status, JSON.stringify(res.body)).toBe(status);
    expect(res.body.detail).toMatch(detail);
  });

  it('an unknown indicator or scenario is a 404', async () => {
    await get('/api/climate-data/map/RCP85/indicator/nope/?years=2050').expect(404);
    await get('/api/climate-data/map/RCP99/indicator/frost_days/?years=2050').expect(404);
  });

  it('past MAP_MAX_CELLS, any map is a 400 that says the limit and points to exports', async () => {
    const small = await testApp({ ...LIMITS, MAP_MAX_CELLS: '11' });
    const res = await getOn(small, '/api/climate-data/map/RCP85/indicator/frost_days/?years=2050').expect(400);
    expect(res.body.detail).toBe("This map has 12 cells; the limit is 11 (MAP_MAX_CELLS). Ask for a smaller bbox or region, or export the cells' values (POST /api/export/).");
    await getOn(small, `/api/climate-data/map/RCP85/indicator/frost_days/?years=2050&city=${NYC}`).expect(200);
  });

  it('past MAP_MAX_DAY_CELLS, a map that must read the days is a 400 that says the limit and points to exports; from the summaries it is not limited', async () => {
    const small = await testApp({ ...LIMITS, MAP_MAX_DAY_CELLS: '3' });
    const res = await getOn(small, '/api/climate-data/map/RCP85/indicator/percentile_high_temperature/?years=2050&percentile=90').expect(400);
    expect(res.body.detail).toMatch(/This map has 12 cells whose values must be computed from the days .*the limit is 3 \(MAP_MAX_DAY_CELLS\).*export/);
    const fromSummaries = await getOn(small, '/api/climate-data/map/RCP85/indicator/percentile_high_temperature/?years=2050').expect(200);
    expect(fromSummaries.body.cells.id).toHaveLength(12);
    // Humid heat reduces the days whatever its parameters: its default map is read from the map files, others are limited; so are the threshold counts.
    await getOn(small, '/api/climate-data/map/ssp585/indicator/max_heat_index/?years=2050&dataset=NEX-GDDP-CMIP6').expect(200);
    const humid = await getOn(small, '/api/climate-data/map/ssp585/indicator/max_heat_index/?years=2050&dataset=NEX-GDDP-CMIP6&units=C').expect(400);
    expect(humid.body.detail).toMatch(/This map has 10 cells .*MAP_MAX_DAY_CELLS/);
    await getOn(small, '/api/climate-data/map/RCP85/indicator/max_temperature_threshold/?years=2050&threshold=70&threshold_units=F&threshold_comparator=gte').expect(400);
    for (const name of ['frost_days', 'max_consecutive_dry_days', 'extreme_heat_events', 'max_nday_precipitation']) await getOn(small, `/api/climate-data/map/RCP85/indicator/${name}/?years=2050`).expect(200);
    // Within the limit, the days are read.
    await getOn(small, `/api/climate-data/map/RCP85/indicator/percentile_high_temperature/?years=2050&percentile=90&bbox=-74.05,40.6,-73.95,40.7`).expect(200);
  });
});

/** The map file of an indicator in a build (one per key; the build writes the default's). */
function mapFileOf(dataDir: string, dataset: string, scenario: string, name: string): string {
  const dir = path.join(dataDir, 'maps', dataset, scenario);
  const files = fs.readdirSync(dir).filter((f) => f.startsWith(`${name}-`) && f.endsWith('.parquet'));
  expect(files, `${dir}: ${name}`).toHaveLength(1);
  return path.join(dir, files[0]!);
}

/** Runs `sql` with $file the map file, rewriting it from its own rows. */
async function rewriteMapFile(file: string, select: string) {
  const db = await openDuckDB({ threads: 1, memoryLimit: '256MB' });
  const conn = await db.connect();
  try {
    await conn.run(`COPY (${select.replaceAll('$file', sqlString(file))}) TO ${sqlString(`${file}.new`)} (FORMAT parquet)`);
    fs.renameSync(`${file}.new`, file);
  } finally {
    conn.closeSync();
    await db.close();
  }
}

describe('the map files: what a map at the default parameters reads', () => {
  const tmpRoot = fs.mkdtempSync(path.join(os.tmpdir(), 'climate-map-files-'));
  afterAll(() => fs.rmSync(tmpRoot, { recursive: true, force: true }));

  it('the build has one per built scenario of every indicator with default parameters', () => {
    const withDefaults = INDICATORS.filter((m) => !m.parameters.some((p) => p.name === 'threshold'));
    const dataDir = inject('dataDir');
    for (const dataset of ['NEX-GDDP', 'NEX-GDDP-CMIP6']) {
      // NEX-GDDP has no humid-heat variables.
      const names = withDefaults.filter((m) => dataset === 'NEX-GDDP-CMIP6' || m.variables.every((v) => ['tasmax', 'tasmin', 'pr'].includes(v)));
      const scenarios = fs.readdirSync(path.join(dataDir, 'climate', dataset));
      expect(scenarios).toContain('historical');
      for (const scenario of scenarios) for (const meta of names) mapFileOf(dataDir, dataset, scenario, meta.name);
      expect(fs.readdirSync(path.join(dataDir, 'maps', dataset, scenarios[0]!))).toHaveLength(names.length);
    }
  });

  it("are read: a changed file changes the map; a cell missing from it is computed, and counts against MAP_MAX_DAY_CELLS", async () => {
    const dataDir = copyOfTestData(tmpRoot, 'build');
    const fresh = await testApp({ ...LIMITS, MAP_MAX_DAY_CELLS: '3' }, dataDir);
    const url = '/api/climate-data/map/RCP85/indicator/frost_days/?years=2050:2052&agg=median';
    const before = (await getOn(fresh, url).expect(200)).body as MapBody;
    const [changed, missing] = before.cells.id;
    const frost = mapFileOf(dataDir, 'NEX-GDDP', 'RCP85', 'frost_days');
    await rewriteMapFile(frost, `SELECT cell_id, model, first_year, CASE WHEN cell_id = ${changed} THEN list_transform(vals, v -> v + 1000) ELSE vals END AS vals, ascending FROM read_parquet($file) WHERE cell_id <> ${missing} ORDER BY cell_id, model`);
    const after = (await getOn(fresh, url).expect(200)).body as MapBody;
    expect(after.values.median![0]).toBeCloseTo(before.values.median![0]! + 1000, 9);
    expect(after.values.median![1]).toBe(before.values.median![1]);
    expect(after.values.median!.slice(2)).toEqual(before.values.median!.slice(2));

    // Humid heat reads the days: its map is answered while the cells to compute are within the limit.
    const humidUrl = '/api/climate-data/map/ssp585/indicator/max_heat_index/?years=2050&dataset=NEX-GDDP-CMIP6';
    const humid = mapFileOf(dataDir, 'NEX-GDDP-CMIP6', 'ssp585', 'max_heat_index');
    const whole = (await getOn(fresh, humidUrl).expect(200)).body as MapBody;
    await rewriteMapFile(humid, `SELECT * FROM read_parquet($file) WHERE cell_id NOT IN (${whole.cells.id.slice(0, 3).join(',')}) ORDER BY cell_id, model`);
    expect(((await getOn(fresh, humidUrl).expect(200)).body as MapBody).values).toEqual(whole.values);
    await rewriteMapFile(humid, `SELECT * FROM read_parquet($file) WHERE cell_id NOT IN (${whole.cells.id.slice(0, 4).join(',')}) ORDER BY cell_id, model`);
    const refused = await getOn(fresh, humidUrl).expect(400);
    expect(refused.body.detail).toMatch(/^This map has 4 cells whose values must be computed from the days .*the limit is 3 \(MAP_MAX_DAY_CELLS\)/);
  });
});
