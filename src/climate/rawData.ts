import { listValue } from '@duckdb/node-api';
import type { QueryPool } from '../db/queryPool.js';
import { sqlFile } from '../db/sqlFiles.js';
import { float32Text } from './numbers.js';
import type { Variable } from './params.js';

export const RAW_AGGS = ['avg', 'min', 'max'] as const;
export type RawAgg = (typeof RAW_AGGS)[number];

export interface RawDataQuery {
  file: string;
  models: string[];
  years: number[];
  variables: Variable[];
  agg: RawAgg;
}

export interface DailyColumns {
  year: number[];
  slot: number[];
  values: Map<Variable, (number | null)[]>;
}

/** Model-aggregated daily values, one row per (year, day slot) that has data. */
export async function queryRawData(pool: QueryPool, q: RawDataQuery): Promise<DailyColumns> {
  // Identifiers come from the allow-lists RAW_AGGS and VARIABLES only.
  const columns = q.variables.map((v) => `${q.agg}(${v})::FLOAT AS ${v}`).join(', ');
  const sql = sqlFile('climate/raw_daily.sql').replace('{{columns}}', columns);
  const cols = await pool.run(async (conn) => {
    const reader = await conn.runAndReadAll(sql, { file: q.file, models: listValue(q.models), years: listValue(q.years) });
    return reader.getColumnsJS() as unknown[][];
  });
  return {
    year: cols[0] as number[],
    slot: cols[1] as number[],
    values: new Map(q.variables.map((v, i) => [v, cols[i + 2] as (number | null)[]])),
  };
}

/** `{"<year>": {"<variable>": [366 values]}}`: null where no model has a value, and at slot 365 of non-leap years. */
export function dailyDataJson(cols: DailyColumns, variables: Variable[]): string {
  const parts: string[] = [];
  let i = 0;
  const n = cols.year.length;
  while (i < n) {
    const year = cols.year[i]!;
    const slots = variables.map(() => new Array<string>(366).fill('null'));
    for (; i < n && cols.year[i] === year; i++) {
      const slot = cols.slot[i]!;
      variables.forEach((v, k) => {
        const value = cols.values.get(v)![i];
        if (value !== null && value !== undefined) slots[k]![slot] = float32Text(value);
      });
    }
    parts.push(`"${year}":{${variables.map((v, k) => `"${v}":[${slots[k]!.join(',')}]`).join(',')}}`);
  }
  return `{${parts.join(',')}}`;
}
