import { writeBuildMapFiles } from '../../maps/writeMapFiles.js';
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { BOOLEAN, DOUBLE, INTEGER, LIST, listValue } from '@duckdb/node-api';
import type { DuckDBConnection } from '@duckdb/node-api';
import { Database } from '../../db/duckdb.js';
import { BUILD_FORMAT_VERSION, countCellFiles } from '../../dataBuild/buildCheck.js';
import { readRows } from '../../db/duckdb.js';
import { sqlFile, sqlString } from '../../db/sqlFiles.js';
import { readManifest } from '../../reference/catalog.js';
import { DATASETS, FORMER_SYNTHETIC_NOTE, SYNTHETIC_NOTE, type DatasetFixture } from '../../reference/fixtures.js';
import { cellAt, cellCentre, GRIDS, type Grid } from '../../reference/grids.js';
import { proximityOf } from '../catalog.js';
import { Coastline } from '../geometry.js';
import { readLand } from '../sources.js';
import { newDecodeTimes, type DecodeTimes } from '../hdf5/decodeTimes.js';
import { boxCells, unionCells, type Bbox } from './cellSelection.js';
import { stageFile, type StagedResult } from './extract.js';
import { extractContext } from './extractContext.js';
import { selectFiles, type SkippedFile } from './fileSelection.js';
import { IngestError } from './ingestError.js';
import { cellsWithData as cellsWithValues, Reducer, type InvertedDays } from './reduce.js';
import { openParts, StagedFile, type SourceKey } from './stagedFile.js';
import { DEFAULT_RANGE_CELLS, rangeCount } from './cellRanges.js';
import { StagingDir } from './stagingDir.js';
import { historicRanges } from '../summaries.js';
import { isAlive } from '../buildFolder.js';
import { datasetVariables } from '../../reference/datasetVariables.js';

export { IngestError };

export interface IngestOptions {
  dataDir: string;
  dataset: string;
  /** Files or folders (searched recursively for *.nc, *.nc4). */
  sources: string[];
  /** Extra points whose cells are ingested besides the catalogue's cities' cells. */
  points?: { lat: number; lon: number }[];
  /** Every cell holding a point of this box is ingested too (those without any value are skipped and counted). */
  bbox?: Bbox;
  /** Target cells per range of the shuffle (cellRanges.ts; default DEFAULT_RANGE_CELLS). */
  rangeCells?: number;
  /** Memory for one time block of a file's values while it is read (bytes; default 256 MB). */
  blockBytes?: number;
  /** Progress lines (default: stderr). */
  log?: (line: string) => void;
  /** Files not on disk yet (make fetch, src/ingest/archive/): read instead of `sources`, each fetched as the map step reaches it. */
  remote?: RemoteFiles;
}

/** A publisher's files for the map step: fetched ahead of it, a local copy each, dropped once staged. */
export interface RemoteFiles {
  /** The files: path = the URL (which names the staged parts), size as the publisher lists it. */
  keys: SourceKey[];
  /** The URLs the map step will read, in its order (the others were staged by an earlier run). */
  start(urls: string[]): void;
  /** The local copy of a file, whole and checked. */
  local(url: string): Promise<string>;
  /** The file's values are staged (or were, by an earlier run): its copy may go. */
  staged(url: string, valuesStored: number, earlier: boolean): void;
  /** The map step ended (done or failed): no more fetches. */
  stop(): void;
  /** Every partition is written; the manifest is next: the fetch's record of its sources goes in now, so the build it publishes has it. */
  publishing?(): void;
}

export interface IngestSummary {
  files: number;
  /** Files whose extract a previous, interrupted run had already staged. */
  filesResumed: number;
  /** Bytes of the NetCDF files read in this run. */
  bytes: number;
  /** Cell values read from the files in this run (target cells x time steps). */
  values: number;
  /** Values decoded to read them: whole chunks (a box of a global file with a day per chunk decodes the globe). */
  valuesDecoded: number;
  /** Of the target cells in the files' grids, those without any value in any file (sea): skipped. */
  cellsSkipped: number;
  partitions: number;
  /** Partitions whose file changed: 0 when the same files are ingested again. */
  partitionsChanged: number;
  cellsWithData: number;
  newCells: number;
  seconds: number;
  extractSeconds: number;
  /** CPU seconds of this process (user + system) while reading the files, and while writing partitions and summaries. */
  extractCpuSeconds: number;
  reduceSeconds: number;
  reduceCpuSeconds: number;
  /** Where reading time went (wall seconds): metadata, block reads (decode: their steps for NetCDF-4 read natively), cells, staged writes. */
  map: StagedResult['seconds'];
  decode: DecodeTimes;
  /** Where writing time went (wall seconds): staged values merged into rows, partitions, summaries. */
  reduce: { rows: number; partitions: number; summaries: number };
  /** Values stored: ingested cell values with a value (not fill), in this run. */
  valuesStored: number;
  /** Files left out: older versions of a file also given, aggregates, other variables. */
  skipped: SkippedFile[];
  /** Where ingested tasmin is above ingested tasmax, per tasmin file (reported, not dropped). */
  inverted: InvertedDays[];
}

/** `lat,lon;lat,lon` -> points, or an error naming the bad one. */
export function parsePoints(text: string | undefined): { lat: number; lon: number }[] {
  if (text === undefined || text.trim() === '') return [];
  return text.split(';').filter((p) => p.trim() !== '').map((p) => {
    const m = /^\s*(-?\d+(?:\.\d+)?)\s*,\s*(-?\d+(?:\.\d+)?)\s*$/.exec(p);
    const lat = m ? Number(m[1]) : NaN;
    const lon = m ? Number(m[2]) : NaN;
    if (!m || Math.abs(lat) > 90 || lon < -180 || lon > 360) {
      throw new IngestError(`POINTS takes 'lat,lon;lat,lon' with latitudes in -90..90 and longitudes in -180..360; got '${p.trim()}'`);
    }
    return { lat, lon };
  });
}

/** The NetCDF files under the given files or folders, sorted. */
export function listSourceFiles(sources: string[]): string[] {
  const out: string[] = [];
  const walk = (p: string) => {
    for (const e of fs.readdirSync(p, { withFileTypes: true }).sort((a, b) => (a.name < b.name ? -1 : 1))) {
      const full = path.join(p, e.name);
      if (e.isDirectory()) walk(full);
      else if (/\.(nc|nc4|netcdf)$/i.test(e.name)) out.push(full);
    }
  };
  for (const s of sources) {
    const abs = path.resolve(s);
    if (!fs.existsSync(abs)) throw new IngestError(`${s}: no such file or folder (SRC)`);
    if (fs.statSync(abs).isDirectory()) walk(abs);
    else out.push(abs);
  }
  if (out.length === 0) throw new IngestError(`no NetCDF files (*.nc, *.nc4) in ${sources.join(', ')}`);
  return [...new Set(out)];
}

export const INGESTED_NOTE =
  ' Note: this installation serves model output read from the dataset\'s NetCDF files (`make ingest`) for the cells ' +
  'and years ingested; other cells with data hold the synthetic values of `make data` (docs/ingest.md).';

const sharedWithCmip5 = (scenario: string) => DATASETS.some((d) => d.generation === 'CMIP5' && scenario in d.years);

const mb = (bytes: number) => (bytes / 1e6).toFixed(1);
const rate = (n: number, s: number) => (s > 0 ? Math.round(n / s) : 0).toLocaleString('en-US');

/** Removes partition temp files (`<cell>.parquet.tmp-<pid>`) left by ingests that were killed. */
function removeStaleTempFiles(dataDir: string, dataset: string): number {
  const root = path.join(dataDir, 'climate', dataset);
  if (!fs.existsSync(root)) return 0;
  let removed = 0;
  for (const scenario of fs.readdirSync(root)) {
    const dir = path.join(root, scenario);
    if (!fs.statSync(dir).isDirectory()) continue;
    for (const name of fs.readdirSync(dir)) {
      const m = /\.tmp-(\d+)$/.exec(name);
      if (m && Number(m[1]) !== process.pid && !isAlive(Number(m[1]))) {
        fs.rmSync(path.join(dir, name), { force: true });
        removed++;
      }
    }
  }
  return removed;
}

/** Writes a file next to its target and renames it over the target. */
function replaceFile(file: string, write: (tmp: string) => void | Promise<void>): Promise<void> {
  const tmp = `${file}.tmp-${process.pid}`;
  return Promise.resolve(write(tmp)).then(
    () => fs.renameSync(tmp, file),
    (err: unknown) => {
      fs.rmSync(tmp, { force: true });
      throw err;
    },
  );
}


const cpuSeconds = () => {
  const u = process.cpuUsage();
  return (u.user + u.system) / 1e6;
};

/** What an ingest reads and for which cells: the same for one process (ingestNetcdf) and for a queue of workers (src/ingest/queue/). */
export interface IngestPlan {
  dataset: string;
  grid: Grid;
  fixture: DatasetFixture;
  /** The files to read, in the ingest's order (where two cover a value, the later wins), and their keys. */
  files: string[];
  keys: SourceKey[];
  skipped: SkippedFile[];
  models: string[];
  /** Target cells, ascending: the catalogue's cities' cells, the cells of POINTS and of BBOX. */
  cells: Int32Array;
  /** Names the target cells in staged file names. */
  cellsKey: string;
  /** Target cells per range of the shuffle (cellRanges.ts): the unit of the reduce. */
  rangeCells: number;
  cityCells: number[];
  pointCells: number[];
  boxCells: Int32Array;
}

/**
 * Checks the dataset, lists the files (those left out reported through `skipped`) and chooses the
 * target cells from the build's catalog. Throws an IngestError saying what is wrong.
 */
export async function planIngest(
  conn: DuckDBConnection,
  opts: Pick<IngestOptions, 'dataDir' | 'dataset' | 'sources' | 'points' | 'bbox' | 'rangeCells'> & { remote?: Pick<RemoteFiles, 'keys'> },
  skipped: (s: SkippedFile) => void = () => {},
): Promise<IngestPlan> {
  const dataDir = path.resolve(opts.dataDir);
  readManifest(dataDir);
  const grid = GRIDS[opts.dataset];
  const fixture = DATASETS.find((d) => d.name === opts.dataset);
  if (!grid || !fixture) throw new IngestError(`DATASET must be one of ${DATASETS.map((d) => d.name).join(', ')}; got '${opts.dataset}'`);
  const remote = opts.remote ? new Map(opts.remote.keys.map((k) => [k.path, k])) : undefined;
  const listed = remote ? [...remote.keys()] : listSourceFiles(opts.sources);
  const selection = selectFiles(listed, datasetVariables(opts.dataset));
  selection.skipped.forEach(skipped);
  const files = selection.files;
  if (files.length === 0) {
    throw new IngestError(`none of the ${listed.length} NetCDF files in ${opts.sources.join(', ')} holds daily values to read (each was skipped, as listed above)`);
  }
  const datasetRow = await readRows<{ models: string[] }>(
    conn,
    `SELECT models FROM read_parquet(${sqlString(path.join(dataDir, 'catalog', 'dataset.parquet'))}) WHERE name = $name`,
    { name: opts.dataset },
  );
  if (datasetRow.length === 0) throw new IngestError(`the data build in ${dataDir} has no dataset ${opts.dataset}`);
  const cityCells = (await readRows<{ cell_id: number }>(conn, sqlFile('ingest/city_cells.sql'), { dir: dataDir, dataset: opts.dataset })).map((r) => r.cell_id);
  const pointCells = (opts.points ?? []).map((p) => {
    const id = cellAt(grid, p.lat, p.lon);
    if (id === undefined) throw new IngestError(`POINTS: (${p.lat}, ${p.lon}) is outside the ${opts.dataset} grid`);
    return id;
  });
  const box = opts.bbox ? boxCells(grid, opts.bbox) : new Int32Array(0);
  if (opts.bbox && box.length === 0) throw new IngestError(`BBOX ${opts.bbox.join(',')} lies outside the ${opts.dataset} grid`);
  const cells = unionCells(cityCells, pointCells, box);
  const keys: SourceKey[] = files.map((file) => {
    if (remote) return remote.get(file)!;
    const st = fs.statSync(file);
    return { path: file, size: st.size, mtime: st.mtimeMs };
  });
  return {
    dataset: opts.dataset,
    grid,
    fixture,
    files,
    keys,
    skipped: selection.skipped,
    models: datasetRow[0]!.models,
    cells,
    cellsKey: cellsKeyOf(cells),
    rangeCells: opts.rangeCells ?? DEFAULT_RANGE_CELLS,
    cityCells,
    pointCells,
    boxCells: box,
  };
}

export const cellsKeyOf = (cells: Int32Array) => createHash('sha256').update(new Uint8Array(cells.buffer, cells.byteOffset, cells.byteLength)).digest('hex').slice(0, 16);

/** The dataset's scenarios in the reduce step's order: historical first (the others' summaries use its climatology). */
export function reduceScenarios(fixture: DatasetFixture): string[] {
  return Object.keys(fixture.years).sort((a, b) => (a === 'historical' ? -1 : b === 'historical' ? 1 : 0));
}

/**
 * The last step of an ingest, once every partition is written: the catalog's map cells, the
 * manifest (years, cell counts, a new build id), then the ingested cells' rows of the map files
 * (maps/writeMapFiles.ts); left as they are when no partition changed and no
 * cell gained data (the same files ingested again change nothing, build id included).
 */
export async function publishIngest(
  conn: DuckDBConnection,
  dataDir: string,
  dataset: string,
  staged: StagedFile[],
  withData: Iterable<number>,
  changed: number,
  say: (line: string) => void,
): Promise<{ added: number[]; cellsWithData: number; unchanged: boolean }> {
  const grid = GRIDS[dataset]!;
  const fixture = DATASETS.find((d) => d.name === dataset)!;
  const cells = [...new Set(withData)];
  const mapCellFile = path.join(dataDir, 'catalog', 'map_cell.parquet');
  const known = new Map(
    (await readRows<{ cell_id: number; has_data: boolean }>(
      conn,
      `SELECT cell_id::INTEGER AS cell_id, has_data FROM read_parquet(${sqlString(mapCellFile)}) WHERE dataset = $d`,
      { d: dataset },
    )).map((r) => [r.cell_id, r.has_data]),
  );
  const added = cells.filter((c) => !known.has(c)).sort((a, b) => a - b);
  const gained = cells.filter((c) => known.get(c) !== true).length;
  const unchanged = changed === 0 && gained === 0;
  if (!unchanged) await writeCatalog(conn, dataDir, dataset, grid, cells, added);
  const cellsWithData = (await readRows<{ n: number }>(
    conn,
    `SELECT count(*)::INTEGER AS n FROM read_parquet(${sqlString(mapCellFile)}) WHERE dataset = $d AND has_data`,
    { d: dataset },
  ))[0]!.n;
  if (!unchanged) {
    await writeManifest(dataDir, fixture, staged, cellsWithData);
    // After the manifest, whose years they take: the ingested cells' rows computed again, the others
    // kept, in the scenarios ingested (every one when the historical days, whose percentiles the others use, changed).
    const scenarios = [...new Set(staged.map((f) => f.meta.scenario))];
    await writeBuildMapFiles(conn, dataDir, { dataset, cells, scenarios: scenarios.includes('historical') ? undefined : scenarios }, say);
  }
  return { added, cellsWithData, unchanged };
}

/**
 * Ingests NetCDF files of one dataset into a data build, in two steps:
 * - map, one file at a time: read the values of the target cells (the catalogue's cities' cells,
 *   the cells of POINTS, every cell of BBOX) and stage them, one part per range of cells
 *   (cellRanges.ts, stagedFile.ts);
 * - reduce, a range of cells at a time: merge every file's part of the range into the cells'
 *   partitions (a batch at a time) and rewrite the cells' summaries (reduce.ts);
 * then marks the cells in the catalog and updates the manifest. Re-running it with the same files
 * gives the same data; a killed run leaves every partition readable and is resumed by running it
 * again (files already staged are not read again).
 */
export async function ingestNetcdf(opts: IngestOptions): Promise<IngestSummary> {
  const log = opts.log ?? ((line: string) => process.stderr.write(`${line}\n`));
  const started = Date.now();
  const elapsed = () => (Date.now() - started) / 1000;
  const stamp = () => `[${elapsed().toFixed(1).padStart(6)}s]`;
  const dataDir = path.resolve(opts.dataDir);
  const db = await openCatalogDb();
  const conn = await db.connect();
  let opened: StagingDir | undefined;
  let removed = false;
  try {
    const plan = await planIngest(conn, { ...opts, dataDir }, (s) => log(`${stamp()} skipped ${s.file}: ${s.reason}`));
    const { fixture, files, skipped, keys, cellsKey, cityCells, pointCells, boxCells: box, models } = plan;
    const staging = (opened = StagingDir.open(dataDir, opts.dataset));
    const ctx = extractContext(plan, opts.blockBytes);
    const stale = removeStaleTempFiles(dataDir, opts.dataset);
    if (stale > 0) log(`${stamp()} removed ${stale} temporary partition files left by a killed ingest`);
    log(
      `${stamp()} ingest ${opts.dataset} into ${dataDir}: ${files.length} files${skipped.length > 0 ? ` (${skipped.length} skipped)` : ''}, ` +
        `${cityCells.length} city cells + ${pointCells.length} points${opts.bbox ? ` + ${box.length} cells of BBOX ${opts.bbox.join(',')}` : ''}`,
    );

    // 1. Map: one file at a time, staged as soon as it is read.
    let bytes = 0;
    let values = 0;
    let valuesDecoded = 0;
    let resumed = 0;
    let lastLog = 0;
    const decode = newDecodeTimes();
    const mapTimes = { metadata: 0, blocks: 0, cells: 0, write: 0 };
    const extractStarted = Date.now();
    const extractCpu = cpuSeconds();
    const ranges = rangeCount(plan.cells.length, plan.rangeCells);
    const partPaths = keys.map((k) => staging.partPath(k, cellsKey, plan.rangeCells));
    const dropped = staging.retainOnly(partPaths.flatMap((p) => Array.from({ length: ranges }, (_, r) => p(r))));
    if (dropped > 0) log(`${stamp()} dropped ${dropped} files staged by an interrupted run that this command does not include`);
    const todo = files.flatMap((file, n) => {
      if (!openParts(Array.from({ length: ranges }, (_, r) => partPaths[n]!(r)))) return [n];
      resumed++;
      opts.remote?.staged(file, 0, true);
      return [];
    });
    opts.remote?.start(todo.map((n) => files[n]!));
    try {
      for (const n of todo) {
        const file = opts.remote ? await opts.remote.local(files[n]!) : files[n]!;
        const x = await stageFile(file, keys[n]!, partPaths[n]!, ctx);
        opts.remote?.staged(files[n]!, (x.cellsInFile - x.cellsEmpty) * x.days.length, false);
        bytes += keys[n]!.size;
        values += x.valuesRead;
        valuesDecoded += x.valuesDecoded;
        for (const k of Object.keys(decode) as (keyof DecodeTimes)[]) decode[k] += x.decode[k];
        for (const k of Object.keys(mapTimes) as (keyof typeof mapTimes)[]) mapTimes[k] += x.seconds[k];
        const s = (Date.now() - extractStarted) / 1000;
        if (Date.now() - lastLog > 1000 || n === files.length - 1) {
          lastLog = Date.now();
          log(
            `${stamp()} file ${n + 1}/${files.length} ${path.basename(file)} (${x.format}, ${x.variable} ${x.model} ${x.scenario}, ${x.calendar}): ` +
              `${x.cellsInFile - x.cellsEmpty} cells` + (x.cellsEmpty > 0 ? ` (${x.cellsEmpty} more without values)` : '') +
              `; ${rate(valuesDecoded, s)} values decoded/s, ${mb(bytes / Math.max(s, 1e-3))} MB/s`,
          );
        }
      }
    } finally {
      opts.remote?.stop();
    }
    if (resumed > 0) log(`${stamp()} ${resumed} files were already staged by an interrupted run; not read again`);
    const extractSeconds = (Date.now() - extractStarted) / 1000;
    const extractCpuSeconds = cpuSeconds() - extractCpu;

    // 2. Reduce: a range of cells at a time, from its parts of every staged file; each cell's
    // partitions rebuilt once.
    const reduceStarted = Date.now();
    const reduceCpu = cpuSeconds();
    const openRange = (r: number) =>
      partPaths.map((p, n) => {
        const f = StagedFile.open(p(r));
        if (!f) throw new IngestError(`${files[n]}: its staged values (${p(r)}) are gone or damaged; run the same command again`);
        return f;
      });
    // A file's description is the same in each of its parts.
    const staged = openRange(0);
    let valuesStored = 0;
    for (const f of staged) valuesStored += (f.meta.cellsInFile - f.meta.cellsEmpty) * f.meta.days.length;
    const inFiles = new Set<number>();
    const valued = new Set<number>();
    const historic = await historicRanges(conn, dataDir);
    const reducer = await Reducer.open({
      dataDir,
      dataset: opts.dataset,
      models,
      scenarios: reduceScenarios(fixture),
      ranges: historic,
    });
    const withData = new Set<number>();
    let written = 0;
    let changed = 0;
    let summarised = 0;
    const reduceTimes = { rows: 0, partitions: 0, summaries: 0 };
    try {
      log(`${stamp()} rebuilding the partitions and summaries of the cells with values, ${plan.rangeCells} target cells at a time (${ranges} ranges)`);
      let lastBatchLog = Date.now();
      let cellsDone = 0;
      for (let r = 0; r < ranges; r++) {
        const parts = openRange(r);
        for (const f of parts) {
          for (let k = 0; k < f.cells.length; k++) inFiles.add(f.cells[k]!);
          for (let k = 0; k < f.empty.length; k++) inFiles.add(f.empty[k]!);
        }
        const res = await reducer.reduceRange(parts, (b, done, of) => {
          written += b.partitions;
          changed += b.changed;
          summarised += b.summaries;
          if (Date.now() - lastBatchLog > 2000 || (r === ranges - 1 && done === of)) {
            lastBatchLog = Date.now();
            log(`${stamp()} range ${r + 1}/${ranges}, cells ${cellsDone + done}: ${written} partitions (${changed} changed), ${summarised} summaries`);
          }
        });
        cellsDone += res.cells;
        for (const c of cellsWithValues(parts)) valued.add(c);
        for (const c of res.withData) withData.add(c);
        for (const k of Object.keys(reduceTimes) as (keyof typeof reduceTimes)[]) reduceTimes[k] += res.seconds[k];
      }
    } finally {
      await reducer.close();
    }
    const inverted = reducer.invertedDays();
    const cellsSkipped = [...inFiles].filter((c) => !valued.has(c)).length;
    (opts.points ?? []).forEach((p, k) => {
      if (!withData.has(pointCells[k]!)) log(`${stamp()} warning: POINTS (${p.lat}, ${p.lon}): no file has values for its cell ${pointCells[k]}`);
    });
    if (cellsSkipped > 0) log(`${stamp()} ${cellsSkipped} cells in the files had no value on any day (fill values, such as the sea): skipped`);
    const reduceSeconds = (Date.now() - reduceStarted) / 1000;
    const reduceCpuSeconds = cpuSeconds() - reduceCpu;

    // 3. The catalog's map cells, then the manifest (or neither, when nothing changed).
    opts.remote?.publishing?.();
    const { added, cellsWithData, unchanged } = await publishIngest(conn, dataDir, opts.dataset, staged, withData, changed, (line) => log(`${stamp()} ${line}`));
    if (unchanged) log(`${stamp()} no partition changed and no cell gained data: the catalog and the manifest stay as they were`);

    staging.remove();
    removed = true;
    const summary: IngestSummary = {
      files: files.length,
      filesResumed: resumed,
      bytes,
      values,
      valuesDecoded,
      valuesStored,
      cellsSkipped,
      partitions: written,
      partitionsChanged: changed,
      cellsWithData,
      newCells: added.length,
      seconds: elapsed(),
      extractSeconds,
      extractCpuSeconds,
      reduceSeconds,
      reduceCpuSeconds,
      map: mapTimes,
      decode,
      reduce: reduceTimes,
      skipped,
      inverted,
    };
    if (skipped.length > 0) log(`${stamp()} skipped ${skipped.length} files (listed at the start): older versions of files also given, aggregates, other variables`);
    for (const x of inverted) {
      log(
        `${stamp()} warning: tasmin > tasmax on ${x.cell_days} cell-days (${x.dates} dates from ${x.first_date}, up to ${x.max_excess.toFixed(2)} K) ` +
          `of ${x.model} ${x.scenario}: ${path.basename(x.tasmin_file)} against ${path.basename(x.tasmax_file)}; served as published`,
      );
    }
    if (inverted.length === 0) log(`${stamp()} tasmin <= tasmax on every day where both were ingested`);
    log(
      `${stamp()} done: ${files.length} files (${mb(bytes)} MB read), ${values.toLocaleString('en-US')} values of the target cells, ` +
        `${valuesDecoded.toLocaleString('en-US')} decoded (${rate(valuesDecoded, extractCpuSeconds)} values/s per CPU second, ${mb(bytes / Math.max(extractSeconds, 1e-3))} MB/s reading), ` +
        `${written} partitions, ${withData.size} cells (${added.length} new map cells); ${opts.dataset} now has ${cellsWithData} cells with data. ` +
        'Restart the server (or make reload) to serve new cells.',
    );
    return summary;
  } finally {
    conn.closeSync();
    await db.close();
    if (!removed) opened?.release();
  }
}

/**
 * The catalog after an ingest: the cells with data get has_data, cells it did not have (POINTS,
 * BBOX) are added with their centre and proximity to the coast; the dataset's description no
 * longer says its data is only synthetic.
 */
async function writeCatalog(conn: DuckDBConnection, dataDir: string, dataset: string, grid: Grid, withData: number[], added: number[]) {
  const mapCellFile = path.join(dataDir, 'catalog', 'map_cell.parquet');
  const coast = added.length > 0 ? new Coastline(readLand()) : undefined;
  const centres = added.map((c) => cellCentre(grid, c));
  const prox = centres.map((c) => proximityOf(coast!, c.lon, c.lat));
  await replaceFile(mapCellFile, (tmp) =>
    conn
      .run(`COPY (${sqlFile('ingest/map_cells.sql')}) TO ${sqlString(tmp)} (FORMAT parquet, COMPRESSION zstd)`, {
        dir: dataDir,
        dataset,
        cells: listValue(withData),
        new_ids: listValue(added),
        new_lats: listValue(centres.map((c) => c.lat)),
        new_lons: listValue(centres.map((c) => c.lon)),
        new_ocean: listValue(prox.map((p) => p.ocean)),
        new_coastal: listValue(prox.map((p) => p.coastal)),
      }, {
        // Typed: the lists may be empty.
        cells: LIST(INTEGER),
        new_ids: LIST(INTEGER),
        new_lats: LIST(DOUBLE),
        new_lons: LIST(DOUBLE),
        new_ocean: LIST(BOOLEAN),
        new_coastal: LIST(BOOLEAN),
      })
      .then(() => undefined),
  );
  await replaceFile(path.join(dataDir, 'catalog', 'dataset.parquet'), (tmp) =>
    conn
      .run(`COPY (${sqlFile('ingest/datasets.sql')}) TO ${sqlString(tmp)} (FORMAT parquet, COMPRESSION zstd)`, {
        dir: dataDir,
        dataset,
        synthetic_note: SYNTHETIC_NOTE,
        former_synthetic_note: FORMER_SYNTHETIC_NOTE,
        ingested_note: INGESTED_NOTE,
      })
      .then(() => undefined),
  );
}

/** The manifest after an ingest: the years and cell counts, the files read, a new build id. */
async function writeManifest(dataDir: string, fixture: DatasetFixture, staged: StagedFile[], cellsWithData: number) {
  const manifest = readManifest(dataDir) as Record<string, unknown> & { build_id: string };
  const years = { ...((manifest.years as Record<string, [number, number]>) ?? {}) };
  const datasets = { ...((manifest.datasets as Record<string, { cells_with_data: number }>) ?? {}) };
  const allDatasetYears = { ...((manifest.dataset_years as Record<string, Record<string, [number, number]>>) ?? {}) };
  const datasetYears = { ...(allDatasetYears[fixture.name] ?? {}) };
  const widen = (had: [number, number] | undefined, y0: number, y1: number): [number, number] => (had ? [Math.min(had[0], y0), Math.max(had[1], y1)] : [y0, y1]);
  for (const [scenario, [y0, y1]] of yearRanges(staged)) {
    datasetYears[scenario] = widen(datasetYears[scenario], y0, y1);
    // The build-wide years per scenario are shared by every dataset and describe the CMIP5
    // datasets' historical: a CMIP6 ingest widens them only for its own scenarios (ssp*), so that
    // CMIP6's historical 2006-2014 does not make CMIP5's historical look longer. The dataset's own
    // years are in dataset_years[name].
    if (fixture.generation === 'CMIP5' || !sharedWithCmip5(scenario)) years[scenario] = widen(years[scenario], y0, y1);
  }
  datasets[fixture.name] = { ...datasets[fixture.name]!, cells_with_data: cellsWithData };
  allDatasetYears[fixture.name] = datasetYears;
  const sources = staged.map((f) => ({ path: f.meta.source.path, size: f.meta.source.size })).sort((a, b) => (a.path < b.path ? -1 : 1));
  const ingested = { ...((manifest.ingested as Record<string, { files: number; updated: string }>) ?? {}) };
  ingested[fixture.name] = { files: (ingested[fixture.name]?.files ?? 0) + sources.length, updated: new Date().toISOString() };
  const next = {
    ...manifest,
    // A new id: anything keyed on the build (caches, ETags) sees the data changed.
    build_id: createHash('sha256').update(JSON.stringify([manifest.build_id, fixture.name, sources])).digest('hex').slice(0, 16),
    years,
    datasets,
    dataset_years: allDatasetYears,
    ingested,
    format_version: BUILD_FORMAT_VERSION,
    files: countCellFiles(dataDir),
  };
  await replaceFile(path.join(dataDir, 'manifest.json'), (tmp) => fs.writeFileSync(tmp, JSON.stringify(next, null, 2) + '\n'));
}

/** A DuckDB for the catalog's small tables; no metadata cache, as the ingest rewrites files it read. */
export function openCatalogDb() {
  return Database.open(':memory:', { threads: '2', memory_limit: '512MB' });
}

/** Per scenario, the first and last staged year. */
function yearRanges(staged: StagedFile[]): Map<string, [number, number]> {
  const out = new Map<string, [number, number]>();
  const year = (day: number) => new Date(day * 86400000).getUTCFullYear();
  for (const f of staged) {
    const days = f.meta.days;
    if (days.length === 0) continue;
    const [y0, y1] = [year(days[0]!), year(days[days.length - 1]!)];
    const had = out.get(f.meta.scenario);
    out.set(f.meta.scenario, had ? [Math.min(had[0], y0), Math.max(had[1], y1)] : [y0, y1]);
  }
  return out;
}
