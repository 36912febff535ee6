/**
 * Data builds with a large catalog for `make bench-catalog` (bench/catalog.ts): a small real build
 * (the generator's, as the tests make it), plus `cells` map cells with data, as a region ingest
 * (make ingest BBOX=) leaves them: every cell of a box at full density, 15/16 of them on the LOCA2
 * grid (1/16 degree) and 1/16 on the NEX-GDDP-CMIP6 grid (0.25 degree), as CONUS would have them
 * (about 170,000 and 11,000).
 *
 * What is faked (scripts/largeCatalog/regionBuild.ts), and why it does not change what is measured:
 * - The added cells' files are hard links to one real cell's files (its ssp245 days and the three
 *   summaries), not files of their own. Start-up never opens a cell file; a lookup reads the files
 *   of one cell whichever it is (the same bytes, the same Parquet layout, one file per cell as a
 *   real build has them); a reload's check lists every directory entry and reads each file's ends,
 *   which a hard link has as a file does. Only the page cache is kinder: one cell's bytes, not
 *   200,000 cells', so a cold-disk read is not part of these figures.
 * - Only ssp245 is linked (a real LOCA2 cell has 4 scenarios): the directory entries per cell are a
 *   quarter of a real build's; the reload check's figures are per file and say so.
 * The builds are kept in BENCH_CATALOG_DIR (.tmp/bench-catalog) between runs, made again when this file changes.
 */
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { ROOT } from '../src/config.js';
import { buildDataset } from '../src/ingest/build.js';
import { GRIDS, type Grid } from '../src/reference/grids.js';
import { writeRegionBuild, type CellBox } from '../scripts/largeCatalog/regionBuild.js';

/** Where the builds are kept (BENCH_CATALOG_DIR: worktrees may share them). */
export const WORK = path.resolve(process.env.BENCH_CATALOG_DIR ?? path.join(ROOT, '.tmp', 'bench-catalog'));
/** The scenario whose files the added cells get. */
export const SCENARIO = 'ssp245';
/** The centre of the boxes of added cells (Kansas): they grow around it. */
const CENTRE = { lat: 39, lon: -98 };

/** The small real build the large ones start from: NYC's cells in every dataset, a year per scenario. */
const BASE_OPTIONS = {
  climateCities: 1,
  cmip6Cities: 1,
  seed: 7,
  models: { 'NEX-GDDP': ['ACCESS1-0'], LOCA: ['ACCESS1-0'], 'NEX-GDDP-CMIP6': ['ACCESS-CM2'], LOCA2: ['ACCESS-CM2'] },
  years: { historical: [1990, 1990], RCP45: [2050, 2050], RCP85: [2050, 2050], ssp126: [2050, 2050], ssp245: [2050, 2050], ssp370: [2050, 2050], ssp585: [2050, 2050] } as Record<string, [number, number]>,
};

/** `count` cells of the grid around CENTRE, in a box about as wide (in degrees) as it is tall. */
function boxOf(grid: Grid, count: number): CellBox {
  const rows = Math.max(1, Math.round(Math.sqrt(count / 1.3)));
  const cols = Math.ceil(count / rows);
  const row0 = Math.floor((CENTRE.lat - grid.lat0) / grid.size) - (rows >> 1);
  const col0 = Math.floor((CENTRE.lon - grid.lon0) / grid.size) - (cols >> 1);
  if (row0 < 0 || col0 < 0 || row0 + rows > grid.rows || col0 + cols > grid.cols) throw new Error(`${count} cells do not fit the ${grid.dataset} grid around the centre.`);
  return { dataset: grid.dataset, row0, col0, cols, count };
}

/** The boxes of a build with `cells` added cells: 15/16 on LOCA2, 1/16 on NEX-GDDP-CMIP6. */
export function boxesOf(cells: number): CellBox[] {
  const nex = Math.round(cells / 16);
  return [boxOf(GRIDS['LOCA2']!, cells - nex), boxOf(GRIDS['NEX-GDDP-CMIP6']!, nex)];
}

/** The box's extent in degrees: [west, south, east, north] of its complete rows. */
export function boxExtent(box: CellBox): [number, number, number, number] {
  const grid = GRIDS[box.dataset]!;
  const fullRows = Math.floor(box.count / box.cols);
  return [grid.lon0 + box.col0 * grid.size, grid.lat0 + box.row0 * grid.size, grid.lon0 + (box.col0 + box.cols) * grid.size, grid.lat0 + (box.row0 + fullRows) * grid.size];
}

function sourceHash(): string {
  return createHash('sha1').update(fs.readFileSync(new URL(import.meta.url))).update(fs.readFileSync(new URL('../scripts/largeCatalog/regionBuild.ts', import.meta.url))).update(JSON.stringify(BASE_OPTIONS)).digest('hex').slice(0, 12);
}

async function baseBuild(log: (line: string) => void): Promise<string> {
  const dir = path.join(WORK, 'base');
  const stamp = path.join(WORK, 'base.json');
  const wanted = JSON.stringify(BASE_OPTIONS);
  if (fs.existsSync(path.join(dir, 'manifest.json')) && fs.existsSync(stamp) && fs.readFileSync(stamp, 'utf8') === wanted) return dir;
  log('bench-catalog: building the small real build the large ones start from (once)...');
  await buildDataset({ outDir: dir, ...BASE_OPTIONS, log: () => {} });
  fs.writeFileSync(stamp, wanted);
  return dir;
}

/**
 * The build with `cells` added map cells with data (see the head of this file), made once and
 * kept: .tmp/bench-catalog/cells-<cells>.
 */
export async function largeBuild(cells: number, log: (line: string) => void): Promise<string> {
  const dir = path.join(WORK, `cells-${cells}`);
  const stamp = path.join(WORK, `cells-${cells}.json`);
  const wanted = sourceHash();
  if (fs.existsSync(path.join(dir, 'manifest.json')) && fs.existsSync(stamp) && fs.readFileSync(stamp, 'utf8') === wanted) return dir;
  const base = await baseBuild(log);
  const started = Date.now();
  log(`bench-catalog: writing the build with ${cells.toLocaleString('en-US')} added cells (kept for the next runs)...`);
  fs.rmSync(dir, { recursive: true, force: true });
  fs.rmSync(stamp, { force: true });
  await writeRegionBuild(base, dir, boxesOf(cells), SCENARIO, `bench-cells-${cells}-${wanted}`);
  fs.writeFileSync(stamp, wanted);
  log(`bench-catalog: written in ${((Date.now() - started) / 1000).toFixed(0)} s`);
  return dir;
}
