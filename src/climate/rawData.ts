import { listValue, type DuckDBResultReader } from '@duckdb/node-api';
import type { QueryPool } from '../db/queryPool.js';
import { sqlFile } from '../db/sqlFiles.js';
import { missingVariableColumn } from './missingVariable.js';
import type { RawAgg, Variable } from './params.js';

export interface RawDataQuery {
  /**
   * Where the values come from: the cell's days, reduced across `models` per request, or, when a
   * request asks for every model of the dataset, the cell's ensemble summary, which holds the same
   * reductions per day already (a read of 35,000 rows instead of a reduction of 700,000).
   */
  source: { kind: 'days'; file: string; models: string[] } | { kind: 'ensemble'; file: string };
  years: number[];
  variables: Variable[];
  agg: RawAgg;
}

/** One row per (year, day slot) that has data; values as float32 numbers, or as their shortest decimal text. */
export interface DailyColumns<V = number> {
  year: number[];
  slot: number[];
  values: Map<Variable, (V | null)[]>;
}

/** The SELECT list, from the allow-lists RAW_AGGS and VARIABLES only. */
function columns(q: RawDataQuery, text: boolean): string {
  return q.variables
    .map((v) => {
      const value = q.source.kind === 'ensemble' ? `${v}_${q.agg}` : `${q.agg}(${v})::FLOAT`;
      // DuckDB prints a FLOAT as the shortest decimal that reads back as the same float32, in C++
      // and on DuckDB's threads; formatting 100,000 values in JavaScript took longer than the query.
      return text ? `CASE WHEN isfinite(${value}) THEN CAST(${value} AS VARCHAR) END AS ${v}` : `${value} AS ${v}`;
    })
    .join(', ');
}

/** A result's columns; a result without rows (a model the cell's file lacks) has none, so empty ones. */
function columnsOf(reader: DuckDBResultReader, n: number): unknown[][] {
  const cols = reader.getColumnsJS() as unknown[][];
  return Array.from({ length: n }, (_, i) => cols[i] ?? []);
}

async function run<V>(pool: QueryPool, q: RawDataQuery, text: boolean): Promise<DailyColumns<V>> {
  const template = q.source.kind === 'ensemble' ? 'climate/raw_ensemble.sql' : 'climate/raw_daily.sql';
  const sql = sqlFile(template).replace('{{columns}}', columns(q, text));
  const params: Record<string, unknown> = { file: q.source.file, years: listValue(q.years) };
  if (q.source.kind === 'days') params.models = listValue(q.source.models);
  const cols = await pool.run(async (conn) => columnsOf(await conn.runAndReadAll(sql, params as never), 2 + q.variables.length)).catch(missingVariableColumn);
  return {
    year: cols[0] as number[],
    slot: cols[1] as number[],
    values: new Map(q.variables.map((v, i) => [v, cols[i + 2] as (V | null)[]])),
  };
}

/** Model-aggregated daily values as float32 numbers. */
export function queryRawData(pool: QueryPool, q: RawDataQuery): Promise<DailyColumns> {
  return run<number>(pool, q, false);
}

/** Model-aggregated daily values as JSON number text. */
export function queryRawDataText(pool: QueryPool, q: RawDataQuery): Promise<DailyColumns<string>> {
  return run<string>(pool, q, true);
}

/**
 * The members of the JSON `data` of an every-model request, `"<year>": {"<variable>": [366 values]}`
 * each, put together from the cell's ensemble_json summary, which holds each year's arrays as text
 * already. `file` is that summary; the text is the same as dailyDataJson prints (tested).
 */
export async function queryEnsembleJson(pool: QueryPool, q: { file: string; years: number[]; variables: Variable[]; agg: RawAgg }): Promise<{ year: number; member: string }[]> {
  // Column names from the allow-lists VARIABLES and RAW_AGGS only.
  const sql = sqlFile('climate/raw_ensemble_json.sql').replace('{{columns}}', q.variables.map((v) => `${v}_${q.agg} AS ${v}`).join(', '));
  const cols = await pool.run(async (conn) => columnsOf(await conn.runAndReadAll(sql, { file: q.file, years: listValue(q.years) } as never), 1 + q.variables.length));
  const years = cols[0] as number[];
  return years.map((year, i) => ({ year, member: `"${year}":{${q.variables.map((v, k) => `"${v}":${(cols[k + 1] as string[])[i]}`).join(',')}}` }));
}

/** The members of `{"<year>": {"<variable>": [366 values]}}`: null where no model has a value, and at slot 365 of non-leap years. */
export function dailyDataJson(cols: DailyColumns<string>, variables: Variable[]): string[] {
  const parts: string[] = [];
  let i = 0;
  const n = cols.year.length;
  const columns = variables.map((v) => cols.values.get(v)!);
  while (i < n) {
    const year = cols.year[i]!;
    const slots = variables.map(() => new Array<string>(366).fill('null'));
    for (; i < n && cols.year[i] === year; i++) {
      const slot = cols.slot[i]!;
      for (let k = 0; k < columns.length; k++) {
        const value = columns[k]![i];
        if (value !== null && value !== undefined) slots[k]![slot] = value;
      }
    }
    parts.push(`"${year}":{${variables.map((v, k) => `"${v}":[${slots[k]!.join(',')}]`).join(',')}}`);
  }
  return parts;
}
