import fs from 'node:fs';
import path from 'node:path';
import { INTEGER, LIST, listValue, type DuckDBConnection } from '@duckdb/node-api';
import { climateFile } from '../dataBuild/files.js';
import { readRows } from '../db/duckdb.js';
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

/** One scenario's map file of an indicator: its default plan, the cells to compute, its place. */
interface MapFileTarget {
  plan: IndicatorPlan;
  cells: number[];
  target: string;
  /** The file whose other cells' rows are kept; undefined to write the file anew. */
  kept: string | undefined;
}

/** An indicator's map files of one dataset, each scenario's: computed together, one statement for the cells of every scenario. */
interface MapFileTask {
  targets: MapFileTarget[];
}

/** The files of the build's datasets (or of `scope`): each scenario with cells' days, each indicator with a default plan. */
function mapFileTasks(catalog: Catalog, scope: MapFileScope): MapFileTask[] {
  const dataDir = catalog.dataDir;
  const only = scope.cells ? new Set(scope.cells) : undefined;
  const tasks: MapFileTask[] = [];
  for (const dataset of catalog.datasets.map((d) => d.name).filter((d) => scope.dataset === undefined || d === scope.dataset)) {
    const cellIds = [...catalog.mapCells.ids(dataset)];
    const byIndicator = new Map<string, MapFileTarget[]>();
    for (const scenario of builtScenarios(dataDir, dataset)) {
      if (!catalog.scenarioByName.has(scenario) || (scope.scenarios && !scope.scenarios.includes(scenario))) continue;
      const withDays = cellIds.filter((id) => climateFile(dataDir, dataset, scenario, id) !== undefined);
      const cells = only ? withDays.filter((id) => only.has(id)) : withDays;
      if (cells.length === 0) continue;
      for (const meta of INDICATORS) {
        const plan = defaultPlan(catalog, dataset, scenario, meta.name);
        if (!plan) continue;
        const target = mapFilePath(dataDir, dataset, scenario, meta.name, mapFileKey(plan.units, plan.vars));
        const targets = byIndicator.get(meta.name) ?? [];
        targets.push({ plan, cells, target, kept: only && fs.existsSync(target) ? target : undefined });
        byIndicator.set(meta.name, targets);
      }
    }
    for (const targets of byIndicator.values()) tasks.push({ targets });
  }
  return tasks;
}

/**
 * Writes the map files (mapFiles.ts) of the build's datasets, or of `scope`, each with the same
 * statement the indicator endpoints run for a cell's yearly values (period_models of the template,
 * many cells at a time, the cells of every scenario in one statement as warming levels read them),
 * so that a map read from them answers what the endpoints answer. One indicator at a time: two
 * connections at once took longer than one (53 against 42 s for the default build's 340 files),
 * the statements already using every thread. Each file is written beside its
 * place and renamed over it: a server reading the build meanwhile reads the old file or the new one.
 */
export async function writeMapFiles(conn: DuckDBConnection, catalog: Catalog, scope: MapFileScope = {}, progress: (done: number, total: number, rows: number) => void = () => {}): Promise<MapFilesWritten> {
  const started = Date.now();
  const tasks = mapFileTasks(catalog, scope);
  await conn.run(sqlFile('indicators/macros.sql'));
  let rows = 0;
  let files = 0;
  const total = tasks.reduce((n, t) => n + t.targets.length, 0);
  for (const task of tasks) {
    rows += await writeOne(conn, catalog, task);
    for (const { target, plan } of task.targets) removeOtherKeys(path.dirname(target), plan.meta.name, path.basename(target));
    files += task.targets.length;
    progress(files, total, rows);
  }
  return { files, rows, seconds: (Date.now() - started) / 1000 };
}

/** A file of an indicator's values for parameters that are no longer its default is never read: removed. */
function removeOtherKeys(dir: string, indicator: string, keep: string) {
  const ofIndicator = new RegExp(`^${indicator}-[0-9a-f]{12}\\.parquet$`);
  for (const name of fs.readdirSync(dir)) if (name !== keep && ofIndicator.test(name)) fs.rmSync(path.join(dir, name), { force: true });
}

/** Rows (cell and model series) of a map file's row groups: 256 cells of 32 models. */
const ROW_GROUP_ROWS = 8192;

/**
 * Cells a part of a map file holds: its rows sorted in memory (about 40 MB at 32 models and 150
 * years). It is also how many (scenario, cell) series one statement computes for an indicator
 * read from the monthly summaries (a series' months, not its days: 58k rows at 32 models and 150
 * years): planning the statement is most of a small group's time (19 of 25 ms), and a 37-cell
 * ingest's 24 indicators took 144 statements in groups of MOST_CELLS. One from the days keeps a
 * request's MOST_CELLS.
 */
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
  return `SELECT cell_id, model, (first_year + i)::SMALLINT AS year, value FROM (SELECT cell_id, model, first_year, unnest(vals) AS value, unnest(range(len(vals))) AS i FROM read_parquet(${sqlString(file)}) WHERE vals IS NOT NULL)
          UNION ALL SELECT cell_id, model, x.y AS year, x.v AS value FROM (SELECT cell_id, model, unnest(ascending) AS x FROM read_parquet(${sqlString(file)}) WHERE ascending IS NOT NULL)`;
}

/** A map file to write: its place, the file whose rows of other cells it keeps (if any), the cells computed afresh. */
export interface MapFileOutput {
  target: string;
  kept: string | undefined;
  /** The cells whose rows come from `fillPart`; their rows in `kept` are dropped. */
  fresh: number[];
}

/**
 * Map files in the files' layout (a row per cell and model: its values by year, or in ascending
 * order with their years; sorted by cell and model), in bounded memory. `parts` are ascending, disjoint
 * runs of cell ids (fresh and kept ones) of at most PART_CELLS; `fillPart(k, table)` puts part k's
 * fresh yearly rows into the empty temporary table `table` (t, cell_id, model, year, value; t the
 * index of the output they go to). Each output's part is one statement: the fresh rows grouped
 * into series, and the kept file's other cells of the part's range as they are; then the parts
 * are read in their order into the file (one part is the file). Each is written beside its place
 * and renamed over it.
 */
export async function writeMapFile(
  conn: DuckDBConnection,
  outputs: MapFileOutput[],
  parts: number[][],
  fillPart: (k: number, table: string) => Promise<void>,
): Promise<void> {
  const tmps = outputs.map(({ target }) => {
    fs.mkdirSync(path.dirname(target), { recursive: true });
    const tmp = `${target}.tmp-${process.pid}`;
    fs.rmSync(tmp, { recursive: true, force: true });
    fs.mkdirSync(tmp);
    return tmp;
  });
  try {
    const files: string[][] = outputs.map(() => []);
    await conn.run('CREATE OR REPLACE TEMP TABLE map_part (t INTEGER, cell_id INTEGER, model VARCHAR, year SMALLINT, value DOUBLE)');
    await conn.run('CREATE OR REPLACE TEMP TABLE map_fresh (t INTEGER, cell_id INTEGER)');
    await conn.run('INSERT INTO map_fresh SELECT unnest($t), unnest($ids)', {
      t: listValue(outputs.flatMap((o, t) => o.fresh.map(() => t))),
      ids: listValue(outputs.flatMap((o) => o.fresh)),
    } as never, { t: LIST(INTEGER), ids: LIST(INTEGER) });
    for (let k = 0; k < parts.length; k++) {
      if (k > 0) await conn.run('DELETE FROM map_part');
      await fillPart(k, 'map_part');
      for (let t = 0; t < outputs.length; t++) {
        const file = path.join(tmps[t]!, `part-${String(k).padStart(6, '0')}.parquet`);
        const kept = outputs[t]!.kept;
        // The paths are the build's own, not user input; COPY takes no parameter for them. A series
        // of whole numbers below 1e12 (counts: every partial sum of a few hundred of them is exact
        // in any order) is kept as its values of consecutive years, a year between its first and
        // last without a value (or a row: an ingested cell with some years only) a null, so that
        // each value stays at its year's place; any other as its non-null values in ascending
        // order with their years, the order its means add them in.
        await conn.run(
          `COPY (WITH series AS (
                   SELECT cell_id, model, min(year)::SMALLINT AS first_year, count(*) AS n, max(year) - min(year) + 1 AS span,
                          list(value ORDER BY year) AS vals, list(year::INTEGER ORDER BY year) AS years,
                          bool_and(value IS NULL OR (value = round(value) AND abs(value) < 1e12)) AS whole
                   FROM map_part WHERE t = $t GROUP BY cell_id, model)
                 SELECT cell_id, model, first_year,
                        CASE WHEN NOT whole THEN NULL WHEN n = span THEN vals ELSE list_transform(range(span), i -> vals[list_position(years, (first_year + i)::INTEGER)]) END AS vals,
                        CASE WHEN whole THEN NULL ELSE list_sort(list_filter(list_transform(vals, (v, i) -> {'v': v, 'y': years[i]::SMALLINT}), x -> x.v IS NOT NULL)) END AS ascending
                 FROM series
                 ${kept ? `UNION ALL
                 SELECT cell_id, model, first_year, vals, ascending FROM read_parquet(${sqlString(kept)})
                 WHERE cell_id BETWEEN $lo AND $hi AND cell_id NOT IN (SELECT cell_id FROM map_fresh WHERE t = $t)` : ''}
                 ORDER BY cell_id, model) TO ${sqlString(file)} (FORMAT parquet, COMPRESSION zstd, ROW_GROUP_SIZE ${ROW_GROUP_ROWS})`,
          (kept ? { t, lo: parts[k]![0]!, hi: parts[k]!.at(-1)! } : { t }) as never,
        );
        files[t]!.push(file);
      }
    }
    for (let t = 0; t < outputs.length; t++) {
      const whole = `${tmps[t]}/whole.parquet`;
      if (files[t]!.length === 1) {
        fs.renameSync(files[t]![0]!, whole);
      } else {
        const from =
          files[t]!.length > 0 ? `read_parquet([${files[t]!.map(sqlString).join(', ')}])` : '(SELECT NULL::INTEGER AS cell_id, NULL::VARCHAR AS model, NULL::SMALLINT AS first_year, NULL::DOUBLE[] AS vals, NULL::STRUCT(v DOUBLE, y SMALLINT)[] AS ascending LIMIT 0)';
        // With insertion order kept (DuckDB's default), the parts are read in the list's order: no sort of the whole.
        await conn.run(`COPY (SELECT cell_id, model, first_year, vals, ascending FROM ${from}) TO ${sqlString(whole)} (FORMAT parquet, COMPRESSION zstd, ROW_GROUP_SIZE ${ROW_GROUP_ROWS})`);
      }
      fs.renameSync(whole, outputs[t]!.target);
    }
  } finally {
    await conn.run('DROP TABLE IF EXISTS map_part');
    await conn.run('DROP TABLE IF EXISTS map_fresh');
    for (const tmp of tmps) fs.rmSync(tmp, { recursive: true, force: true });
  }
}

/** One indicator's files: the cells' yearly values computed (and earlier files' other cells' rows kept); returns the values computed. */
async function writeOne(conn: DuckDBConnection, catalog: Catalog, { targets }: MapFileTask): Promise<number> {
  const keptFiles = [...new Set(targets.flatMap((t) => (t.kept ? [t.kept] : [])))];
  // The cells of each file kept, in one statement: their ids set the parts, so that a part stays at PART_CELLS.
  const keptIds = new Map<string, number[]>(
    keptFiles.length === 0
      ? []
      : (await readRows<{ file: string; ids: number[] }>(conn, `SELECT filename AS file, list(DISTINCT cell_id::INTEGER) AS ids FROM read_parquet($files::VARCHAR[], filename = true) GROUP BY filename`, { files: listValue(keptFiles) })).map((r) => [r.file, r.ids]),
  );
  const parts = cellParts(targets.flatMap((t) => [...t.cells, ...(t.kept ? (keptIds.get(t.kept) ?? []) : [])]));
  let values = 0;
  await writeMapFile(
    conn,
    targets.map((t) => ({ target: t.target, kept: t.kept, fresh: t.cells })),
    parts,
    async (k, table) => {
      const ids = new Set(parts[k]!);
      const own = targets.flatMap((t, i) => t.cells.filter((id) => ids.has(id)).map((id) => ({ t: i, id })));
      const per = fromMonths(planRequest(targets[0]!.plan, [])) ? PART_CELLS : MOST_CELLS;
      for (let i = 0; i < own.length; i += per) values += await insertComputed(conn, catalog, targets, own.slice(i, i + per), table);
    },
  );
  return values;
}

/**
 * One statement's yearly values of some cells of some targets into `table`; returns how many. Each
 * (target, cell) is read as a cell of its own (its scenario's files), over every target's years:
 * each file holds only its own years.
 */
async function insertComputed(conn: DuckDBConnection, catalog: Catalog, targets: MapFileTarget[], cells: { t: number; id: number }[], table: string): Promise<number> {
  const group: { t: number; id: number; files: CellFiles }[] = [];
  for (const { t, id } of cells) {
    try {
      const plan = targets[t]!.plan;
      const files = planCellFiles(catalog, plan, id, 'this map cell', plan.scenario.name);
      if (files) group.push({ t, id, files });
    } catch (err) {
      // A cell without what the indicator needs (a historical file for its historic range) has no value there: its maps read the days.
      if (!(err instanceof ServiceError)) throw err;
    }
  }
  if (group.length === 0) return 0;
  const years = [...new Set(targets.flatMap((t) => t.plan.years))].sort((a, b) => a - b);
  // Every model of each file: a scenario's file holds the models the scenario's own plan asks for.
  const r = { ...planRequest(targets[0]!.plan, group.map((g) => g.files)), years, models: undefined };
  const sql = servedStatement(r.name, 'period_models', fromMonths(r));
  await setVariables(conn, r, sql);
  const inserted = await conn.run(
    `INSERT INTO ${table} SELECT t, cell_id, model, year, value FROM (
       SELECT list_extract($ts, cell + 1) AS t, list_extract($ids, cell + 1) AS cell_id, model, unnest(ids) AS year, unnest(vals) AS value FROM (${sql})
     ) WHERE year > 0`,
    { ts: listValue(group.map((g) => g.t)), ids: listValue(group.map((g) => g.id)) },
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
  say(`map files: ${written.files} files, ${(written.rows / 1e6).toFixed(1)}M yearly values computed in ${written.seconds.toFixed(1)}s`);
  return written;
}
