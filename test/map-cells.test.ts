import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import request from 'supertest';
import { afterAll, beforeAll, describe, expect, it, inject } from 'vitest';
import { checkCellFiles } from '../src/dataBuild/buildCheck.js';
import { cellsWithDays, climateFile } from '../src/dataBuild/files.js';
import { openDuckDB } from '../src/db/duckdb.js';
import { distanceMeters } from '../src/reference/cityQuery.js';
import { cellAt, cellCentre, GRIDS, normalizeLon } from '../src/reference/grids.js';
import { COASTAL, MapCells, OCEAN, type MapCell } from '../src/reference/mapCells.js';
import { testApp, type TestApp } from './helpers.js';
import { boxCell, writeRegionBuild, type CellBox } from '../scripts/largeCatalog/regionBuild.js';

/**
 * The catalog's map cells at the size of a region ingest: lookups through the grid index
 * (src/reference/mapCells.ts) against a brute force over every cell, in memory on a large random
 * catalog and over HTTP on a build with 13,000 cells added; the reload's check of such a build.
 */

/** The cells with data as a list in the catalog's order (by dataset, then id), and by key. */
interface Scanned {
  cells: MapCell[];
  byKey: Map<string, MapCell>;
  byDataset: Map<string, MapCell[]>;
}

function scanned(cells: MapCell[]): Scanned {
  const byDataset = new Map<string, MapCell[]>();
  for (const c of cells) {
    let list = byDataset.get(c.dataset);
    if (!list) byDataset.set(c.dataset, (list = []));
    list.push(c);
  }
  return { cells, byKey: new Map(cells.map((c) => [`${c.dataset}:${c.cellId}`, c])), byDataset };
}

/** What the lookups answered before the index: every cell looked at, in the catalog's order. */
function bruteNear({ cells, byKey, byDataset }: Scanned, lat: number, lon: number, distance: number, dataset?: string) {
  const x = normalizeLon(lon);
  const found = new Map<string, { cell: MapCell; distance: number }>();
  for (const grid of Object.values(GRIDS)) {
    if (dataset !== undefined && grid.dataset !== dataset) continue;
    const id = cellAt(grid, lat, x);
    const cell = id === undefined ? undefined : byKey.get(`${grid.dataset}:${id}`);
    if (cell) found.set(`${cell.dataset}:${id}`, { cell, distance: distanceMeters(lat, x, cell.lat, cell.lon) });
  }
  if (distance > 0) {
    for (const cell of dataset === undefined ? cells : (byDataset.get(dataset) ?? [])) {
      const d = distanceMeters(lat, x, cell.lat, cell.lon);
      if (d <= distance) found.set(`${cell.dataset}:${cell.cellId}`, { cell, distance: d });
    }
  }
  return [...found.values()].sort((a, b) => a.distance - b.distance);
}

const text = (matches: { cell: MapCell; distance: number }[]) => matches.map((m) => `${m.cell.dataset}:${m.cell.cellId}:${m.distance}`).join('\n');

/** Deterministic pseudo-random numbers. */
function rng(seed: number) {
  let s = seed >>> 0;
  return () => {
    s = (Math.imul(s ^ (s >>> 15), 0x2c1b3c6d) + 0x9e3779b9) >>> 0;
    return s / 2 ** 32;
  };
}

describe('cellsWithDays: the cells of a scenario with days, from one listing of its folder', () => {
  const root = fs.mkdtempSync(path.join(os.tmpdir(), 'climate-cells-with-days-'));
  const dir = path.join(root, 'climate', 'NEX-GDDP', 'RCP85');
  afterAll(() => fs.rmSync(root, { recursive: true, force: true }));
  const touch = (name: string) => fs.writeFileSync(path.join(dir, name), '');
  const expectAsClimateFile = () => {
    const listed = cellsWithDays(root, 'NEX-GDDP', 'RCP85');
    for (let id = 0; id < 40; id++) expect(listed.has(id), `cell ${id}`).toBe(climateFile(root, 'NEX-GDDP', 'RCP85', id) !== undefined);
    return listed;
  };

  it("answers climateFile's question for every cell, as the folder changes; a missing folder has none", () => {
    expect(cellsWithDays(root, 'NEX-GDDP', 'RCP85').size).toBe(0);
    fs.mkdirSync(dir, { recursive: true });
    for (const name of ['1.parquet', '22.parquet', '3.parquet.tmp-1234', 'notes.txt']) touch(name);
    // An old folder: its listing is kept until the folder changes.
    const old = new Date(Date.now() - 60_000);
    fs.utimesSync(dir, old, old);
    expect([...expectAsClimateFile()].sort((a, b) => a - b)).toEqual([1, 22]);
    touch('5.parquet');
    expect([...expectAsClimateFile()].sort((a, b) => a - b)).toEqual([1, 5, 22]);
    fs.rmSync(path.join(dir, '22.parquet'));
    expect([...expectAsClimateFile()].sort((a, b) => a - b)).toEqual([1, 5]);
  });

  it('does not keep the listing of a folder changed in the last second: a file added in the same clock tick is seen', () => {
    touch('7.parquet');
    const { mtime } = fs.statSync(dir);
    expect(cellsWithDays(root, 'NEX-GDDP', 'RCP85').has(8)).toBe(false);
    // A file written within the tick of the listing leaves the folder's time as it was.
    touch('8.parquet');
    fs.utimesSync(dir, mtime, mtime);
    expect(expectAsClimateFile().has(8)).toBe(true);
  });
});

describe('map cells: lookups through the grid index on a large catalog', () => {
  // About 65,000 cells: a random 3% of the whole 0.25 degree grid (poles and the date line
  // included), half of a 240 x 240 block of LOCA2, and the same NEX-GDDP cells as NEX-GDDP-CMIP6
  // (the two share their centres: ties, answered in GRIDS order).
  const r = rng(27);
  const cells: MapCell[] = [];
  const add = (dataset: string, cellId: number) => {
    const { lat, lon } = cellCentre(GRIDS[dataset]!, cellId);
    cells.push({ dataset, cellId, lat, lon, ocean: r() < 0.1, coastal: r() < 0.2 });
  };
  const nex = GRIDS['NEX-GDDP-CMIP6']!;
  for (let id = 0; id < nex.rows * nex.cols; id++) if (r() < 0.03) add('NEX-GDDP-CMIP6', id);
  const global = cells.length;
  for (let k = 0; k < global; k += 8) add('NEX-GDDP', cells[k]!.cellId);
  const loca2 = GRIDS['LOCA2']!;
  for (let row = 200; row < 440; row++) for (let col = 300; col < 540; col++) if (r() < 0.5) add('LOCA2', row * loca2.cols + col);
  // The catalog's order: by dataset, then cell id.
  cells.sort((a, b) => (a.dataset < b.dataset ? -1 : a.dataset > b.dataset ? 1 : a.cellId - b.cellId));
  const scan = scanned(cells);
  const arrays = (name: string, list: MapCell[]) => ({
    name,
    ids: Int32Array.from(list, (c) => c.cellId),
    lats: Float64Array.from(list, (c) => c.lat),
    lons: Float64Array.from(list, (c) => c.lon),
    flags: Uint8Array.from(list, (c) => (c.ocean ? OCEAN : 0) | (c.coastal ? COASTAL : 0)),
  });
  const index = MapCells.of([...scan.byDataset].map(([name, list]) => arrays(name, list)));

  // Points: anywhere, over the LOCA2 block, near the date line, near the poles, on cell corners.
  const points: [number, number][] = [];
  for (let k = 0; k < 25; k++) points.push([-90 + 180 * r(), -180 + 360 * r()]);
  for (let k = 0; k < 25; k++) points.push([loca2.lat0 + (200 + 240 * r()) * loca2.size, loca2.lon0 + (300 + 240 * r()) * loca2.size]);
  for (let k = 0; k < 8; k++) points.push([-60 + 120 * r(), k % 2 ? 179.9 + 0.099 * r() : -180 + 0.1 * r()]);
  for (let k = 0; k < 6; k++) points.push([(k % 2 ? 1 : -1) * (89 + r()), -180 + 360 * r()]);
  points.push([40, -100], [0, 0], [-90, -180], [90, 180], [loca2.lat0 + 300 * loca2.size, loca2.lon0 + 400 * loca2.size]);

  it('holds every cell once, and finds each by dataset and id', () => {
    expect(index.count()).toBe(cells.length);
    expect([...index.all()]).toEqual(cells);
    for (const c of cells.filter((_, k) => k % 97 === 0)) expect(index.get(c.dataset, c.cellId)).toEqual(c);
    expect(index.get('LOCA2', 200 * loca2.cols + 299)).toBeUndefined();
    expect(index.get('LOCA', 1)).toBeUndefined();
    expect(index.ids('LOCA2')).toEqual(Int32Array.from(cells.filter((c) => c.dataset === 'LOCA2').map((c) => c.cellId)));
  });

  it('refuses cells out of id order, twice, or of a dataset without a grid', () => {
    const loca = scan.byDataset.get('LOCA2')!.slice(0, 10);
    expect(() => MapCells.of([arrays('LOCA2', [loca[1]!, loca[0]!, ...loca.slice(2)])])).toThrow(/LOCA2 map cells are not in increasing id order/);
    expect(() => MapCells.of([arrays('LOCA2', [loca[0]!, ...loca])])).toThrow(/not in increasing id order/);
    expect(() => MapCells.of([arrays('CORDEX', loca)])).toThrow(/dataset CORDEX, which has no grid/);
  });

  // CPU-bound for seconds on an idle machine: the 30 s default timed out on a loaded shared one.
  it('answers the containing cells and the cells within a distance as a scan of every cell does', { timeout: 120_000 }, () => {
    let compared = 0;
    for (const [lat, lon] of points) {
      for (const distance of [0, 1, 8_000, 30_000, 400_000]) {
        // One scan of every cell per point and distance; a dataset's answer is its part of it, in
        // the same order (the sort is stable), as bruteNear with the dataset gives.
        const all = bruteNear(scan, lat, lon, distance);
        for (const dataset of [undefined, 'LOCA2', 'NEX-GDDP-CMIP6']) {
          const want = dataset === undefined ? all : all.filter((m) => m.cell.dataset === dataset);
          expect(text(index.near(lat, lon, distance, dataset)), `(${lat}, ${lon}) within ${distance} m, ${dataset ?? 'every dataset'}`).toBe(text(want));
          compared += want.length;
        }
      }
    }
    // The comparisons were not all of empty answers.
    expect(compared).toBeGreaterThan(5_000);
  });

  it('answers distances that reach a pole or round the globe', () => {
    for (const [lat, lon] of [[85, 10], [-88.5, -170], [0, 179.99], [45, -180]] as [number, number][]) {
      for (const distance of [700_000, 3_000_000]) expect(text(index.near(lat, lon, distance, 'NEX-GDDP'))).toBe(text(bruteNear(scan, lat, lon, distance, 'NEX-GDDP')));
    }
    expect(index.near(10, 10, 30_000_000, 'NEX-GDDP')).toHaveLength(cells.filter((c) => c.dataset === 'NEX-GDDP').length);
  });

  it('answers the nearest cell as the first of a scan of every cell', () => {
    for (const [lat, lon] of points) {
      for (const distance of [0, 8_000, 400_000, 5_000_000]) {
        for (const dataset of ['LOCA2', 'NEX-GDDP-CMIP6', 'NEX-GDDP', 'LOCA']) {
          const want = bruteNear(scan, lat, lon, distance, dataset)[0];
          const got = index.nearest(lat, lon, distance, dataset);
          expect(got && text([got]), `nearest to (${lat}, ${lon}) within ${distance} m in ${dataset}`).toBe(want && text([want]));
        }
      }
    }
  });
});

describe('map cells: a build with every cell of a region', () => {
  const NYC = 5128581;
  let tmp: string;
  let dir: string;
  let t: TestApp;
  let cells: MapCell[];
  // 12,000 LOCA2 cells (6.25 x 7.5 degrees around Kansas) and 1,000 NEX-GDDP-CMIP6 ones (10 x 6.25) over them.
  const boxes: CellBox[] = [
    { dataset: 'LOCA2', row0: 400, col0: 560, cols: 100, count: 12_000 },
    { dataset: 'NEX-GDDP-CMIP6', row0: 510, col0: 310, cols: 40, count: 1_000 },
  ];
  const loca2 = GRIDS['LOCA2']!;
  const inBox = (k: number) => cellCentre(loca2, boxCell(boxes[0]!, k));
  const get = (url: string) => request(t.app).get(url).set('Authorization', `Token ${t.token}`);

  beforeAll(async () => {
    tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'map-cells-'));
    dir = path.join(tmp, 'build');
    await writeRegionBuild(inject('dataDir'), dir, boxes, 'ssp245', 'region-test');
    t = await testApp({ THROTTLE_BURST_RATE: '1000000/min', THROTTLE_SUSTAINED_RATE: '100000000/day' }, dir);
    // The cells with data as the table holds them, read here without the service's loader.
    const db = await openDuckDB({ threads: 2, memoryLimit: '512MB' });
    const conn = await db.connect();
    const rows = (await conn.runAndReadAll(`SELECT dataset, cell_id::INTEGER, lat, lon, ocean, coastal FROM read_parquet($f) WHERE has_data ORDER BY dataset, cell_id`, { f: path.join(dir, 'catalog', 'map_cell.parquet') })).getRowsJS() as [string, number, number, number, boolean, boolean][];
    cells = rows.map(([dataset, cellId, lat, lon, ocean, coastal]) => ({ dataset, cellId, lat, lon, ocean, coastal }));
    conn.closeSync();
    await db.close();
  }, 120_000);

  afterAll(() => fs.rmSync(tmp, { recursive: true, force: true }));

  it('loads every cell with data of the table', () => {
    expect(cells.length).toBeGreaterThan(13_000);
    expect([...t.catalog.mapCells.all()]).toEqual(cells);
  });

  it('answers GET /api/map-cell/{lat}/{lon}/ inside and around the region as a scan of every cell', async () => {
    const r = rng(5);
    const west = loca2.lon0 + boxes[0]!.col0 * loca2.size;
    const south = loca2.lat0 + boxes[0]!.row0 * loca2.size;
    const points: [number, number][] = [];
    for (let k = 0; k < 12; k++) points.push([south + 7.4 * r(), west + 6.3 * r()]);
    // Outside the region's edges, where only a distance reaches its cells.
    points.push([south + 3, west - 0.05], [south - 0.08, west + 2], [south + 7.6, west + 3]);
    const scan = scanned(cells);
    let answered = 0;
    for (const [y, x] of points) {
      const [lat, lon] = [y.toFixed(5), x.toFixed(5)];
      for (const distance of [0, 12_000]) {
        const want = bruteNear(scan, Number(lat), Number(lon), distance).map((m) => ({
          type: 'Feature',
          geometry: { type: 'Point', coordinates: [m.cell.lon, m.cell.lat] },
          properties: { datasets: [m.cell.dataset], distance_meters: Math.round(m.distance), proximity: { ocean: m.cell.ocean, coastal: m.cell.coastal } },
        }));
        const res = await get(`/api/map-cell/${lat}/${lon}/?distance=${distance}`).expect(want.length > 0 ? 200 : 404);
        if (want.length > 0) expect(res.body).toEqual(want);
        answered += want.length;
      }
    }
    // Within 12 km a point has several LOCA2 cells (1/16 degree is 5-7 km).
    expect(answered).toBeGreaterThan(points.length * 5);
  });

  it("reads an added cell's file for a point in it, and the nearest one for a point beside the region", async () => {
    const cityValues = (await get(`/api/climate-data/${NYC}/ssp245/?dataset=LOCA2&models=ACCESS-CM2&years=2050&variables=tasmax`).expect(200)).body.data;
    const centre = inBox(4321);
    const inside = (await get(`/api/climate-data/${centre.lat + 0.01}/${centre.lon - 0.02}/ssp245/?dataset=LOCA2&models=ACCESS-CM2&years=2050&variables=tasmax`).expect(200)).body;
    expect(inside.feature.geometry.coordinates).toEqual([centre.lon, centre.lat]);
    // The added cells' files are links to NYC's cell's.
    expect(inside.data).toEqual(cityValues);
    const edge = inBox(100 * 37);
    const beside = (await get(`/api/climate-data/${edge.lat}/${edge.lon - 0.1}/ssp245/?dataset=LOCA2&models=ACCESS-CM2&years=2050&variables=tasmax&distance=10000`).expect(200)).body;
    expect(beside.feature.geometry.coordinates).toEqual([edge.lon, edge.lat]);
    await get(`/api/climate-data/${edge.lat}/${edge.lon - 0.1}/ssp245/?dataset=LOCA2&models=ACCESS-CM2&years=2050&variables=tasmax`).expect(404);
  });

  it("answers an area inside the region with the region's cells it overlaps", async () => {
    const c = inBox(5050);
    const [x0, y0, x1, y1] = [c.lon - 0.1, c.lat - 0.1, c.lon + 0.13, c.lat + 0.12];
    const res = await get(`/api/climate-data/area/ssp245/indicator/frost_days/?dataset=LOCA2&bbox=${x0},${y0},${x1},${y1}`).expect(200);
    const half = loca2.size / 2;
    const want = cells.filter((m) => m.dataset === 'LOCA2' && m.lon + half > x0 && m.lon - half < x1 && m.lat + half > y0 && m.lat - half < y1).map((m) => m.cellId);
    expect(want.length).toBeGreaterThan(20);
    expect(res.body.area.properties.cells.map((x: { id: number }) => x.id)).toEqual(want);
  });

  it("checks every cell file of the region's build, and names a cell with data whose days are missing", async () => {
    await checkCellFiles(dir, JSON.parse(fs.readFileSync(path.join(dir, 'manifest.json'), 'utf8')), t.catalog.mapCells);
    const id = boxCell(boxes[0]!, 777);
    const files = ['climate', 'monthly', 'ensemble', 'ensemble_json'].map((tree) => path.join(dir, tree, 'LOCA2', 'ssp245', `${id}.parquet`));
    const kept = path.join(tmp, 'kept.parquet');
    fs.linkSync(files[0]!, kept);
    try {
      fs.rmSync(files[0]!);
      await expect(checkCellFiles(dir, {}, t.catalog.mapCells)).rejects.toThrow(new RegExp(`climate/LOCA2/ssp245/${id}\\.parquet is missing`));
      for (const f of files.slice(1)) fs.renameSync(f, `${f}.away`);
      await expect(checkCellFiles(dir, {}, t.catalog.mapCells)).rejects.toThrow(new RegExp(`the catalog's LOCA2 cell ${id} has data but no file in climate/`));
    } finally {
      fs.renameSync(kept, files[0]!);
      for (const f of files.slice(1)) if (fs.existsSync(`${f}.away`)) fs.renameSync(`${f}.away`, f);
    }
    await checkCellFiles(dir, JSON.parse(fs.readFileSync(path.join(dir, 'manifest.json'), 'utf8')), t.catalog.mapCells);
  });
});
