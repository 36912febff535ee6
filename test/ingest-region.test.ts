import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import h5wasm from 'h5wasm/node';
import request from 'supertest';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { planArchive, writeArchive, type ArchiveRequest } from '../scripts/archiveModel/archive.js';
import { cellPath } from '../src/dataBuild/files.js';
import { parseBbox, type Bbox } from '../src/ingest/netcdf/cellSelection.js';
import { ingestNetcdf, IngestError, type IngestSummary } from '../src/ingest/netcdf/ingest.js';
import { cellAt, cellCentre, GRIDS, normalizeLon } from '../src/reference/grids.js';
import { testApp, type TestApp } from './helpers.js';
import { copyOfTestData, expectClose, get, THROTTLE } from './ingest-support.js';

/**
 * make ingest BBOX=...: every cell of a box, from files shaped as the publishers' (the scale model,
 * scripts/archiveModel/), served over HTTP with the files' values. Expectations come from the files
 * themselves, read with the HDF5 library (h5wasm), not from the ingest's reader.
 */
const tmpRoot = fs.mkdtempSync(path.join(os.tmpdir(), 'climate-ingest-region-'));
afterAll(() => fs.rmSync(tmpRoot, { recursive: true, force: true }));

/**
 * The coast of Nova Scotia around Halifax: land and sea, and no catalogue city (their cells would
 * be ingested too). The files cover more than the boxes ingested, as a publisher's global files do.
 */
const FILES_BOX: Bbox = [-64.5, 44.0, -62.5, 45.5];
const BOX: Bbox = [-63.9, 44.3, -63.15, 44.95];
const SMALL_BOX: Bbox = [-63.9, 44.3, -63.5, 44.7];
const LOCA2_FILES_BOX: Bbox = [-63.75, 44.5, -63.3, 44.85];
const LOCA2_BOX: Bbox = [-63.65, 44.6, -63.4, 44.75];

/** Values of a file's variable per cell centre "lat:lon" (lon -180..180), one array of time steps each. */
interface FileValues {
  days: number;
  cells: Map<string, Float32Array>;
}
const key = (lat: number, lon: number) => `${lat}:${normalizeLon(lon)}`;

async function fileValues(file: string, variable: string): Promise<FileValues> {
  await h5wasm.ready;
  const f = new h5wasm.File(file, 'r');
  try {
    const lats = Array.from((f.get('lat') as unknown as { value: Float64Array }).value);
    const lons = Array.from((f.get('lon') as unknown as { value: Float64Array }).value);
    const v = (f.get(variable) as unknown as { value: Float32Array; shape: number[] });
    const [nt, ni, nj] = v.shape as [number, number, number];
    const all = v.value;
    const cells = new Map<string, Float32Array>();
    lats.forEach((lat, i) =>
      lons.forEach((lon, j) => {
        const series = new Float32Array(nt);
        for (let t = 0; t < nt; t++) series[t] = all[(t * ni + i) * nj + j]!;
        cells.set(key(lat, lon), series);
      }),
    );
    return { days: nt, cells };
  } finally {
    f.close();
  }
}

const FILL = Math.fround(1e20);
type MapCellFeature = { geometry: { coordinates: number[] }; properties: { datasets: string[] } };
const isSea = (s: Float32Array) => s.every((x) => x === FILL);

/** The grid cells of a box (as the ingest takes them: every cell holding a point of it). */
function cellsOfBox(dataset: string, [w, s, e, n]: Bbox): number[] {
  const g = GRIDS[dataset]!;
  const out: number[] = [];
  for (let lat = s; ; lat = Math.min(n, lat + g.size)) {
    for (let lon = w; ; lon = Math.min(e, lon + g.size)) {
      out.push(cellAt(g, lat, lon)!);
      if (lon === e) break;
    }
    if (lat === n) break;
  }
  return [...new Set(out)].sort((a, b) => a - b);
}

async function served(t: TestApp, dataset: string, lat: number, lon: number, scenario: string, model: string, year: number, variable: string) {
  const res = await get(t, `/api/climate-data/${lat}/${lon}/${scenario}/?dataset=${dataset}&models=${model}&years=${year}&variables=${variable}`).expect(200);
  return res.body.data[String(year)][variable] as (number | null)[];
}

const archive = (dir: string, req: Omit<ArchiveRequest, 'bbox'>, bbox = FILES_BOX) =>
  writeArchive(dir, planArchive({ ...req, bbox })).then((r) => r.written.concat(r.kept));

describe('make ingest BBOX=...: every cell of a box', () => {
  let dataDir: string;
  let small: IngestSummary;
  let whole: IngestSummary;
  let again: IngestSummary;
  let loca: IngestSummary;
  let app: TestApp;
  const files: Record<string, string | undefined> = {};
  const afterWhole: Record<string, Buffer> = {};
  let manifestAfterWhole: string;
  let manifestAfterAgain: string;

  beforeAll(async () => {
    const root = path.join(tmpRoot, 'archive');
    const nex = (models: string[], variables: ('tasmax' | 'pr')[], years: [number, number]) =>
      archive(root, { dataset: 'NEX-GDDP-CMIP6', models, scenarios: ['ssp245'], years, variables });
    // A gregorian model (both years, two variables), a 365_day and a 360_day one, 2052 a leap year.
    [files.access2052] = await nex(['ACCESS-CM2'], ['tasmax'], [2052, 2052]);
    [files.access2051] = await nex(['ACCESS-CM2'], ['tasmax'], [2051, 2051]);
    [files.accessPr] = await nex(['ACCESS-CM2'], ['pr'], [2052, 2052]);
    [files.canesm] = await nex(['CanESM5'], ['tasmax'], [2052, 2052]);
    [files.ukesm] = await nex(['UKESM1-0-LL'], ['tasmax'], [2052, 2052]);
    [files.loca2] = await archive(root, { dataset: 'LOCA2', models: ['ACCESS-CM2'], scenarios: ['ssp245'], years: [2015, 2044], variables: ['tasmax'] }, LOCA2_FILES_BOX);

    dataDir = copyOfTestData(tmpRoot, 'build');
    const first = path.join(tmpRoot, 'first');
    fs.mkdirSync(first);
    fs.copyFileSync(files.access2052!, path.join(first, path.basename(files.access2052!)));
    // First a small box and one year, then the whole box and every file: adds to what is there.
    small = await ingestNetcdf({ dataDir, dataset: 'NEX-GDDP-CMIP6', sources: [first], bbox: SMALL_BOX, log: () => {} });
    const nexFiles = [files.access2052!, files.access2051!, files.accessPr!, files.canesm!, files.ukesm!];
    whole = await ingestNetcdf({ dataDir, dataset: 'NEX-GDDP-CMIP6', sources: nexFiles, bbox: BOX, log: () => {} });
    for (const cell of cellsOfBox('NEX-GDDP-CMIP6', BOX)) {
      for (const tree of ['climate', 'monthly', 'ensemble', 'ensemble_json'] as const) {
        const f = cellPath(dataDir, tree, 'NEX-GDDP-CMIP6', 'ssp245', cell);
        if (fs.existsSync(f)) afterWhole[f] = fs.readFileSync(f);
      }
    }
    manifestAfterWhole = fs.readFileSync(path.join(dataDir, 'manifest.json'), 'utf8');
    again = await ingestNetcdf({ dataDir, dataset: 'NEX-GDDP-CMIP6', sources: nexFiles, bbox: BOX, log: () => {} });
    manifestAfterAgain = fs.readFileSync(path.join(dataDir, 'manifest.json'), 'utf8');
    loca = await ingestNetcdf({ dataDir, dataset: 'LOCA2', sources: [files.loca2!], bbox: LOCA2_BOX, log: () => {} });
    app = await testApp(THROTTLE, dataDir);
  }, 600_000);

  it('serves the files\' values at every land cell of the box: gregorian, 365_day and 360_day models', async () => {
    const cases = [
      { file: files.access2052!, model: 'ACCESS-CM2', year: 2052, variable: 'tasmax', days: 366 },
      { file: files.access2051!, model: 'ACCESS-CM2', year: 2051, variable: 'tasmax', days: 365 },
      { file: files.accessPr!, model: 'ACCESS-CM2', year: 2052, variable: 'pr', days: 366 },
      { file: files.canesm!, model: 'CanESM5', year: 2052, variable: 'tasmax', days: 365 },
      { file: files.ukesm!, model: 'UKESM1-0-LL', year: 2052, variable: 'tasmax', days: 360 },
    ];
    let land = 0;
    for (const c of cases) {
      const inFile = await fileValues(c.file, c.variable);
      expect(inFile.days).toBe(c.days);
      for (const cell of cellsOfBox('NEX-GDDP-CMIP6', BOX)) {
        const centre = cellCentre(GRIDS['NEX-GDDP-CMIP6']!, cell);
        const want = inFile.cells.get(key(centre.lat, centre.lon))!;
        if (isSea(want)) continue;
        land++;
        const got = (await served(app, 'NEX-GDDP-CMIP6', centre.lat, centre.lon, 'ssp245', c.model, c.year, c.variable)).filter((v) => v !== null);
        // The calendar's days in order: 366 of a leap year, 365 without Feb 29, 360 mapped onto the year.
        expect(got).toHaveLength(c.days);
        got.forEach((v, t) => expectClose(v, want[t]!, false));
      }
    }
    expect(land).toBeGreaterThan(10);
  });

  it('serves LOCA2\'s 30-year file at every land cell of its box', async () => {
    const inFile = await fileValues(files.loca2!, 'tasmax');
    expect(inFile.days).toBe(10958);
    const cells = cellsOfBox('LOCA2', LOCA2_BOX);
    const land = cells.filter((cell) => {
      const c = cellCentre(GRIDS.LOCA2!, cell);
      return !isSea(inFile.cells.get(key(c.lat, c.lon))!);
    });
    expect(land.length).toBeGreaterThan(3);
    expect(loca.cellsWithData).toBeGreaterThanOrEqual(land.length);
    // 2015-01-01 is step 0; 2030-01-01 is step 5479; 2044-01-01 is step 10592.
    for (const [year, step] of [[2015, 0], [2030, 5479], [2044, 10592]] as const) {
      for (const cell of land) {
        const c = cellCentre(GRIDS.LOCA2!, cell);
        const got = await served(app, 'LOCA2', c.lat, c.lon, 'ssp245', 'ACCESS-CM2', year, 'tasmax');
        const want = inFile.cells.get(key(c.lat, c.lon))!;
        expect(got.filter((v) => v !== null)).toHaveLength(year === 2044 ? 366 : 365);
        got.filter((v) => v !== null).forEach((v, t) => expectClose(v, want[step + t]!, false));
      }
    }
  });

  it('skips and counts the sea cells; gives no cell outside the box', async () => {
    const inFile = await fileValues(files.access2052!, 'tasmax');
    const g = GRIDS['NEX-GDDP-CMIP6']!;
    const sea = cellsOfBox('NEX-GDDP-CMIP6', BOX).filter((cell) => {
      const c = cellCentre(g, cell);
      return isSea(inFile.cells.get(key(c.lat, c.lon))!);
    });
    expect(sea.length).toBeGreaterThan(0);
    expect(whole.cellsSkipped).toBe(sea.length);
    for (const cell of sea) {
      expect(fs.existsSync(cellPath(dataDir, 'climate', 'NEX-GDDP-CMIP6', 'ssp245', cell))).toBe(false);
      const c = cellCentre(g, cell);
      const res = await get(app, `/api/map-cell/${c.lat}/${c.lon}/`);
      expect(res.status === 404 || !res.body.some((f: MapCellFeature) => f.properties.datasets.includes('NEX-GDDP-CMIP6'))).toBe(true);
    }
    // A land cell of the files west of the box was read (a whole day is decoded) but not ingested.
    const west = cellAt(g, 44.875, -64.125)!;
    expect(isSea(inFile.cells.get(key(44.875, -64.125))!)).toBe(false);
    expect(fs.existsSync(cellPath(dataDir, 'climate', 'NEX-GDDP-CMIP6', 'ssp245', west))).toBe(false);
    await get(app, '/api/climate-data/44.875/-64.125/ssp245/?dataset=NEX-GDDP-CMIP6').expect(404);
  });

  it('answers any lat/lon inside the box with its cell, in batches and areas too', async () => {
    const g = GRIDS['NEX-GDDP-CMIP6']!;
    const withData = cellsOfBox('NEX-GDDP-CMIP6', BOX).filter((cell) => fs.existsSync(cellPath(dataDir, 'climate', 'NEX-GDDP-CMIP6', 'ssp245', cell)));
    // Points off the cells' centres, near their corners, each answers with the cell holding it.
    const points = withData.map((cell) => {
      const c = cellCentre(g, cell);
      return { lat: c.lat - 0.1, lon: c.lon + 0.11, cell };
    });
    const centreOf = (cell: number) => {
      const c = cellCentre(g, cell);
      return [c.lon, c.lat];
    };
    for (const p of points) {
      const res = await get(app, `/api/map-cell/${p.lat}/${p.lon}/`).expect(200);
      const feature = (res.body as MapCellFeature[]).find((f) => f.properties.datasets.includes('NEX-GDDP-CMIP6'))!;
      expect(feature.geometry.coordinates).toEqual(centreOf(p.cell));
    }
    const batch = await request(app.app)
      .post('/api/climate-data/batch/ssp245/?dataset=NEX-GDDP-CMIP6&models=ACCESS-CM2&years=2052&variables=tasmax')
      .set('Authorization', `Token ${app.token}`)
      .send({ locations: points.map(({ lat, lon }) => ({ lat, lon })) })
      .expect(200);
    expect(batch.body.results.map((r: { map_cell: MapCellFeature }) => r.map_cell.geometry.coordinates)).toEqual(points.map((p) => centreOf(p.cell)));
    for (const [k, r] of (batch.body.results as { data: Record<string, { tasmax: (number | null)[] }> }[]).entries()) {
      expect(r.data['2052']!.tasmax).toEqual(await served(app, 'NEX-GDDP-CMIP6', points[k]!.lat, points[k]!.lon, 'ssp245', 'ACCESS-CM2', 2052, 'tasmax'));
    }
    const area = await get(app, `/api/climate-data/area/ssp245/?bbox=${BOX.join(',')}&dataset=NEX-GDDP-CMIP6&models=ACCESS-CM2&years=2052&variables=tasmax`).expect(200);
    expect(area.body.area.properties.cells.map((c: { id: number }) => c.id).sort((a: number, b: number) => a - b)).toEqual(withData);
  });

  it('adds a larger box and more years to what is there', async () => {
    const inFile = await fileValues(files.access2052!, 'tasmax');
    const g = GRIDS['NEX-GDDP-CMIP6']!;
    const land = (box: Bbox) => cellsOfBox('NEX-GDDP-CMIP6', box).filter((cell) => {
      const c = cellCentre(g, cell);
      return !isSea(inFile.cells.get(key(c.lat, c.lon))!);
    });
    const smallLand = land(SMALL_BOX);
    const bigLand = land(BOX);
    expect(smallLand.length).toBeGreaterThan(0);
    expect(bigLand.length).toBeGreaterThan(smallLand.length);
    expect([small.newCells, small.cellsSkipped]).toEqual([smallLand.length, cellsOfBox('NEX-GDDP-CMIP6', SMALL_BOX).length - smallLand.length]);
    expect(whole.newCells).toBe(bigLand.length - smallLand.length);
    expect(whole.cellsWithData).toBe(small.cellsWithData + whole.newCells);
    // The small box's cells have the year the first run gave them and the one the second added.
    for (const cell of smallLand) {
      const c = cellCentre(g, cell);
      for (const year of [2051, 2052]) expect((await served(app, 'NEX-GDDP-CMIP6', c.lat, c.lon, 'ssp245', 'ACCESS-CM2', year, 'tasmax')).filter((v) => v !== null)).toHaveLength(year === 2052 ? 366 : 365);
    }
  });

  it('changes nothing when the same files are ingested again', () => {
    expect(again.partitions).toBe(whole.partitions);
    expect(again.partitionsChanged).toBe(0);
    expect(again.newCells).toBe(0);
    // Days and summaries: the same bytes.
    expect(Object.keys(afterWhole).length).toBe(4 * whole.partitions);
    for (const [file, bytes] of Object.entries(afterWhole)) expect(fs.readFileSync(file).equals(bytes)).toBe(true);
    expect(manifestAfterAgain).toBe(manifestAfterWhole);
  });

  it('refuses a bad BBOX, naming it', async () => {
    for (const bad of ['-70,41,-71', '-70,41,-71,42', 'a,b,c,d', '-70,42,-69,41', '-200,41,-69,42']) {
      expect(() => parseBbox(bad)).toThrow(/BBOX takes 'west,south,east,north' in degrees/);
    }
    expect(parseBbox(' -70.5, 41 ,-69.5,42 ')).toEqual([-70.5, 41, -69.5, 42]);
    await expect(ingestNetcdf({ dataDir, dataset: 'LOCA2', sources: [files.loca2!], bbox: [10, 40, 20, 50], log: () => {} })).rejects.toThrow(IngestError);
    await expect(ingestNetcdf({ dataDir, dataset: 'LOCA2', sources: [files.loca2!], bbox: [10, 40, 20, 50], log: () => {} })).rejects.toThrow(/BBOX 10,40,20,50 lies outside the LOCA2 grid/);
  });
});
