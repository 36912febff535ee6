import { EVENT_SERIES } from '../dataBuild/summaryFormat.js';
import { calendarOfDays } from './dayCalendar.js';
import { quantileCont } from './orderStatistics.js';
import type { SummaryRange } from './summaries.js';
import type { ModelDays } from './syntheticDays.js';

/**
 * The thresholds of the extreme events at their default percentiles (EVENT_SERIES, in its order)
 * over one historic range: null where no model has a day in the range.
 */
export type EventThresholds = (number | null)[];

/** One model's values of `variable` in the range's years, into `out` (NaN: no value; pr: above 0); returns how many. */
function rangeValues(out: Float64Array, d: ModelDays, variable: 'tasmax' | 'tasmin' | 'pr', year: Int32Array, first: number, r: SummaryRange): number {
  const values = d[variable];
  let n = 0;
  for (let i = 0; i < values.length; i++) {
    const y = year[d.date[i]! - first]!;
    const v = values[i]!;
    if (y >= r.start_year && y <= r.end_year && v === v && (variable !== 'pr' || v > 0)) out[n++] = v;
  }
  return n;
}

/**
 * From a cell's historical days in memory, per range of `ranges` (the dataset's, in the catalog's
 * order), the thresholds as historic_percentiles in sql/indicators/macros.sql takes them from the
 * cell's file (sql/build/historic_thresholds.sql does, for the ingest): each model's percentile of
 * the range's days by quantile_cont, then their mean in model name order as favg takes it
 * (Kahan's sum), to the bit. `models`: the names of the days' model indexes.
 */
export function historicThresholds(models: string[], days: ModelDays[], ranges: SummaryRange[]): EventThresholds[] {
  const withRows = days.filter((d) => d.date.length > 0).sort((a, b) => (models[a.model]! < models[b.model]! ? -1 : 1));
  if (withRows.length === 0) return ranges.map(() => EVENT_SERIES.map(() => null));
  const first = Math.min(...withRows.map((d) => d.date[0]!));
  const span = Math.max(...withRows.map((d) => d.date[d.date.length - 1]!)) - first + 1;
  const { year } = calendarOfDays(first, span);
  const scratch = new Float64Array(Math.max(...withRows.map((d) => d.date.length)));
  return ranges.map((r) =>
    EVENT_SERIES.map((e) => {
      let sum = 0;
      let err = 0;
      let count = 0;
      for (const d of withRows) {
        const n = rangeValues(scratch, d, e.variable, year, first, r);
        if (n === 0) continue;
        // DuckDB's fsum step, as favg adds.
        const diff = quantileCont(scratch, n, e.percentile / 100) - err;
        const next = sum + diff;
        err = next - sum - diff;
        sum = next;
        count++;
      }
      // favg's result: the sum and its running error each divided by the count (not their difference).
      return count === 0 ? null : sum / count + err / count;
    }),
  );
}
