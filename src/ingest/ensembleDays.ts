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
  for (const d of withRows) {
    for (let r = 0; r < d.date.length; r++) count[d.date[r]! - first]!++;
    VARIABLES.forEach((v, k) => {
      const { sum, min, max } = stats[k]!;
      const values = d[v];
      for (let r = 0; r < values.length; r++) {
        const i = d.date[r]! - first;
        const x = values[r]!;
        sum[i]! += x;
        if (x < min[i]!) min[i] = x;
        if (x > max[i]!) max[i] = x;
      }
    });
  }
  // Loops, not TypedArray.from with a mapping function, which cost more than the sums.
  const date = new Int32Array(n);
  for (let i = 0; i < n; i++) date[i] = first + i;
  const columns = stats.flatMap((s) => {
    const avg = new Float32Array(n);
    for (let i = 0; i < n; i++) {
      if (count[i]) avg[i] = s.sum[i]! / count[i]!;
      else avg[i] = s.min[i] = s.max[i] = NaN;
    }
    return [avg, s.min, s.max];
  });
  return {
    names: ['date', ...VARIABLES.flatMap((v) => [`${v}_avg`, `${v}_min`, `${v}_max`])],
    types: [DATE, ...columns.map(() => FLOAT)],
    batches: [[date, ...columns]],
  };
}
