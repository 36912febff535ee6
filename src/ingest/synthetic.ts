import fs from 'node:fs';
import path from 'node:path';
import { DATE, ENUM, FLOAT, type DuckDBConnection } from '@duckdb/node-api';
import { CELL_PARQUET, cellPath } from '../dataBuild/files.js';
import { sqlFile, sqlString } from '../db/sqlFiles.js';
import { DATASETS, runOf } from '../reference/fixtures.js';
import { hasHumidity, modelLacks } from '../reference/datasetVariables.js';
import { withRowSource } from '../db/rowSource.js';
import { day360ToDayOfYear } from './netcdf/cfTime.js';
import { ensembleDays } from './ensembleDays.js';
import { monthlySummaries } from './monthlySummaries.js';
import { historicNorms } from './historicNorms.js';
import { historicThresholds } from './historicThresholds.js';
import { rangesOfDataset, writeCellSummaries, type HistoricClimate, type SummaryRange } from './summaries.js';
import { syntheticDays, type CellClimate, type ModelDays } from './syntheticDays.js';

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

/** The models of a (cell, scenario) by name, as the files are sorted, and their days. */
function generate(job: Omit<SyntheticCellJob, 'outFile'>) {
  const models = [...job.models].sort();
  const days = syntheticDays({
    seed: job.seed,
    cellId: job.cellId,
    scenario: job.scenario,
    years: job.years,
    models,
    calendars: modelRuns(job.dataset, models).map((r) => r.calendar),
    skip360: { 365: SKIP_365, 366: SKIP_366 },
    climate: job.climate,
    humidity: hasHumidity(job.dataset) ? models.map((m) => ({ hurs: !modelLacks(job.dataset, m, ['hurs']).length, huss: !modelLacks(job.dataset, m, ['huss']).length })) : undefined,
  });
  return { models, days: [...days] };
}

/** Writes the days of a (cell, scenario) to its Parquet file, in the order they come (by model, then date). Returns the rows written. */
async function writeDays(conn: DuckDBConnection, models: string[], days: ModelDays[], outFile: string): Promise<number> {
  // Each model's name is an ENUM of the cell's models, a byte a row, whose dictionary the Parquet
  // writer takes as it is: the same string column in the file, without encoding a name on every row.
  // Its values are a byte each up to 255 names (a dataset has at most 35 models).
  if (models.length > 255) throw new Error(`a cell of ${models.length} models: the model column takes at most 255`);
  const humid = days.length > 0 && days.every((d) => d.humid);
  const source = {
    names: ['model', 'date', 'tasmax', 'tasmin', 'pr', ...(humid ? ['tas', 'hurs', 'huss'] : [])],
    types: [ENUM(models), DATE, FLOAT, FLOAT, FLOAT, ...(humid ? [FLOAT, FLOAT, FLOAT] : [])],
    batches: days.map((d) => [new Uint8Array(d.date.length).fill(d.model), d.date, d.tasmax, d.tasmin, d.pr, ...(humid ? [d.humid!.tas, d.humid!.hurs, d.humid!.huss] : [])]),
  };
  fs.mkdirSync(path.dirname(outFile), { recursive: true });
  const sql = sqlFile(humid ? 'build/synthetic_humid_days.sql' : 'build/synthetic_days.sql');
  // COPY takes no parameter for its target; the path is the build's own, not user input.
  const result = await withRowSource(conn, source, (id) => conn.run(`COPY (${sql}) TO ${sqlString(outFile)} (${CELL_PARQUET})`, { source: id }));
  return Number(result.rowsChanged);
}

/** Generates and writes one (dataset, scenario, cell) Parquet file. Returns the number of rows written. */
export async function writeSyntheticCell(conn: DuckDBConnection, job: SyntheticCellJob): Promise<number> {
  const { models, days } = generate(job);
  return writeDays(conn, models, days, job.outFile);
}

export interface SyntheticCell {
  dataDir: string;
  seed: number;
  dataset: string;
  cellId: number;
  climate: CellClimate;
  scenarios: { scenario: string; years: [number, number]; models: string[] }[];
}

/**
 * Generates and writes every scenario's days of one cell, and their summaries. The monthly
 * summaries, the ensemble statistics and the historical climatology come from the days in memory
 * (monthlySummaries.ts, ensembleDays.ts, historicNorms.ts), the ensemble's JSON from its file; the
 * historical scenario goes first, since every scenario's heat-wave series compare with its
 * climatology. Returns the rows written.
 */
export async function writeSyntheticCellWithSummaries(conn: DuckDBConnection, cell: SyntheticCell, ranges: SummaryRange[]): Promise<number> {
  const ref = { dataDir: cell.dataDir, dataset: cell.dataset, cellId: cell.cellId };
  const order = (s: string) => (s === 'historical' ? 0 : 1);
  let historic: HistoricClimate | undefined;
  let rows = 0;
  for (const s of [...cell.scenarios].sort((a, b) => order(a.scenario) - order(b.scenario))) {
    const { models, days } = generate({ seed: cell.seed, dataset: cell.dataset, cellId: cell.cellId, scenario: s.scenario, years: s.years, models: s.models, climate: cell.climate });
    rows += await writeDays(conn, models, days, cellPath(cell.dataDir, 'climate', cell.dataset, s.scenario, cell.cellId));
    // Every scenario's heat-wave series and extreme events compare with the historical days' climate (none without them).
    const cellRanges = rangesOfDataset(ranges, cell.dataset);
    historic ??= s.scenario === 'historical' ? { norms: historicNorms(days, cellRanges), thresholds: historicThresholds(models, days, cellRanges) } : { norms: [], thresholds: [] };
    await writeCellSummaries(conn, { ...ref, scenario: s.scenario }, ranges, historic, {
      monthly: monthlySummaries(models, days, historic.norms, historic.thresholds),
      ensemble: ensembleDays(days),
    });
  }
  return rows;
}
