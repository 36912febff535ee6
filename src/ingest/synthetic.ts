import { INTEGER, LIST, listValue, VARCHAR, type DuckDBConnection } from '@duckdb/node-api';
import { CELL_PARQUET } from '../dataBuild/files.js';
import { sqlFile, sqlString } from '../db/sqlFiles.js';
import { DATASETS, runOf } from '../reference/fixtures.js';
import { day360ToDayOfYear } from './netcdf/cfTime.js';

/**
 * What shapes a cell's synthetic climate besides its latitude: weights in [0, 1] that the generator
 * (sql/build/synthetic_climate.sql) turns into temperature and precipitation parameters. They are
 * coarse stand-ins for geography the build has no data for (elevation, rain shadows, monsoons).
 */
export interface CellClimate {
  lat: number;
  lon: number;
  /** Continentality: 0 at the coast, 1 from 800 km inland. */
  continentality: number;
  /** Pacific maritime influence: 1 on the west coast, 0 from 200 km inland. */
  westCoast: number;
  /** Desert Southwest (Mojave and Sonoran deserts). */
  aridity: number;
  /** Semi-arid interior West and High Plains, east of the Cascades and the Sierra Nevada. */
  steppe: number;
  /** Rocky Mountains and Colorado Plateau: cooler for their elevation. */
  highland: number;
  /** Humid subtropical Gulf and Florida coast: a summer wet season and heavier rain. */
  subtropic: number;
}

const clamp01 = (x: number) => Math.min(1, Math.max(0, x));

/** Distance in degrees (longitude scaled by cos(latitude)) from a point to a segment. */
function degreesToSegment(lat: number, lon: number, a: [number, number], b: [number, number]): number {
  const k = Math.cos((lat * Math.PI) / 180);
  const [ax, ay, bx, by] = [(a[1] - lon) * k, a[0] - lat, (b[1] - lon) * k, b[0] - lat];
  const [dx, dy] = [bx - ax, by - ay];
  const t = clamp01(-(ax * dx + ay * dy) / (dx * dx + dy * dy));
  return Math.hypot(ax + t * dx, ay + t * dy);
}

/**
 * @param coastKm distance of the cell centre to the coastline (0 in the sea; Infinity or anything
 *   above 800 counts as fully continental)
 */
export function cellClimate(lat: number, lon: number, coastKm: number): CellClimate {
  const westCoast = lon > -170 && lon < -116 && lat > 30 ? clamp01(1 - coastKm / 200) : 0;
  // The low desert from Las Vegas to Tucson.
  const desert = degreesToSegment(lat, lon, [36.17, -115.14], [32.22, -110.93]);
  const crest = lat >= 42 ? -121.3 : -119.5;
  const k = Math.cos((lat * Math.PI) / 180);
  return {
    lat,
    lon,
    continentality: clamp01(coastKm / 800),
    westCoast,
    aridity: Math.exp(-((desert / 3) ** 2)),
    steppe: lat > 28 && lat < 50 ? clamp01((-97 - lon) / 6) * clamp01((lon - crest) / 1.5) * (1 - westCoast) : 0,
    highland: Math.exp(-((Math.hypot(lat - 39, (lon + 108) * k) / 4.5) ** 2)),
    subtropic: lon > -100 && lon < -60 ? clamp01((31 - lat) / 4) * clamp01(1 - coastKm / 400) : 0,
  };
}

export interface SyntheticCellJob {
  seed: number;
  /** The dataset whose runs give each model's calendar. */
  dataset: string;
  cellId: number;
  scenario: string;
  years: [number, number];
  models: string[];
  climate: CellClimate;
  outFile: string;
}

/**
 * The days of a year of `days` days (1-based) that no day of a 360-day year lands on, by the rule
 * the NetCDF ingest maps 360-day calendars with (cfTime.ts), so that synthetic 360-day models have
 * rows on the same real dates as ingested ones: 5 in a year of 365 days, 6 in one of 366.
 */
export function daysWithout360(days: 365 | 366): number[] {
  // Any year of that length: the rule only looks at the year's length.
  const year = days === 366 ? 2000 : 2001;
  const hit = new Set(Array.from({ length: 360 }, (_, i) => day360ToDayOfYear(year, i + 1)));
  return Array.from({ length: days }, (_, i) => i + 1).filter((d) => !hit.has(d));
}
const SKIP_365 = daysWithout360(365);
const SKIP_366 = daysWithout360(366);

/** Each model's run in the dataset (member, grid, calendar, scenarios). */
function modelRuns(dataset: string, models: string[]) {
  const d = DATASETS.find((x) => x.name === dataset);
  if (!d) throw new Error(`Unknown dataset ${dataset}`);
  return models.map((model) => {
    const run = runOf(d, model);
    if (!run) throw new Error(`${dataset} has no model ${model}`);
    return run;
  });
}

/** The generator's parameters for one (cell, scenario): see sql/build/synthetic_climate.sql. */
export function syntheticParams(job: Omit<SyntheticCellJob, 'outFile'>) {
  const c = job.climate;
  const runs = modelRuns(job.dataset, job.models);
  return {
    seed: job.seed,
    cell: job.cellId,
    scenario: job.scenario,
    y0: job.years[0],
    y1: job.years[1],
    models: listValue(job.models),
    noleap: listValue(runs.filter((r) => r.calendar === 'noleap').map((r) => r.model)),
    day360: listValue(runs.filter((r) => r.calendar === '360_day').map((r) => r.model)),
    skip365: listValue(SKIP_365),
    skip366: listValue(SKIP_366),
    lat: c.lat,
    cont: c.continentality,
    west: c.westCoast,
    arid: c.aridity,
    steppe: c.steppe,
    highland: c.highland,
    subtropic: c.subtropic,
  };
}

/**
 * sql/build/synthetic_climate.sql with its model ENUM spelled out: the models' names (of the
 * dataset's fixtures, quoted) as the type's values.
 */
export function syntheticSql(models: string[]): string {
  return sqlFile('build/synthetic_climate.sql').replaceAll('{{model_enum}}', `ENUM(${models.map(sqlString).join(', ')})`);
}

/**
 * Generates and writes one (dataset, scenario, cell) Parquet file, sorted by model then date as the
 * generator produces them. Returns the number of rows written.
 */
export async function writeSyntheticCell(conn: DuckDBConnection, job: SyntheticCellJob): Promise<number> {
  // COPY takes no parameter for its target; the path is the build's own, not user input.
  // The list types spelled out: an empty list (no model on a 365-day calendar) has no item type of its own.
  const types = { models: LIST(VARCHAR), noleap: LIST(VARCHAR), day360: LIST(VARCHAR), skip365: LIST(INTEGER), skip366: LIST(INTEGER) };
  const result = await conn.run(`COPY (${syntheticSql(job.models)}) TO ${sqlString(job.outFile)} (${CELL_PARQUET})`, syntheticParams(job), types);
  return Number(result.rowsChanged);
}
