import { listValue, type DuckDBConnection } from '@duckdb/node-api';
import { sqlFile, sqlString } from '../db/sqlFiles.js';
import { NOLEAP_MODELS } from '../reference/fixtures.js';

/** What shapes a cell's synthetic climate besides its latitude. */
export interface CellClimate {
  lat: number;
  lon: number;
  /** 0 at the coast, 1 from 800 km inland. */
  continentality: number;
  /** 1 in the desert Southwest, fading to 0 over 5 degrees. */
  aridity: number;
  /** Pacific maritime influence: 1 on the west coast, 0 from 200 km inland. */
  westCoast: number;
}

export function cellClimate(lat: number, lon: number, coastKm: number): CellClimate {
  const dx = Math.max(0, -118 - lon, lon + 103);
  const dy = Math.max(0, 30 - lat, lat - 42);
  return {
    lat,
    lon,
    continentality: Math.min(1, coastKm / 800),
    aridity: Math.max(0, 1 - Math.hypot(dx, dy) / 5),
    westCoast: lon < -116 && lon > -170 ? Math.max(0, 1 - coastKm / 200) : 0,
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

/** Generates and writes one (dataset, scenario, cell) Parquet file, sorted by model then date. */
export async function writeSyntheticCell(conn: DuckDBConnection, job: SyntheticCellJob): Promise<void> {
  const select = sqlFile('build/synthetic_climate.sql');
  // COPY takes no parameter for its target; the path is the build's own, not user input.
  const sql = `COPY (${select}) TO ${sqlString(job.outFile)} (FORMAT parquet, COMPRESSION zstd, PARQUET_VERSION V2)`;
  await conn.run(sql, {
    seed: job.seed,
    cell: job.cellId,
    scenario: job.scenario,
    y0: job.years[0],
    y1: job.years[1],
    lat: job.climate.lat,
    cont: job.climate.continentality,
    arid: job.climate.aridity,
    west: job.climate.westCoast,
    models: listValue(job.models),
    noleap: listValue(job.models.filter((m) => NOLEAP_MODELS.has(m))),
  });
}
