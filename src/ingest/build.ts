import { createHash } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import type { DuckDBConnection } from '@duckdb/node-api';
import { openDuckDB } from '../db/duckdb.js';
import { sqlString } from '../db/sqlFiles.js';
import { DATASETS, HISTORIC_RANGES, NOLEAP_MODELS, SCENARIOS, SYNTHETIC_NOTE } from '../reference/fixtures.js';
import { GRIDS } from '../reference/grids.js';
import { cityCellRows, cityRows, mapCellRows, regionRows } from './catalog.js';
import { Coastline } from './geometry.js';
import { readBoundaries, readCities, readLand, readRegions } from './sources.js';
import { cellClimate, writeSyntheticCell } from './synthetic.js';

export interface BuildOptions {
  outDir: string;
  /** How many of the most populous cities get climate data in their cells. */
  climateCities: number;
  seed: number;
  /** Per dataset, a subset of its models (default: all). */
  models?: Partial<Record<string, string[]>>;
  /** Per scenario, a narrower year range (default: the scenario's full range). */
  years?: Partial<Record<string, [number, number]>>;
  log?: (line: string) => void;
}

export interface Manifest {
  build_id: string;
  created: string;
  seed: number;
  climate_cities: number;
  synthetic: boolean;
  datasets: Record<string, { cells_with_data: number; models: number }>;
  years: Record<string, [number, number]>;
}

/** Rows to Parquet through a temporary NDJSON file, with the column types spelled out. */
async function writeTable(conn: DuckDBConnection, rows: object[], columns: Record<string, string>, file: string) {
  const ndjson = `${file}.ndjson`;
  fs.writeFileSync(ndjson, rows.map((r) => JSON.stringify(r)).join('\n') + '\n');
  const cols = Object.entries(columns)
    .map(([k, v]) => `${sqlString(k)}: ${sqlString(v)}`)
    .join(', ');
  const names = Object.keys(columns).map((k) => `"${k}"`).join(', ');
  await conn.run(
    `COPY (SELECT ${names} FROM read_json(${sqlString(ndjson)}, format = 'newline_delimited', columns = {${cols}}))
     TO ${sqlString(file)} (FORMAT parquet, COMPRESSION zstd)`,
  );
  fs.rmSync(ndjson);
}

function dirSize(dir: string): number {
  let total = 0;
  for (const e of fs.readdirSync(dir, { withFileTypes: true })) {
    const p = path.join(dir, e.name);
    total += e.isDirectory() ? dirSize(p) : fs.statSync(p).size;
  }
  return total;
}

/**
 * Builds the default dataset into `outDir`: the reference catalog from data/sources, and synthetic
 * climate data for the cells of the most populous cities. It writes into a sibling temporary
 * folder and swaps it in at the end, so an interrupted build leaves the previous one intact.
 */
export async function buildDataset(opts: BuildOptions): Promise<Manifest> {
  const log = opts.log ?? ((line: string) => console.log(line));
  const started = Date.now();
  const elapsed = () => `${((Date.now() - started) / 1000).toFixed(1)}s`;
  const outDir = path.resolve(opts.outDir);
  const tmp = `${outDir}.tmp-${process.pid}`;
  fs.rmSync(tmp, { recursive: true, force: true });
  fs.mkdirSync(path.join(tmp, 'catalog'), { recursive: true });

  const db = await openDuckDB({ threads: 2, memoryLimit: '2GB' });
  const conn = await db.connect();
  try {
    log(`[${elapsed()}] reading sources (cities, boundaries, ecoregions, Natural Earth land)`);
    const cities = readCities();
    const boundaries = new Map(readBoundaries().map((b) => [b.cityId, b]));
    const regions = regionRows(readRegions());
    const coast = new Coastline(readLand());

    log(`[${elapsed()}] ${cities.length} cities: regions, proximity, map cells`);
    const cityTable = cityRows(cities, boundaries, regions, coast);
    const cityCells = cityCellRows(cities);
    const byPopulation = [...cities].sort((a, b) => b.population - a.population || a.id - b.id);
    const withData = new Set<string>();
    for (const c of byPopulation.slice(0, opts.climateCities)) {
      for (const cc of cityCells) if (cc.city_id === c.id) withData.add(`${cc.dataset}:${cc.cell_id}`);
    }
    const cells = mapCellRows(cityCells, coast, withData);

    log(`[${elapsed()}] writing the catalog`);
    const catalog = (name: string) => path.join(tmp, 'catalog', `${name}.parquet`);
    await writeTable(conn, cityTable, { id: 'BIGINT', name: 'VARCHAR', admin: 'VARCHAR', population: 'INTEGER', lon: 'DOUBLE', lat: 'DOUBLE', region_id: 'INTEGER', ocean: 'BOOLEAN', coastal: 'BOOLEAN' }, catalog('city'));
    const known = new Set(cities.map((c) => c.id));
    await writeTable(
      conn,
      [...boundaries.values()]
        .filter((b) => known.has(b.cityId))
        .map((b) => ({ city_id: b.cityId, geometry: JSON.stringify(b.geometry), boundary_type: b.boundaryType, source: 'US Census TIGER/Line 2019' })),
      { city_id: 'BIGINT', geometry: 'VARCHAR', boundary_type: 'VARCHAR', source: 'VARCHAR' },
      catalog('city_boundary'),
    );
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

    const years: Record<string, [number, number]> = {};
    for (const s of SCENARIOS) years[s.name] = opts.years?.[s.name] ?? [s.startYear, s.endYear];
    const jobs = cells.filter((c) => c.has_data);
    const datasets: Manifest['datasets'] = {};
    let rows = 0;
    for (const d of DATASETS) {
      const models = opts.models?.[d.name] ?? d.models;
      const dCells = jobs.filter((c) => c.dataset === d.name);
      datasets[d.name] = { cells_with_data: dCells.length, models: models.length };
      for (const [i, cell] of dCells.entries()) {
        const climate = cellClimate(cell.lat, cell.lon, coast.onLand(cell.lon, cell.lat) ? coast.distanceKm(cell.lon, cell.lat, 2000) : 0);
        for (const s of SCENARIOS) {
          const dir = path.join(tmp, 'climate', d.name, s.name);
          fs.mkdirSync(dir, { recursive: true });
          await writeSyntheticCell(conn, {
            seed: opts.seed,
            cellId: cell.cell_id,
            scenario: s.name,
            years: years[s.name]!,
            models,
            climate,
            outFile: path.join(dir, `${cell.cell_id}.parquet`),
          });
        }
        const [y0, y1] = [years.historical!, years.RCP85!];
        rows += models.length * 365.25 * (y1[1] - y1[0] + 1) * 2 + models.length * 365.25 * (y0[1] - y0[0] + 1);
        log(`[${elapsed()}] climate ${d.name} cell ${i + 1}/${dCells.length} (${cell.cell_id}; ${models.length} models; ~${Math.round(rows / ((Date.now() - started) / 1000) / 1000)}k rows/s overall)`);
      }
    }

    const manifest: Manifest = {
      build_id: createHash('sha256')
        .update(JSON.stringify({ seed: opts.seed, climateCities: opts.climateCities, models: opts.models ?? null, years, v: 1 }))
        .digest('hex')
        .slice(0, 16),
      created: new Date().toISOString(),
      seed: opts.seed,
      climate_cities: opts.climateCities,
      synthetic: true,
      datasets,
      years,
    };
    fs.writeFileSync(path.join(tmp, 'manifest.json'), JSON.stringify(manifest, null, 2) + '\n');

    // Swap the new build in; the old one is only removed once the new one is in place.
    const old = `${outDir}.old-${process.pid}`;
    if (fs.existsSync(outDir)) fs.renameSync(outDir, old);
    fs.renameSync(tmp, outDir);
    fs.rmSync(old, { recursive: true, force: true });
    log(`[${elapsed()}] done: ${outDir} (${(dirSize(outDir) / 1e6).toFixed(0)} MB, ${cities.length} cities, ${jobs.length} cells with data)`);
    return manifest;
  } catch (err) {
    fs.rmSync(tmp, { recursive: true, force: true });
    throw err;
  } finally {
    conn.closeSync();
    db.closeSync();
  }
}
