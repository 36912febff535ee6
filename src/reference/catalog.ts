import fs from 'node:fs';
import path from 'node:path';
import type { DuckDBConnection } from '@duckdb/node-api';
import { readRows } from '../db/duckdb.js';
import { sqlFile } from '../db/sqlFiles.js';
import { checkFormatVersion } from '../dataBuild/buildCheck.js';
import { buildFile } from '../dataBuild/files.js';
import { staleSummaryDatasets } from '../dataBuild/summaryFormat.js';
import { MapCells, type DatasetCellArrays } from './mapCells.js';

/**
 * The reference data of one data build, read once from the catalog Parquet files.
 *
 * It is immutable for the life of a build and small (a few thousand cities), so the reference
 * endpoints answer from these arrays instead of issuing a DuckDB query per request: a filtered,
 * sorted city page costs about 1.3 ms as a DuckDB query and tens of microseconds here (see the
 * note in docs/architecture.md). Every replica loads the same files, so this is not request
 * state: it changes only with the data build.
 */
export interface City {
  id: number;
  name: string;
  admin: string;
  population: number;
  lon: number;
  lat: number;
  regionId: number | null;
  ocean: boolean;
  coastal: boolean;
  datasets: string[];
}

export type { MapCell } from './mapCells.js';

/** That a city has a boundary, and of what kind; its geometry is read when asked (boundaryGeometry.ts). */
export interface Boundary {
  boundaryType: string;
  source: string;
}

export interface Region {
  id: number;
  level1: number;
  level1_description: string;
  level2: number;
  level2_description: string;
  geometry: string;
  bbox: [number, number, number, number];
}

export interface DatasetScenario {
  name: string;
  startYear: number;
  endYear: number;
}

/** A model's run in one dataset (see src/reference/fixtures.ts, ModelRun). */
export interface ModelRun {
  dataset: string;
  member: string | null;
  gridLabel: string | null;
  calendar: string;
  scenarios: string[];
}

export interface Dataset {
  name: string;
  label: string;
  description: string;
  url: string;
  grid: string;
  generation: string;
  cellSize: number;
  models: string[];
  /** The dataset's scenarios and their full years (a build may hold fewer: scenarioYears). */
  scenarios: DatasetScenario[];
  /** model -> its run in this dataset */
  runs: Map<string, ModelRun>;
}

export interface ClimateModel {
  name: string;
  label: string;
  datasets: string[];
  calendar: string;
  runs: ModelRun[];
}

export interface Scenario {
  name: string;
  label: string;
  description: string;
  alias: string;
  startYear: number;
  endYear: number;
}

export interface HistoricRange {
  start_year: number;
  end_year: number;
  /** The datasets whose historical years hold the range. */
  datasets: string[];
}

/** One model's 20-year window at a warming level in a scenario (catalog/warming_level.parquet; src/ingest/warmingLevels.ts). */
export interface WarmingWindow {
  dataset: string;
  model: string;
  /** The model as the table names it (GFDL-CM4 for GFDL-CM4_gr2). */
  table_model: string;
  /** The ensemble member the table used. */
  member: string;
  scenario: string;
  warming_level: number;
  start_year: number;
  end_year: number;
  reference_start: number;
  reference_end: number;
}

export interface Manifest {
  build_id: string;
  created: string;
  [key: string]: unknown;
}

export interface Catalog {
  dataDir: string;
  manifest: Manifest;
  cities: City[];
  cityById: Map<number, City>;
  /** city id -> dataset -> cell id, for the cells that have data. */
  cityCells: Map<number, Map<string, number>>;
  /** The map cells with data, and the point lookups over them. */
  mapCells: MapCells;
  boundaries: Map<number, Boundary>;
  regions: Region[];
  regionById: Map<number, Region>;
  datasets: Dataset[];
  datasetByName: Map<string, Dataset>;
  models: ClimateModel[];
  modelByName: Map<string, ClimateModel>;
  scenarios: Scenario[];
  scenarioByName: Map<string, Scenario>;
  historicRanges: HistoricRange[];
  /** Every model's window per dataset, scenario and level; empty for a build made before warming levels. */
  warmingWindows: WarmingWindow[];
  /** Datasets whose monthly summaries an older service wrote (staleSummaryDatasets): their indicators answer 503. */
  staleSummaries: Set<string>;
}

/** The build's manifest, or an error that tells the user how to make one. */
export function readManifest(dataDir: string): Manifest {
  const file = path.join(dataDir, 'manifest.json');
  if (!fs.existsSync(file)) {
    throw new Error(`No data build at ${dataDir} (missing manifest.json). Run \`make run\` (it builds the default data while serving) or \`make data\`, or set DATA_DIR.`);
  }
  return parseManifest(file, dataDir);
}

function parseManifest(file: string, dataDir: string): Manifest {
  let manifest: Manifest;
  try {
    manifest = JSON.parse(fs.readFileSync(file, 'utf8')) as Manifest;
  } catch (err) {
    throw new Error(`${file} cannot be read as JSON (${err instanceof Error ? err.message : String(err)}): the build is incomplete or damaged; rebuild it.`);
  }
  if (typeof manifest !== 'object' || manifest === null || typeof manifest.build_id !== 'string') throw new Error(`${file} has no build_id: it is not a data build's manifest.`);
  checkFormatVersion(manifest, dataDir);
  return manifest;
}

/**
 * What the server serves: the manifest of a complete build or, while a build is written in place
 * (DATA_AUTOBUILD), its plan, which has the manifest's fields and a complete catalog beside it.
 */
function readBuildDescription(dataDir: string): Manifest {
  const plan = buildFile.plan(dataDir);
  if (!fs.existsSync(buildFile.manifest(dataDir)) && fs.existsSync(plan)) return parseManifest(plan, dataDir);
  return readManifest(dataDir);
}

/** A vector's values as the typed array @duckdb/node-api keeps them in (not in its typings). */
type TypedVector = { items: Int32Array | Float64Array | Uint8Array };

/**
 * The map cells with data, copied from DuckDB's vectors into typed arrays a block at a time: as
 * row objects 200,000 cells took 1.3 s and 50 MB of heap at start-up, and value by value 0.2-0.3 s.
 * The columns are never NULL (sql/catalog/map_cells.sql), so the vectors' values are the values.
 */
async function readMapCells(conn: DuckDBConnection, dataDir: string): Promise<MapCells> {
  const counts = await readRows<{ dataset: string; cells: number }>(conn, sqlFile('catalog/map_cell_counts.sql'), { dir: dataDir });
  const arrays: DatasetCellArrays[] = counts.map(({ dataset, cells }) => ({
    name: dataset,
    ids: new Int32Array(cells),
    lats: new Float64Array(cells),
    lons: new Float64Array(cells),
    flags: new Uint8Array(cells),
  }));
  const result = await conn.run(sqlFile('catalog/map_cells.sql'), { dir: dataDir });
  let d = 0;
  let k = 0;
  for (let c = 0; c < result.chunkCount; c++) {
    const chunk = result.getChunk(c);
    const columns = [0, 1, 2, 3].map((i) => (chunk.getColumnVector(i) as unknown as TypedVector).items);
    // A chunk of rows may end one dataset and start the next.
    for (let row = 0; row < chunk.rowCount; ) {
      while (k === arrays[d]!.ids.length) [d, k] = [d + 1, 0];
      const a = arrays[d]!;
      const n = Math.min(chunk.rowCount - row, a.ids.length - k);
      [a.ids, a.lats, a.lons, a.flags].forEach((target, i) => target.set(columns[i]!.subarray(row, row + n), k));
      row += n;
      k += n;
    }
  }
  return MapCells.of(arrays);
}

export async function loadCatalog(conn: DuckDBConnection, dataDir: string): Promise<Catalog> {
  const { cells: _planned, ...manifest } = readBuildDescription(dataDir) as Manifest & { cells?: unknown };
  const params = { dir: dataDir };
  const q = <T>(file: string) => readRows<T>(conn, sqlFile(`catalog/${file}`), params);

  // A build made before warming levels has no table: it answers warming-level requests 503 (make data).
  const warmingFile = path.join(dataDir, 'catalog', 'warming_level.parquet');
  const [cityRows, cityCellRows, mapCells, boundaryRows, regionRows, datasetRows, modelRows, scenarioRows, ranges, warmingWindows] =
    await Promise.all([
      q<{ id: number; name: string; admin: string; population: number; lon: number; lat: number; region_id: number | null; ocean: boolean; coastal: boolean; datasets: string[] }>('cities.sql'),
      q<{ city_id: number; dataset: string; cell_id: number }>('city_cells.sql'),
      readMapCells(conn, dataDir),
      q<{ city_id: number; boundary_type: string; source: string }>('boundaries.sql'),
      q<{ id: number; level1: number; level1_description: string; level2: number; level2_description: string; geometry: string; min_lon: number; min_lat: number; max_lon: number; max_lat: number }>('regions.sql'),
      q<{ name: string; label: string; description: string; url: string; grid: string; generation: string; cell_size: number; models: string[]; scenarios: { name: string; start_year: number; end_year: number }[] }>('datasets.sql'),
      q<{ name: string; label: string; datasets: string[]; calendar: string; runs: { dataset: string; member: string | null; grid_label: string | null; calendar: string; scenarios: string[] }[] }>('climate_models.sql'),
      q<{ name: string; label: string; description: string; alias: string; start_year: number; end_year: number }>('scenarios.sql'),
      q<HistoricRange>('historic_ranges.sql'),
      fs.existsSync(warmingFile) ? q<WarmingWindow>('warming_levels.sql') : Promise.resolve([]),
    ]);

  // A city's datasets in catalog order (NEX-GDDP, LOCA as they always came, then the CMIP6 ones).
  const datasetOrder = new Map(datasetRows.map((d, i) => [d.name, i]));
  const byCatalogOrder = (names: string[]) => [...names].sort((a, b) => (datasetOrder.get(a) ?? 99) - (datasetOrder.get(b) ?? 99));
  const cities: City[] = cityRows.map((r) => ({
    id: Number(r.id),
    name: r.name,
    admin: r.admin,
    population: Number(r.population),
    lon: r.lon,
    lat: r.lat,
    regionId: r.region_id === null ? null : Number(r.region_id),
    ocean: r.ocean,
    coastal: r.coastal,
    datasets: byCatalogOrder(r.datasets),
  }));

  const cityCells = new Map<number, Map<string, number>>();
  // Each city's cells in catalog order, as its datasets.
  const ordered = [...cityCellRows].sort((a, b) => (datasetOrder.get(a.dataset) ?? 99) - (datasetOrder.get(b.dataset) ?? 99));
  for (const r of ordered) {
    if (!mapCells.has(r.dataset, r.cell_id)) continue;
    const id = Number(r.city_id);
    let m = cityCells.get(id);
    if (!m) cityCells.set(id, (m = new Map()));
    m.set(r.dataset, r.cell_id);
  }

  const regions: Region[] = regionRows.map((r) => ({
    id: r.id,
    level1: r.level1,
    level1_description: r.level1_description,
    level2: r.level2,
    level2_description: r.level2_description,
    geometry: r.geometry,
    bbox: [r.min_lon, r.min_lat, r.max_lon, r.max_lat],
  }));

  const models: ClimateModel[] = modelRows.map((r) => ({
    name: r.name,
    label: r.label,
    datasets: r.datasets,
    calendar: r.calendar,
    runs: r.runs.map((x) => ({ dataset: x.dataset, member: x.member, gridLabel: x.grid_label, calendar: x.calendar, scenarios: x.scenarios })),
  }));
  const datasets: Dataset[] = datasetRows.map((r) => ({
    name: r.name,
    label: r.label,
    description: r.description,
    url: r.url,
    grid: r.grid,
    generation: r.generation,
    cellSize: r.cell_size,
    models: r.models,
    scenarios: r.scenarios.map((x) => ({ name: x.name, startYear: x.start_year, endYear: x.end_year })),
    runs: new Map(models.flatMap((m) => m.runs.filter((x) => x.dataset === r.name).map((x) => [m.name, x] as const))),
  }));

  const scenarios: Scenario[] = scenarioRows.map((r) => ({
    name: r.name,
    label: r.label,
    description: r.description,
    alias: r.alias,
    startYear: r.start_year,
    endYear: r.end_year,
  }));

  return {
    dataDir,
    manifest,
    cities,
    cityById: new Map(cities.map((c) => [c.id, c])),
    cityCells,
    mapCells,
    boundaries: new Map(
      boundaryRows.map((r) => [Number(r.city_id), { boundaryType: r.boundary_type, source: r.source }]),
    ),
    regions,
    regionById: new Map(regions.map((r) => [r.id, r])),
    datasets,
    datasetByName: new Map(datasets.map((d) => [d.name, d])),
    models,
    modelByName: new Map(models.map((m) => [m.name, m])),
    scenarios,
    scenarioByName: new Map(scenarios.map((s) => [s.name, s])),
    historicRanges: ranges,
    warmingWindows,
    staleSummaries: await staleSummaryDatasets(conn, dataDir, (dataset) => ranges.filter((r) => r.datasets.includes(dataset)).map((r) => r.start_year)),
  };
}
