import { DOUBLE, INTEGER, listValue, VARCHAR, type DuckDBConnection, type DuckDBResultReader, type DuckDBPreparedStatement, type DuckDBType, type DuckDBValue } from '@duckdb/node-api';
import type { QueryPool } from '../db/queryPool.js';
import { sqlFile } from '../db/sqlFiles.js';
import { EVENT_SERIES } from '../dataBuild/summaryFormat.js';
import { missingVariableColumn } from '../climate/missingVariable.js';
import { sortedValues, statistic } from './acrossModels.js';
import { changedPeriods, type ModelRows } from './periodChanges.js';
import type { IndicatorVariables, Span, TimeAggregation } from './params.js';

/** One map cell's files as a template reads them. */
export interface CellFiles {
  file: string;
  /** The cell's monthly summaries (sql/build/monthly_summary.sql). */
  monthlyFile: string;
  /** The cell's historical days, for the indicators with a historic range. */
  historicFile?: string;
  /** relative_to: the cell's historical files. */
  baselineFile?: string;
  baselineMonthlyFile?: string;
}

/**
 * A template's request for one or more map cells: one statement answers them all (binding is
 * most of a small query's time), each cell's rows apart.
 */
export interface IndicatorRequest extends IndicatorVariables {
  name: string;
  /** The cells, in the order of the answer's lists, each with the same kinds of files (a historic file, a baseline's). */
  cells: CellFiles[];
  /** The chosen models; undefined for every model of the dataset. */
  models?: string[];
  years: number[];
  timeAggregation: TimeAggregation;
  spans: Span[];
  aggs: string[];
  units: string;
  /** relative_to: the baseline's years (the files are each cell's). */
  baseline?: { years: number[]; change: 'absolute' | 'percent' };
  /** Multi-year windows (decadal, window) over yearly values; timeAggregation is then yearly. */
  windows?: Span[];
}

export interface PeriodStats {
  period: string;
  stats: [string, number | null][];
  /** At warming levels: the level (then `period` is the month, quarter or span of the year, '' for years). */
  level?: string;
  /** At warming levels: how many models' values the statistics are taken over. */
  modelCount?: number;
}

/**
 * Cells per statement at most (QueryPool.groups): 46 cells' frost_days took 23 ms in one statement
 * against 98 ms one by one; the cap bounds the rows one statement holds.
 */
export const MOST_CELLS = 32;

/** The session variables every template reads, as in the DuckDB CLI session of docs/indicators.md. */
function variables(r: IndicatorRequest): [string, DuckDBValue, DuckDBType][] {
  const files = (of: (c: CellFiles) => string | undefined) => (of(r.cells[0]!) === undefined ? null : listValue(r.cells.map((c) => of(c)!)));
  return [
    ['file', files((c) => c.file), VARCHAR],
    ['monthly_file', files((c) => c.monthlyFile), VARCHAR],
    ['models', r.models ? listValue(r.models) : null, VARCHAR],
    ['years', listValue(r.years), INTEGER],
    ['time_aggregation', r.timeAggregation, VARCHAR],
    ['aggs', listValue(r.aggs), VARCHAR],
    ['units', r.units, VARCHAR],
    ['threshold', r.threshold ?? null, DOUBLE],
    ['comparator', r.comparator ?? null, VARCHAR],
    ['basetemp', r.basetemp ?? null, DOUBLE],
    ['percentile', r.percentile ?? null, INTEGER],
    ['n', r.n ?? null, INTEGER],
    ['historic_file', files((c) => c.historicFile), VARCHAR],
    ['historic_start', r.historicRange?.start_year ?? null, INTEGER],
    ['historic_end', r.historicRange?.end_year ?? null, INTEGER],
    ['baseline_file', r.baseline ? files((c) => c.baselineFile) : null, VARCHAR],
    ['baseline_monthly_file', r.baseline ? files((c) => c.baselineMonthlyFile) : null, VARCHAR],
    ['baseline_years', r.baseline ? listValue(r.baseline.years) : null, INTEGER],
    ['change', r.baseline?.change ?? null, VARCHAR],
  ];
}

/** What each pooled connection's variables hold now: a SET costs ~0.6 ms, so unchanged ones are skipped. */
const current = new WeakMap<DuckDBConnection, Map<string, string>>();
/** Each connection's prepared SET statements: binding and running one again costs 0.12 ms, preparing it 0.44. */
const prepared = new WeakMap<DuckDBConnection, Map<string, DuckDBPreparedStatement>>();

async function preparedSet(conn: DuckDBConnection, sql: string): Promise<DuckDBPreparedStatement> {
  let statements = prepared.get(conn);
  if (!statements) prepared.set(conn, (statements = new Map()));
  let statement = statements.get(sql);
  if (!statement) statements.set(sql, (statement = await conn.prepare(sql)));
  return statement;
}

/** The variables a piece of SQL names itself (inside a string literal too, where the quotes are doubled). */
function namedVariables(sql: string): string[] {
  return [...sql.matchAll(/getvariable\('{1,2}(\w+)'{1,2}\)/g)].map((m) => m[1]!);
}

/** Whether SQL text calls a macro (whole_months_per_model( does not call months_per_model). */
const calls = (sql: string, macro: string) => new RegExp(`(?<![\\w])${macro}\\(`).test(sql);

/**
 * The variables each macro of macros.sql reads, itself or through the macros it calls:
 * month_cutting_days names request_days inside its query() text, which names the days' variables
 * inside its own, not through their arguments.
 */
let macroVariables: Map<string, string[]> | undefined;
function variablesOfMacros(): Map<string, string[]> {
  if (!macroVariables) {
    const blocks = sqlFile('indicators/macros.sql').split(/^CREATE OR REPLACE MACRO /m).slice(1);
    const bodies = new Map(blocks.map((block) => [block.slice(0, block.indexOf('(')), block.slice(block.indexOf('('))]));
    const reads = (name: string, seen: Set<string>): string[] => {
      seen.add(name);
      const body = bodies.get(name)!;
      const called = [...bodies.keys()].filter((m) => !seen.has(m) && calls(body, m));
      return [...new Set([...namedVariables(body), ...called.flatMap((m) => reads(m, seen))])];
    };
    macroVariables = new Map([...bodies.keys()].map((name) => [name, reads(name, new Set())]));
  }
  return macroVariables;
}

/**
 * The variables a template reads, itself or through the macros it calls: a SET it does not need is
 * time lost (file names change per cell).
 */
const used = new Map<string, Set<string>>();
export function variablesOf(template: string): Set<string> {
  let names = used.get(template);
  if (!names) {
    names = new Set(namedVariables(template));
    for (const [macro, reads] of variablesOfMacros()) if (reads.length && calls(template, macro)) for (const name of reads) names.add(name);
    used.set(template, names);
  }
  return names;
}

/** The variables that hold lists, typed as such even when NULL. */
const LISTS = new Set(['models', 'years', 'aggs', 'baseline_years', 'file', 'monthly_file', 'historic_file', 'baseline_file', 'baseline_monthly_file']);

export async function setVariables(conn: DuckDBConnection, r: IndicatorRequest, template: string) {
  const wanted = variablesOf(template);
  let held = current.get(conn);
  if (!held) current.set(conn, (held = new Map()));
  const set = async (name: string, sql: string, value: DuckDBValue, key: string) => {
    if (held.get(name) === key) return;
    held.delete(name);
    const statement = await preparedSet(conn, sql);
    statement.bind([value]);
    await statement.run();
    held.set(name, key);
  };
  for (const [name, value, type] of variables(r)) {
    if (!wanted.has(name)) continue;
    // The name is from the fixed list above; the value is always a bound parameter.
    const items = (value as { items?: unknown[] } | null)?.items;
    const cast = Array.isArray(items) || LISTS.has(name) ? `::${type.toString()}[]` : `::${type.toString()}`;
    await set(name, `SET VARIABLE ${name} = $1${cast}`, value, JSON.stringify(items ?? value));
  }
  // Spans and windows are lists of structs, which are simplest to bind as JSON text.
  if (wanted.has('spans')) {
    const spans = JSON.stringify(r.spans);
    await set('spans', 'SET VARIABLE spans = $1::JSON::STRUCT(s INTEGER, e INTEGER)[]', spans, spans);
  }
  if (wanted.has('windows')) {
    const windows = r.windows ? JSON.stringify(r.windows) : null;
    await set('windows', 'SET VARIABLE windows = $1::JSON::STRUCT(s INTEGER, e INTEGER)[]', windows, String(windows));
  }
}

/**
 * The statement the service runs for a template: the template with its last step, period_stats,
 * read as period_values (per period, the models' values as a list) or, with windows or a baseline,
 * as period_models (each model's value per period, the baseline's periods included). The service
 * takes the windows, the changes, the periods' keys (periodChanges.ts) and the statistics across models
 * (acrossModels.ts) itself: binding and running the macros' lambdas, joins and windows cost
 * 1.5-4 ms of a request. The template as written (and run in the DuckDB CLI) takes them in SQL.
 * For whole-month periods (`wholeMonths`), months_per_model, nday_months_per_model, spells_per_model,
 * percentile_events and count_days_per_model are read as their whole-month branch alone
 * (whole_months_per_model, whole_month_spells_per_model, ...), whose days branch would be empty.
 */
const served = new Map<string, string>();
export function servedStatement(name: string, last: 'period_values' | 'period_models' = 'period_values', wholeMonths = false, file = `indicators/${name}.sql`): string {
  const key = `${file}|${last}|${wholeMonths}`;
  let sql = served.get(key);
  if (!sql) {
    const template = sqlFile(file);
    const step = "FROM period_stats('per_model')";
    if (!template.trimEnd().endsWith(step)) throw new Error(`sql/${file} must end with ${step}, the step the service replaces.`);
    sql = template.slice(0, template.lastIndexOf(step)) + `FROM ${last}('per_model')`;
    if (wholeMonths) sql = wholeMonthBranches(sql);
    served.set(key, sql);
  }
  return sql;
}

/** A statement for whole-month periods: months_per_model (and its n-day form), spells_per_model, percentile_events and count_days_per_model read as their whole-month branch alone. */
export function wholeMonthBranches(sql: string): string {
  return sql.replace(/(?<!\w)(months_per_model|nday_months_per_model|spells_per_model|percentile_events|count_days_per_model)\(/g, (_, macro: string) => `${WHOLE_MONTH_BRANCH[macro] ?? 'whole_months_per_model'}(`);
}

const WHOLE_MONTH_BRANCH: Record<string, string> = {
  spells_per_model: 'whole_month_spells_per_model',
  percentile_events: 'whole_month_percentile_events',
  count_days_per_model: 'whole_month_count_days_per_model',
};

/** Whether a time aggregation is made of whole months (whole_months in macros.sql). */
export const isWholeMonths = (agg: TimeAggregation) => agg === 'yearly' || agg === 'quarterly' || agg === 'monthly';

/** The degree days' base the monthly summaries hold: the default 65 F in K (summarised_agg in the templates). */
export const SUMMARISED_BASETEMP = 291.4833333333334;

/** The percentile whose yearly values the monthly summaries hold: the percentile indicators' default (summarised_agg in their templates). */
export const SUMMARISED_PERCENTILE = 50;

/**
 * The indicators with a percentile whose values the monthly summaries hold at their default
 * percentile (summarised_agg in their templates): the percentile indicators' years (a year's
 * median), and the extreme events' whole months (the month's events over each historic range's
 * threshold, EVENT_SERIES in src/dataBuild/summaryFormat.ts).
 */
const SUMMARISED_PERCENTILES = new Map<string, { percentile: number; years: boolean }>([
  ['percentile_high_temperature', { percentile: SUMMARISED_PERCENTILE, years: true }],
  ['percentile_low_temperature', { percentile: SUMMARISED_PERCENTILE, years: true }],
  ['percentile_precipitation', { percentile: SUMMARISED_PERCENTILE, years: true }],
  ...EVENT_SERIES.map((e) => [`${e.series}_events`, { percentile: e.percentile, years: false }] as const),
]);

/**
 * Whether the request's periods are read from the monthly summaries alone (servedStatement's
 * wholeMonths): whole months, and no parameter the summaries lack (a degree-day base of its own,
 * another percentile than the one they were taken at; for the percentile indicators, periods
 * other than years).
 */
export const fromMonths = (r: Pick<IndicatorRequest, 'name' | 'timeAggregation' | 'basetemp' | 'percentile'>) => {
  const held = SUMMARISED_PERCENTILES.get(r.name);
  return (
    isWholeMonths(r.timeAggregation) &&
    (r.basetemp === undefined || r.basetemp === SUMMARISED_BASETEMP) &&
    (!held || (r.percentile === held.percentile && (!held.years || r.timeAggregation === 'yearly')))
  );
};

/** Which last step a request's statement has (servedStatement). */
export function lastStep(r: Pick<IndicatorRequest, 'windows' | 'baseline'>): 'period_values' | 'period_models' {
  return r.windows || r.baseline ? 'period_models' : 'period_values';
}

/** The statistics across models of each period's values. */
function statsOf(periods: { period: string; values: (number | null)[] }[], aggs: string[]): PeriodStats[] {
  const stats = aggs.map((name) => [name, statistic(name)] as const);
  return periods.map(({ period, values }) => {
    const sorted = sortedValues(values);
    return { period, stats: stats.map(([name, stat]) => [name, stat(sorted)]) };
  });
}

/**
 * Per cell (by its position in the request's list of `cells` cells) and period, the requested
 * statistics across models from the rows of the statement lastStep names: period_values's
 * (cell, period, vals) or period_models's (cell, model, ids, vals).
 */
export function periodStats(reader: DuckDBResultReader, r: Pick<IndicatorRequest, 'aggs' | 'windows' | 'baseline' | 'timeAggregation'>, cells: number): PeriodStats[][] {
  if (lastStep(r) === 'period_values') {
    // No columns at all when there are no rows.
    const [cellOf = [], periods = [], lists = []] = reader.getColumnsJS() as [number[]?, string[]?, (number | null)[][]?];
    const byCell = Array.from({ length: cells }, (): { period: string; values: (number | null)[] }[] => []);
    periods.forEach((period, i) => byCell[cellOf[i]!]!.push({ period, values: lists[i]! }));
    return byCell.map((periodValues) => statsOf(periodValues, r.aggs));
  }
  return modelRowsOf(reader, cells).map((rows) => statsOf(changedPeriods(rows, r.timeAggregation, r.windows, r.baseline?.change), r.aggs));
}

/** Per cell, period_models's rows (cell, model, ids, vals) as each model's period ids and values. */
function modelRowsOf(reader: DuckDBResultReader, cells: number): ModelRows[] {
  const [cellOf = [], models = [], ids = [], vals = []] = reader.getColumnsJS() as [number[]?, string[]?, number[][]?, (number | null)[][]?];
  const byCell = Array.from({ length: cells }, (): ModelRows => ({ models: [], ids: [], vals: [] }));
  models.forEach((model, i) => {
    const rows = byCell[cellOf[i]!]!;
    rows.models.push(model);
    rows.ids.push(ids[i]!);
    rows.vals.push(vals[i]!);
  });
  return byCell;
}

/**
 * Runs sql/indicators/<name>.sql for the request's cells in one statement, ending with
 * period_models: per cell, each model's period ids and values as they are, the baseline's years
 * (negative ids) too: what warming levels reduce over each model's own window, and what return
 * levels fit.
 */
export async function queryModelRows(pool: QueryPool, r: IndicatorRequest): Promise<ModelRows[]> {
  const sql = servedStatement(r.name, 'period_models', fromMonths(r));
  return pool
    .run(async (conn) => {
      await setVariables(conn, r, sql);
      return modelRowsOf(await conn.runAndReadAll(sql), r.cells.length);
    })
    .catch(missingVariableColumn);
}

/** Runs sql/indicators/<name>.sql for the request's cells in one statement: per cell and period, the requested statistics across models. */
export async function queryIndicator(pool: QueryPool, r: IndicatorRequest): Promise<PeriodStats[][]> {
  const sql = servedStatement(r.name, lastStep(r), fromMonths(r));
  return pool
    .run(async (conn) => {
      await setVariables(conn, r, sql);
      return periodStats(await conn.runAndReadAll(sql), r, r.cells.length);
    })
    .catch(missingVariableColumn);
}
