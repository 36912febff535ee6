import { BUILD_FORMAT_VERSION, countCellFiles } from '../../climate/buildCheck.js';
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { BOOLEAN, DOUBLE, INTEGER, LIST, listValue } from '@duckdb/node-api';
import { readRows } from '../../db/duckdb.js';
import { sqlFile, sqlString } from '../../db/sqlFiles.js';
import { readManifest } from '../../reference/catalog.js';
import { DATASETS, SYNTHETIC_NOTE } from '../../reference/fixtures.js';
import { cellAt, cellCentre, GRIDS } from '../../reference/grids.js';
import { proximityOf } from '../catalog.js';
import { Coastline } from '../geometry.js';
import { readLand } from '../sources.js';
import { extractFile, type ExtractContext } from './extract.js';
import { selectFiles, type SkippedFile } from './fileSelection.js';
import { IngestError } from './ingestError.js';
import { Staging, type InvertedDays, type SourceKey } from './staging.js';
import { cellPath } from '../../climate/files.js';
import { historicRanges, loadSummaryMacros, writeSummaries, type CellRef } from '../summaries.js';
import { forEachOnConnections } from '../../db/workers.js';
import { isAlive } from '../build.js';

export { IngestError };

export interface IngestOptions {
  dataDir: string;
  dataset: string;
  /** Files or folders (searched recursively for *.nc, *.nc4). */
  sources: string[];
  /** Extra points whose cells are ingested besides the catalogue's cities' cells. */
  points?: { lat: number; lon: number }[];
  /** Progress lines (default: stderr). */
  log?: (line: string) => void;
}

export interface IngestSummary {
  files: number;
  /** Files whose extract a previous, interrupted run had already staged. */
  filesResumed: number;
  /** Bytes of the NetCDF files read in this run. */
  bytes: number;
  /** Cell values read from the files in this run. */
  values: number;
  partitions: number;
  cellsWithData: number;
  newCells: number;
  seconds: number;
  extractSeconds: number;
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
  'and years ingested; other cells with data hold the synthetic values of `make data` (README.md, "Ingesting NetCDF").';

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

/**
 * Ingests NetCDF files of one dataset into a data build: reads the values of the catalogue's
 * cities' cells (and of POINTS) from every file, stages them, then rebuilds each touched partition
 * once, marks the cells in the catalog and updates the manifest. Re-running it with the same files
 * gives the same data; a killed run leaves every partition readable and is resumed by running it again.
 */
export async function ingestNetcdf(opts: IngestOptions): Promise<IngestSummary> {
  const log = opts.log ?? ((line: string) => process.stderr.write(`${line}\n`));
  const started = Date.now();
  const elapsed = () => (Date.now() - started) / 1000;
  const stamp = () => `[${elapsed().toFixed(1).padStart(6)}s]`;
  const dataDir = path.resolve(opts.dataDir);
  readManifest(dataDir);
  const grid = GRIDS[opts.dataset];
  const fixture = DATASETS.find((d) => d.name === opts.dataset);
  if (!grid || !fixture) throw new IngestError(`DATASET must be one of ${DATASETS.map((d) => d.name).join(', ')}; got '${opts.dataset}'`);
  const listed = listSourceFiles(opts.sources);
  const { files, skipped } = selectFiles(listed);
  for (const s of skipped) log(`${stamp()} skipped ${s.file}: ${s.reason}`);
  if (files.length === 0) {
    throw new IngestError(`none of the ${listed.length} NetCDF files in ${opts.sources.join(', ')} holds daily values to read (each was skipped, as listed above)`);
  }

  const staging = await Staging.open(dataDir, opts.dataset);
  let removed = false;
  try {
    const conn = staging.conn;
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
    const cells = [...new Set([...cityCells, ...pointCells])].sort((a, b) => a - b);
    const cellsKey = createHash('sha256').update(cells.join(',')).digest('hex').slice(0, 16);
    const ctx: ExtractContext = {
      dataset: opts.dataset,
      grid,
      models: datasetRow[0]!.models,
      // The dataset's own years: CMIP6's historical runs to 2014, CMIP5's to 2005.
      scenarioYears: new Map(Object.entries(fixture.years)),
      generation: fixture.generation,
      runs: fixture.runs,
      cells,
    };
    const stale = removeStaleTempFiles(dataDir, opts.dataset);
    if (stale > 0) log(`${stamp()} removed ${stale} temporary partition files left by a killed ingest`);
    log(`${stamp()} ingest ${opts.dataset} into ${dataDir}: ${files.length} files${skipped.length > 0 ? ` (${skipped.length} skipped)` : ''}, ${cityCells.length} city cells + ${pointCells.length} points`);

    // 1. Extract: one file at a time, staged as soon as it is read.
    let bytes = 0;
    let values = 0;
    let resumed = 0;
    let lastLog = 0;
    const extractStarted = Date.now();
    const keys: SourceKey[] = files.map((file) => {
      const st = fs.statSync(file);
      return { path: file, size: st.size, mtime: st.mtimeMs, cellsKey };
    });
    const dropped = await staging.retainOnly(keys);
    if (dropped > 0) log(`${stamp()} dropped ${dropped} files staged by an interrupted run that this command does not include`);
    for (const [n, file] of files.entries()) {
      const key = keys[n]!;
      if (await staging.staged(key)) {
        resumed++;
        continue;
      }
      const x = await extractFile(file, ctx);
      await staging.stage(key, x);
      bytes += key.size;
      values += x.valuesRead;
      const s = (Date.now() - extractStarted) / 1000;
      if (Date.now() - lastLog > 1000 || n === files.length - 1) {
        lastLog = Date.now();
        log(
          `${stamp()} file ${n + 1}/${files.length} ${path.basename(file)} (${x.format}, ${x.variable} ${x.model} ${x.scenario}, ${x.calendar}): ` +
            `${x.series.size} cells` + (x.cellsEmpty > 0 ? ` (${x.cellsEmpty} more without values)` : '') +
            `; ${rate(values, s)} values/s, ${mb(bytes / Math.max(s, 1e-3))} MB/s`,
        );
      }
    }
    if (resumed > 0) log(`${stamp()} ${resumed} files were already staged by an interrupted run; not read again`);
    const extractSeconds = (Date.now() - extractStarted) / 1000;

    // 2. Rebuild each touched partition once.
    const partitions = await staging.partitions();
    const staged = new Set(partitions.map((p) => p.cellId));
    (opts.points ?? []).forEach((p, k) => {
      if (!staged.has(pointCells[k]!)) log(`${stamp()} warning: POINTS (${p.lat}, ${p.lon}): no file has values for its cell ${pointCells[k]}`);
    });
    log(`${stamp()} rebuilding ${partitions.length} partitions`);
    const withData = new Set<number>();
    let written = 0;
    // Two rebuilds at a time: each is a small query and a small file, dominated by fixed costs.
    await forEachOnConnections(partitions, 2, () => staging.connect(), async (wconn, p, n) => {
      const file = path.join(dataDir, 'climate', opts.dataset, p.scenario, `${p.cellId}.parquet`);
      if ((await staging.rebuild(file, p, wconn)) > 0) {
        withData.add(p.cellId);
        written++;
      }
      if ((n + 1) % 250 === 0) log(`${stamp()} partitions ${n + 1}/${partitions.length}`);
    });

    // The summaries the service reads beside the days (src/ingest/summaries.ts): for every rebuilt
    // partition, and for every scenario of a cell whose historical days changed (their heat-wave
    // summaries use its climatology); historical first.
    const inverted = await staging.invertedDays();
    const ranges = await historicRanges(conn, dataDir);
    const refresh = new Set<string>();
    for (const p of partitions) {
      const scenarios = p.scenario === 'historical' ? Object.keys(fixture.years) : [p.scenario];
      for (const s of scenarios) refresh.add(`${s}\t${p.cellId}`);
    }
    const order = (key: string) => (key.startsWith('historical\t') ? 0 : 1);
    const byCell = new Map<number, CellRef[]>();
    for (const key of [...refresh].sort((a, b) => order(a) - order(b))) {
      const [scenario, cell] = key.split('\t') as [string, string];
      const cellId = Number(cell);
      if (!fs.existsSync(cellPath(dataDir, 'climate', opts.dataset, scenario, cellId))) continue;
      byCell.set(cellId, [...(byCell.get(cellId) ?? []), { dataDir, dataset: opts.dataset, scenario, cellId }]);
    }
    await loadSummaryMacros(conn);
    // Two cells at a time, like the rebuilds: each summary is a small query with a fixed cost.
    const summarised = await writeSummaries([...byCell.values()], ranges, 2, () => staging.connect(), (done, total) => {
      if (done % 100 === 0) log(`${stamp()} summaries ${done}/${total}`);
    });
    log(`${stamp()} wrote the summaries of ${summarised} partitions`);

    // 3. The catalog's map cells, then the manifest.
    const known = new Set(
      (await readRows<{ cell_id: number }>(
        conn,
        `SELECT cell_id::INTEGER AS cell_id FROM read_parquet(${sqlString(path.join(dataDir, 'catalog', 'map_cell.parquet'))}) WHERE dataset = $d`,
        { d: opts.dataset },
      )).map((r) => r.cell_id),
    );
    const added = [...withData].filter((c) => !known.has(c));
    const coast = added.length > 0 ? new Coastline(readLand()) : undefined;
    const centres = added.map((c) => cellCentre(grid, c));
    const prox = centres.map((c) => proximityOf(coast!, c.lon, c.lat));
    const mapCellFile = path.join(dataDir, 'catalog', 'map_cell.parquet');
    await replaceFile(mapCellFile, (tmp) =>
      conn
        .run(`COPY (${sqlFile('ingest/map_cells.sql')}) TO ${sqlString(tmp)} (FORMAT parquet, COMPRESSION zstd)`, {
          dir: dataDir,
          dataset: opts.dataset,
          cells: listValue([...withData]),
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
          dataset: opts.dataset,
          synthetic_note: SYNTHETIC_NOTE,
          ingested_note: INGESTED_NOTE,
        })
        .then(() => undefined),
    );
    const cellsWithData = (await readRows<{ n: number }>(
      conn,
      `SELECT count(*)::INTEGER AS n FROM read_parquet(${sqlString(mapCellFile)}) WHERE dataset = $d AND has_data`,
      { d: opts.dataset },
    ))[0]!.n;

    const manifest = readManifest(dataDir) as Record<string, unknown> & { build_id: string };
    const years = { ...((manifest.years as Record<string, [number, number]>) ?? {}) };
    const datasets = { ...((manifest.datasets as Record<string, { cells_with_data: number }>) ?? {}) };
    const allDatasetYears = { ...((manifest.dataset_years as Record<string, Record<string, [number, number]>>) ?? {}) };
    const datasetYears = { ...(allDatasetYears[opts.dataset] ?? {}) };
    const widen = (had: [number, number] | undefined, y0: number, y1: number): [number, number] => (had ? [Math.min(had[0], y0), Math.max(had[1], y1)] : [y0, y1]);
    for (const [scenario, [y0, y1]] of await staging.yearRanges()) {
      datasetYears[scenario] = widen(datasetYears[scenario], y0, y1);
      // The build-wide years per scenario are shared by every dataset and describe the CMIP5
      // datasets' historical: a CMIP6 ingest widens them only for its own scenarios (ssp*), so that
      // CMIP6's historical 2006-2014 does not make CMIP5's historical look longer. The dataset's own
      // years are in dataset_years[name].
      if (fixture.generation === 'CMIP5' || !sharedWithCmip5(scenario)) years[scenario] = widen(years[scenario], y0, y1);
    }
    datasets[opts.dataset] = { ...datasets[opts.dataset]!, cells_with_data: cellsWithData };
    allDatasetYears[opts.dataset] = datasetYears;
    const sources = await staging.sources();
    const ingested = { ...((manifest.ingested as Record<string, { files: number; updated: string }>) ?? {}) };
    ingested[opts.dataset] = { files: (ingested[opts.dataset]?.files ?? 0) + sources.length, updated: new Date().toISOString() };
    const next = {
      ...manifest,
      // A new id: anything keyed on the build (caches, ETags) sees the data changed.
      build_id: createHash('sha256').update(JSON.stringify([manifest.build_id, opts.dataset, sources])).digest('hex').slice(0, 16),
      years,
      datasets,
      dataset_years: allDatasetYears,
      ingested,
      format_version: BUILD_FORMAT_VERSION,
      files: countCellFiles(dataDir),
    };
    await replaceFile(path.join(dataDir, 'manifest.json'), (tmp) => fs.writeFileSync(tmp, JSON.stringify(next, null, 2) + '\n'));

    await staging.remove();
    removed = true;
    const summary: IngestSummary = {
      files: files.length,
      filesResumed: resumed,
      bytes,
      values,
      partitions: written,
      cellsWithData,
      newCells: added.length,
      seconds: elapsed(),
      extractSeconds,
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
      `${stamp()} done: ${files.length} files (${mb(bytes)} MB read), ${values.toLocaleString('en-US')} values ` +
        `(${rate(values, extractSeconds)} values/s, ${mb(bytes / Math.max(extractSeconds, 1e-3))} MB/s reading), ${written} partitions, ` +
        `${withData.size} cells (${added.length} new map cells); ${opts.dataset} now has ${cellsWithData} cells with data. ` +
        'Restart the server to serve new cells.',
    );
    return summary;
  } finally {
    if (!removed) await staging.close();
  }
}
