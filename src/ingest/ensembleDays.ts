import { DATE, FLOAT } from '@duckdb/node-api';
import type { RowSource } from '../db/rowSource.js';
import type { ModelDays } from './syntheticDays.js';

/**
 * A cell's ensemble summary from days the build holds in memory: for each day of the years with
 * data, the avg, min and max of each variable over the models with a value. sql/build/ensemble_daily.sql
 * computes the same from a cell's file, for the ingest and `make summaries`; a test compares the
 * two. The averages add the models' values as doubles in the file's order (by model), as DuckDB's
 * avg does scanning the file, so that they round to the same floats.
 *
 * A day without any model's value is NaN here: ensemble_daily_given.sql makes it NULL.
 */

const DAY_MS = 86_400_000;
const VARIABLES = ['tasmax', 'tasmin', 'pr'] as const;

interface Stat {
  sum: Float64Array;
  min: Float32Array;
  max: Float32Array;
}

function countDays(count: Int32Array, date: Int32Array, first: number) {
  for (let r = 0; r < date.length; r++) count[date[r]! - first]!++;
}

/** One model's values of a variable into the sums and extremes of their days. */
function addValues({ sum, min, max }: Stat, values: Float32Array, date: Int32Array, first: number) {
  for (let r = 0; r < values.length; r++) {
    const i = date[r]! - first;
    const x = values[r]!;
    sum[i]! += x;
    if (x < min[i]!) min[i] = x;
    if (x > max[i]!) max[i] = x;
  }
}

/** The average of each day (as a float, as DuckDB's avg of FLOAT values is stored); NaN, with the extremes, on a day without a value. */
function averages(s: Stat, count: Int32Array): Float32Array {
  const avg = new Float32Array(count.length);
  for (let i = 0; i < count.length; i++) {
    if (count[i]) avg[i] = s.sum[i]! / count[i]!;
    else avg[i] = s.min[i] = s.max[i] = NaN;
  }
  return avg;
}

function consecutiveDates(first: number, n: number): Int32Array {
  const date = new Int32Array(n);
  for (let i = 0; i < n; i++) date[i] = first + i;
  return date;
}

/** The days of every model of one cell and scenario, in the files' model order. */
export function ensembleDays(days: ModelDays[]): RowSource {
  const withRows = days.filter((d) => d.date.length > 0);
  const dates = withRows.flatMap((d) => [d.date[0]!, d.date[d.date.length - 1]!]);
  // Every day of the years with data.
  const y0 = new Date(Math.min(...dates) * DAY_MS).getUTCFullYear();
  const y1 = new Date(Math.max(...dates) * DAY_MS).getUTCFullYear();
  const first = Date.UTC(y0, 0, 1) / DAY_MS;
  const n = withRows.length > 0 ? Date.UTC(y1 + 1, 0, 1) / DAY_MS - first : 0;
  const count = new Int32Array(n);
  const stats = VARIABLES.map(() => ({ sum: new Float64Array(n), min: new Float32Array(n).fill(Infinity), max: new Float32Array(n).fill(-Infinity) }));
  // The loops are functions of their own, each optimised once by V8: inside this function they
  // were recompiled with it cell after cell.
  for (const d of withRows) {
    countDays(count, d.date, first);
    for (let k = 0; k < VARIABLES.length; k++) addValues(stats[k]!, d[VARIABLES[k]!], d.date, first);
  }
  const columns = stats.flatMap((s) => [averages(s, count), s.min, s.max]);
  return {
    names: ['date', ...VARIABLES.flatMap((v) => [`${v}_avg`, `${v}_min`, `${v}_max`])],
    types: [DATE, ...columns.map(() => FLOAT)],
    batches: [[consecutiveDates(first, n), ...columns]],
  };
}
