/**
 * Maps of large boxes (issue 51's targets): region builds of the default build with a box of
 * NEX-GDDP-CMIP6 cells given data (scripts/largeCatalog/regionBuild.ts: each added cell's files
 * are links to a real cell's, 32 models, historical and ssp585, and its map-file rows are that
 * cell's), made once and kept under .tmp/bench-map-regions. Per box: the map at the defaults over a
 * 30-year window, with relative_to, and at a warming level, read from the map files; and the same
 * window computed from the cells' summaries (the build without its map files), as maps were
 * answered before. One client, compressed, every path distinct, medians.
 */
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import type { ChildProcess } from 'node:child_process';
import { ROOT } from '../src/config.js';
import { MAP_FILES_DIR } from '../src/maps/mapFiles.js';
import { GRIDS } from '../src/reference/grids.js';
import { linkTree, writeRegionBuild, type CellBox } from '../scripts/largeCatalog/regionBuild.js';
import { median } from './maps.js';

const WORK = path.join(ROOT, '.tmp', 'bench-map-regions');
const DATASET = 'NEX-GDDP-CMIP6';
const SCENARIOS = ['historical', 'ssp585'];
/** The indicators the bench asks for: only their map files get the added cells' rows. */
const INDICATORS = ['frost_days', 'average_high_temperature'];
const ACCEPT_ENCODING = 'gzip, deflate, br';

/** A box of `rows` x `cols` cells from (lat, lon), its south-west corner. */
function box(lat: number, lon: number, rows: number, cols: number): CellBox {
  const g = GRIDS[DATASET]!;
  return { dataset: DATASET, row0: Math.round((lat - g.lat0) / g.size), col0: Math.round((lon - g.lon0) / g.size), cols, count: rows * cols };
}

/** The bbox parameter of a box: inside its edges, so that only its cells' centres are in it. */
export function boxBbox(b: CellBox): string {
  const g = GRIDS[b.dataset]!;
  const south = g.lat0 + b.row0 * g.size;
  const west = g.lon0 + b.col0 * g.size;
  return [west + 0.01, south + 0.01, west + b.cols * g.size - 0.01, south + (b.count / b.cols) * g.size - 0.01].map((x) => x.toFixed(3)).join(',');
}

export const MAP_REGIONS = [
  // About Colorado's size: the state-sized box.
  { name: 'state-sized box', box: box(37, -109, 28, 40) },
  // The conterminous US at 0.25 degree: about 11,000 cells.
  { name: 'conterminous-US-sized box', box: box(35, -125, 50, 220) },
];

/** The region build of `region` over `base` (kept while the base and this file are the same), and the same build without map files. */
async function regionBuilds(base: string, region: (typeof MAP_REGIONS)[number], log: (line: string) => void): Promise<{ withMaps: string; withoutMaps: string }> {
  const baseId = (JSON.parse(fs.readFileSync(path.join(base, 'manifest.json'), 'utf8')) as { build_id: string }).build_id;
  const key = createHash('sha1').update(fs.readFileSync(new URL(import.meta.url))).update(fs.readFileSync(new URL('../scripts/largeCatalog/regionBuild.ts', import.meta.url))).update(fs.readFileSync(new URL('../src/maps/writeMapFiles.ts', import.meta.url))).update(baseId).digest('hex').slice(0, 12);
  const withMaps = path.join(WORK, `cells-${region.box.count}`);
  const withoutMaps = `${withMaps}-no-map-files`;
  const stamp = `${withMaps}.key`;
  if (!(fs.existsSync(stamp) && fs.readFileSync(stamp, 'utf8') === key)) {
    const started = Date.now();
    log(`bench: maps: writing the ${region.name}'s build (${region.box.count.toLocaleString('en-US')} cells, kept for the next runs)...`);
    for (const d of [withMaps, withoutMaps]) fs.rmSync(d, { recursive: true, force: true });
    await writeRegionBuild(base, withMaps, [region.box], SCENARIOS, `bench-map-${region.box.count}-${key}`, { mapIndicators: INDICATORS });
    linkTree(withMaps, withoutMaps, [MAP_FILES_DIR]);
    fs.writeFileSync(stamp, key);
    log(`bench: maps: written in ${((Date.now() - started) / 1000).toFixed(0)} s`);
  }
  return { withMaps, withoutMaps };
}

export interface MapRegionRow {
  region: string;
  cells: number;
  build: 'map files' | 'summaries (no map files)';
  request: string;
  ms: number[];
  bytes: number;
}

async function timed(url: string, token: string): Promise<{ ms: number; bytes: number; status: number; body: string }> {
  const t0 = performance.now();
  const res = await fetch(url, { headers: { authorization: `Token ${token}`, 'accept-encoding': ACCEPT_ENCODING } });
  const buf = Buffer.from(await res.arrayBuffer());
  return { ms: performance.now() - t0, bytes: Number(res.headers.get('content-length') ?? buf.length), status: res.status, body: res.status === 200 ? '' : buf.toString('utf8').slice(0, 300) };
}

export interface ServerKit {
  env: NodeJS.ProcessEnv;
  token: string;
  freePort: () => Promise<number>;
  startServer: (env: NodeJS.ProcessEnv) => ChildProcess;
  waitReady: (url: string, token: string) => Promise<void>;
}

/** The requests of a box: per round r a path of its own (another 30-year window, or another top percentile). */
function requests(bbox: string): { name: string; path: (r: number) => string; computedToo: boolean }[] {
  const window = (r: number) => `${2071 - r}:${2100 - r}`;
  const base = `/api/climate-data/map/ssp585/indicator`;
  return [
    { name: 'frost_days, 30 years', path: (r) => `${base}/frost_days/?years=${window(r)}&dataset=${DATASET}&bbox=${bbox}`, computedToo: true },
    { name: 'average_high_temperature, 30 years', path: (r) => `${base}/average_high_temperature/?years=${window(r)}&dataset=${DATASET}&bbox=${bbox}`, computedToo: false },
    { name: 'frost_days, 30 years, relative_to=1981', path: (r) => `${base}/frost_days/?years=${window(r)}&relative_to=1981&dataset=${DATASET}&bbox=${bbox}`, computedToo: false },
    { name: 'frost_days, warming_level=2', path: (r) => `${base}/frost_days/?warming_level=2&agg=10th,median,${90 - r}th&dataset=${DATASET}&bbox=${bbox}`, computedToo: false },
  ];
}

export async function mapRegionBench(base: string, kit: ServerKit, rounds = 8, computedRounds = 3): Promise<MapRegionRow[]> {
  const log = (line: string) => process.stderr.write(`${line}\n`);
  const rows: MapRegionRow[] = [];
  // BENCH_MAP_REGIONS: the boxes' cell counts to run (1120,11000), or 0 for none (bench/run.ts).
  const only = process.env.BENCH_MAP_REGIONS?.split(',').map(Number);
  for (const region of MAP_REGIONS.filter((r) => !only || only.includes(r.box.count))) {
    const builds = await regionBuilds(base, region, log);
    const b = region.box;
    const bbox = boxBbox(b);
    for (const [label, dir] of [['map files', builds.withMaps], ['summaries (no map files)', builds.withoutMaps]] as const) {
      const port = await kit.freePort();
      const url = `http://127.0.0.1:${port}`;
      const server = kit.startServer({ ...kit.env, DATA_DIR: dir, PORT: String(port), HOST: '127.0.0.1', MAP_MAX_CELLS: String(b.count + 1000), QUERY_TIMEOUT_MS: '600000' });
      try {
        await kit.waitReady(url, kit.token);
        for (const req of requests(bbox)) {
          // Computed, the large box takes tens of seconds a request: the state-sized one shows the difference.
          if (label !== 'map files' && (!req.computedToo || b.count > 2000)) continue;
          const n = label === 'map files' ? rounds : computedRounds;
          log(`bench: maps: ${region.name}, ${label}, ${req.name}, ${n} rounds...`);
          const warm = await timed(`${url}${req.path(n)}`, kit.token);
          if (warm.status !== 200) throw new Error(`${req.path(n)}: HTTP ${warm.status} ${warm.body}`);
          const row: MapRegionRow = { region: region.name, cells: b.count, build: label, request: req.name, ms: [], bytes: 0 };
          for (let r = 0; r < n; r++) {
            const res = await timed(`${url}${req.path(r)}`, kit.token);
            if (res.status !== 200) throw new Error(`${req.path(r)}: HTTP ${res.status} ${res.body}`);
            row.ms.push(res.ms);
            row.bytes += res.bytes;
          }
          rows.push(row);
        }
      } finally {
        server.kill('SIGTERM');
        await new Promise((r) => server.once('exit', r));
      }
    }
  }
  return rows;
}

export function printMapRegions(rows: MapRegionRow[]) {
  console.log(`\nmaps of large boxes (${DATASET}, 32 models, ssp585, 10th,median,90th): 1 client, medians, compressed (${ACCEPT_ENCODING})`);
  console.log('\n| box | cells | read from | request | ms (median) | ms (min-max) | KB/response |');
  console.log('|---|---|---|---|---|---|---|');
  for (const r of rows) {
    const s = [...r.ms].sort((a, b) => a - b);
    console.log(`| ${r.region} | ${r.cells.toLocaleString('en-US')} | ${r.build} | ${r.request} | ${median(r.ms).toFixed(1)} | ${s[0]!.toFixed(1)}-${s.at(-1)!.toFixed(1)} | ${(r.bytes / r.ms.length / 1024).toFixed(1)} |`);
  }
}
