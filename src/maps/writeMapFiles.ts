import fs from 'node:fs';
import path from 'node:path';
import { listValue, type DuckDBConnection, type DuckDBType } from '@duckdb/node-api';
import { climateFile } from '../dataBuild/files.js';
import { sqlFile, sqlString } from '../db/sqlFiles.js';
import { ServiceError } from '../errors.js';
import { formatQuery } from '../http/format.js';
import { queryFields } from '../http/queryParams.js';
import { indicatorPlan, planCellFiles, planRequest, type IndicatorPlan } from '../indicators/indicatorPlan.js';
import { INDICATORS } from '../indicators/metadata.js';
import { indicatorQuery } from '../indicators/params.js';
import { fromMonths, MOST_CELLS, servedStatement, setVariables, type CellFiles } from '../indicators/query.js';
import { loadCatalog, type Catalog } from '../reference/catalog.js';
import { mapFileKey, mapFilePath } from './mapFiles.js';

/** Which map files to (re)write: a dataset's, and of it only some cells' rows (the others kept as they are). */
export interface MapFileScope {
  dataset?: string;
  /** Cells whose rows are computed again; undefined for every cell (the files are written anew). */
  cells?: Iterable<number>;
  /** Of these scenarios only (an ingest's; undefined for all). */
  scenarios?: string[];
}

export interface MapFilesWritten {
  files: number;
  rows: number;
  seconds: number;
}

/**
 * The plan of an indicator's yearly values over every year of a scenario at its default
 * parameters; undefined for the indicators that have none (a threshold the request must give).
 */
function defaultPlan(catalog: Catalog, dataset: string, scenario: string, name: string): IndicatorPlan | undefined {
  const fields = queryFields({ ...indicatorQuery(catalog), ...formatQuery }, { blankIsAbsent: true });
  try {
    return indicatorPlan(catalog, fields, { time_aggregation: 'yearly' }, catalog.datasetByName.get(dataset)!, catalog.scenarioByName.get(scenario)!, name, Infinity);
  } catch (err) {
    if (err instanceof ServiceError) return undefined;
    throw err;
  }
}

/** The scenarios of a dataset with cells' days in the build. */
function builtScenarios(dataDir: string, dataset: string): string[] {
  const dir = path.join(dataDir, 'climate', dataset);
  return fs.existsSync(dir) ? fs.readdirSync(dir).filter((s) => fs.statSync(path.join(dir, s)).isDirectory()).sort() : [];
}

/** One map file to write: an indicator's default plan for a (dataset, scenario), and the cells to compute. */
interface MapFileTask {
  plan: IndicatorPlan;
  cells: number[];
  target: string;
  /** The file whose other cells' rows are kept; undefined to write the file anew. */
  kept: string | undefined;
}

/** The files of the build's datasets (or of `scope`): each scenario with cells' days, each indicator with a default plan. */
function mapFileTasks(catalog: Catalog, scope: MapFileScope): MapFileTask[] {
  const dataDir = catalog.dataDir;
  const only = scope.cells ? new Set(scope.cells) : undefined;
  const tasks: MapFileTask[] = [];
  for (const dataset of catalog.datasets.map((d) => d.name).filter((d) => scope.dataset === undefined || d === scope.dataset)) {
    const cellIds = [...catalog.mapCells.ids(dataset)];
    for (const scenario of builtScenarios(dataDir, dataset)) {
      if (!catalog.scenarioByName.has(scenario) || (scope.scenarios && !scope.scenarios.includes(scenario))) continue;
      const withDays = cellIds.filter((id) => climateFile(dataDir, dataset, scenario, id) !== undefined);
      const cells = only ? withDays.filter((id) => only.has(id)) : withDays;
      if (cells.length === 0) continue;
      for (const meta of INDICATORS) {
        const plan = defaultPlan(catalog, dataset, scenario, meta.name);
        if (!plan) continue;
        const target = mapFilePath(dataDir, dataset, scenario, meta.name, mapFileKey(plan.units, plan.vars));
        tasks.push({ plan, cells, target, kept: only && fs.existsSync(target) ? target : undefined });
      }
    }
  }
  return tasks;
}

/**
 * Writes the map files (mapFiles.ts) of the build's datasets, or of `scope`, each with the same
 * statement the indicator endpoints run for a cell's yearly values (period_models of the template,
 * many cells at a time), so that a map read from them answers what the endpoints answer. One file
 * at a time: two connections at once took longer than one (53 against 42 s for the default
 * build's 340 files), the statements already using every thread. Each file is written beside its
 * place and renamed over it: a server reading the build meanwhile reads the old file or the new one.
 */
export async function writeMapFiles(conn: DuckDBConnection, catalog: Catalog, scope: MapFileScope = {}, progress: (done: number, total: number, rows: number) => void = () => {}): Promise<MapFilesWritten> {
  const started = Date.now();
  const tasks = mapFileTasks(catalog, scope);
  await conn.run(sqlFile('indicators/macros.sql'));
  let rows = 0;
  for (const [i, task] of tasks.entries()) {
    rows += await writeOne(conn, catalog, task);
    removeOtherKeys(path.dirname(task.target), task.plan.meta.name, path.basename(task.target));
    progress(i + 1, tasks.length, rows);
  }
  return { files: tasks.length, rows, seconds: (Date.now() - started) / 1000 };
}

/** A file of an indicator's values for parameters that are no longer its default is never read: removed. */
function removeOtherKeys(dir: string, indicator: string, keep: string) {
  const ofIndicator = new RegExp(`^${indicator}-[0-9a-f]{12}\\.parquet$`);
  for (const name of fs.readdirSync(dir)) if (name !== keep && ofIndicator.test(name)) fs.rmSync(path.join(dir, name), { force: true });
}

/** Rows (cell and model series) of a map file's row groups: 256 cells of 32 models. */
const ROW_GROUP_ROWS = 8192;

/** Cells a part of a map file holds: its rows sorted in memory (about 40 MB at 32 models and 150 years). */
export const PART_CELLS = 256;

/** The ids in consecutive parts of at most PART_CELLS, ascending. */
export function cellParts(ids: Iterable<number>): number[][] {
  const sorted = [...new Set(ids)].sort((a, b) => a - b);
  const parts: number[][] = [];
  for (let i = 0; i < sorted.length; i += PART_CELLS) parts.push(sorted.slice(i, i + PART_CELLS));
  return parts;
}

/**
 * A map file's rows as yearly rows (cell_id, model, year, value), for a writer that keeps some of
 * them. The path is the build's own, not user input.
 */
export function mapFileYearRows(file: string): string {
  return `SELECT cell_id, model, (first_year + i)::SMALLINT AS year, value FROM (SELECT cell_id, model, first_year, unnest(vals) AS value, unnest(range(len(vals))) AS i FROM read_parquet(${sqlString(file)}))`;
}

/**
 * A map file in the files' layout (a row per cell and model: its first year and its values of
 * consecutive years, sorted by cell and model), in bounded memory: part k's yearly rows
 * (cell_id, model, year, value), from `partRows(k)`, are grouped, sorted and written on their own,
 * the parts holding ascending, disjoint ranges of cells; then the parts are read in their order
 * into the file (one part is the file). Written beside its place and renamed over it.
 */
export async function writeMapFile(conn: DuckDBConnection, target: string, parts: number, partRows: (k: number) => Promise<{ sql: string; params?: Record<string, unknown>; types?: Record<string, DuckDBType> }>): Promise<void> {
  fs.mkdirSync(path.dirname(target), { recursive: true });
  const tmp = `${target}.tmp-${process.pid}`;
  fs.rmSync(tmp, { recursive: true, force: true });
  fs.mkdirSync(tmp);
  try {
    const files: string[] = [];
    for (let k = 0; k < parts; k++) {
      const { sql, params, types } = await partRows(k);
      const file = path.join(tmp, `part-${String(k).padStart(6, '0')}.parquet`);
      // The paths are the build's own, not user input; COPY takes no parameter for them. A year
      // between a series' first and last without a row (an ingested cell with some years only)
      // is a null in its list, so that each value stays at its year's place.
      await conn.run(
        `COPY (WITH rows AS (${sql}),
                    spans AS (SELECT cell_id, model, min(year)::SMALLINT AS first_year, max(year)::SMALLINT AS last_year FROM rows GROUP BY ALL),
                    years AS (SELECT cell_id, model, first_year, unnest(range(first_year, last_year + 1))::SMALLINT AS year FROM spans)
               SELECT y.cell_id, y.model, y.first_year, list(r.value ORDER BY y.year) AS vals
               FROM years y LEFT JOIN rows r USING (cell_id, model, year)
               GROUP BY y.cell_id, y.model, y.first_year
               ORDER BY y.cell_id, y.model) TO ${sqlString(file)} (FORMAT parquet, COMPRESSION zstd, ROW_GROUP_SIZE ${ROW_GROUP_ROWS})`,
        params as never,
        types,
      );
      files.push(file);
    }
    const whole = `${tmp}/whole.parquet`;
    if (files.length === 1) {
      fs.renameSync(files[0]!, whole);
    } else {
      const from = files.length > 0 ? `read_parquet([${files.map(sqlString).join(', ')}])` : '(SELECT NULL::INTEGER AS cell_id, NULL::VARCHAR AS model, NULL::SMALLINT AS first_year, NULL::DOUBLE[] AS vals LIMIT 0)';
      // With insertion order kept (DuckDB's default), the parts are read in the list's order: no sort of the whole.
      await conn.run(`COPY (SELECT cell_id, model, first_year, vals FROM ${from}) TO ${sqlString(whole)} (FORMAT parquet, COMPRESSION zstd, ROW_GROUP_SIZE ${ROW_GROUP_ROWS})`);
    }
    fs.renameSync(whole, target);
  } finally {
    fs.rmSync(tmp, { recursive: true, force: true });
  }
}

/** One file: the cells' yearly values computed (and an earlier file's other cells' rows kept); returns its rows. */
async function writeOne(conn: DuckDBConnection, catalog: Catalog, { plan, cells: cellIds, target, kept }: MapFileTask): Promise<number> {
  const computed = new Set(cellIds);
  const keptIds = kept
    ? ((await conn.runAndReadAll(`SELECT DISTINCT cell_id::INTEGER FROM read_parquet(${sqlString(kept)})`)).getColumnsJS()[0] as number[]).filter((id) => !computed.has(id))
    : [];
  const parts = cellParts([...cellIds, ...keptIds]);
  await conn.run('CREATE OR REPLACE TEMP TABLE map_rows (cell_id INTEGER, model VARCHAR, year SMALLINT, value DOUBLE)');
  let values = 0;
  try {
    await writeMapFile(conn, target, parts.length, async (k) => {
      await conn.run('DELETE FROM map_rows');
      const ids = parts[k]!;
      const own = ids.filter((id) => computed.has(id));
      for (let i = 0; i < own.length; i += MOST_CELLS) values += await insertComputed(conn, catalog, plan, own.slice(i, i + MOST_CELLS));
      if (kept && own.length < ids.length) {
        const keptRows = await conn.run(`INSERT INTO map_rows SELECT cell_id, model, year, value FROM (${mapFileYearRows(kept)}) WHERE list_contains($ids, cell_id)`, {
          ids: listValue(ids.filter((id) => !computed.has(id))),
        });
        values += keptRows.rowsChanged;
      }
      return { sql: 'SELECT * FROM map_rows' };
    });
    return values;
  } finally {
    await conn.run('DROP TABLE IF EXISTS map_rows');
  }
}

/** One statement's cells' yearly values into map_rows; returns how many. */
async function insertComputed(conn: DuckDBConnection, catalog: Catalog, plan: IndicatorPlan, cellIds: number[]): Promise<number> {
  const group: { id: number; files: CellFiles }[] = [];
  for (const id of cellIds) {
    try {
      const files = planCellFiles(catalog, plan, id);
      if (files) group.push({ id, files });
    } catch (err) {
      // A cell without what the indicator needs (a historical file for its historic range) has no value there: its maps read the days.
      if (!(err instanceof ServiceError)) throw err;
    }
  }
  if (group.length === 0) return 0;
  const r = planRequest(plan, group.map((g) => g.files));
  const sql = servedStatement(r.name, 'period_models', fromMonths(r));
  await setVariables(conn, r, sql);
  const inserted = await conn.run(
    `INSERT INTO map_rows SELECT cell_id, model, year, value FROM (
       SELECT list_extract($ids, cell + 1) AS cell_id, model, unnest(ids) AS year, unnest(vals) AS value FROM (${sql})
     ) WHERE year > 0`,
    { ids: listValue(group.map((g) => g.id)) },
  );
  return inserted.rowsChanged;
}

/**
 * The map files of a build folder (or of `scope`) as a build, an ingest or `make summaries` writes
 * them, with the folder's own catalog and a progress line at most every few seconds.
 */
export async function writeBuildMapFiles(conn: DuckDBConnection, dataDir: string, scope: MapFileScope, say: (line: string) => void): Promise<MapFilesWritten> {
  const catalog = await loadCatalog(conn, dataDir);
  let last = Date.now();
  const written = await writeMapFiles(conn, catalog, scope, (done, total, rows) => {
    if (done < total && Date.now() - last < 5000) return;
    last = Date.now();
    say(`map files ${done}/${total}, ${(rows / 1e6).toFixed(1)}M yearly values`);
  });
  say(`map files: ${written.files} files, ${(written.rows / 1e6).toFixed(1)}M yearly values in ${written.seconds.toFixed(1)}s`);
  return written;
}
