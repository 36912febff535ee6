import { LIST, listValue, VARCHAR, type DuckDBConnection } from '@duckdb/node-api';
import { CELL_PARQUET } from '../climate/files.js';
import { sqlFile, sqlString } from '../db/sqlFiles.js';
import { NOLEAP_MODELS } from '../reference/fixtures.js';

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
  cellId: number;
  scenario: string;
  years: [number, number];
  models: string[];
  climate: CellClimate;
  outFile: string;
}

/** The generator's parameters for one (cell, scenario): see sql/build/synthetic_climate.sql. */
export function syntheticParams(job: Omit<SyntheticCellJob, 'outFile'>) {
  const c = job.climate;
  return {
    seed: job.seed,
    cell: job.cellId,
    scenario: job.scenario,
    y0: job.years[0],
    y1: job.years[1],
    models: listValue(job.models),
    noleap: listValue(job.models.filter((m) => NOLEAP_MODELS.has(m))),
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
 * Generates and writes one (dataset, scenario, cell) Parquet file, sorted by model then date as the
 * generator produces them. Returns the number of rows written.
 */
export async function writeSyntheticCell(conn: DuckDBConnection, job: SyntheticCellJob): Promise<number> {
  // COPY takes no parameter for its target; the path is the build's own, not user input.
  // The list types spelled out: an empty list (no model on a 365-day calendar) has no item type of its own.
  const types = { models: LIST(VARCHAR), noleap: LIST(VARCHAR) };
  const result = await conn.run(`COPY (${sqlFile('build/synthetic_climate.sql')}) TO ${sqlString(job.outFile)} (${CELL_PARQUET})`, syntheticParams(job), types);
  return Number(result.rowsChanged);
}
