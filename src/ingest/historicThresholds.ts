import { EVENT_SERIES } from '../dataBuild/summaryFormat.js';
import { calendarOfDays } from './dayCalendar.js';
import { quantileCont } from './orderStatistics.js';
import type { EventThresholds, SummaryRange } from './summaries.js';
import type { ModelDays } from './syntheticDays.js';

/**
 * One model's values of tasmax, tasmin and pr (EVENT_SERIES's variables) in the range's years,
 * into `out` (NaN: no value; pr: above 0), in one pass; returns how many of each.
 */
function rangeValues(out: Float64Array[], d: ModelDays, year: Int32Array, first: number, r: SummaryRange): number[] {
  const { tasmax, tasmin, pr, date } = d;
  const [x, n, p] = out as [Float64Array, Float64Array, Float64Array];
  let nx = 0;
  let nn = 0;
  let np = 0;
  for (let i = 0; i < date.length; i++) {
    const y = year[date[i]! - first]!;
    if (y < r.start_year || y > r.end_year) continue;
    const vx = tasmax[i]!;
    const vn = tasmin[i]!;
    const vp = pr[i]!;
    if (vx === vx) x[nx++] = vx;
    if (vn === vn) n[nn++] = vn;
    if (vp > 0) p[np++] = vp;
  }
  return [nx, nn, np];
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
  const length = Math.max(...withRows.map((d) => d.date.length));
  const scratch = EVENT_SERIES.map(() => new Float64Array(length));
  return ranges.map((r) => {
    // Per series, favg's state over the models in name order: the sum, its running error, the count.
    const sum = EVENT_SERIES.map(() => 0);
    const err = EVENT_SERIES.map(() => 0);
    const count = EVENT_SERIES.map(() => 0);
    for (const d of withRows) {
      const n = rangeValues(scratch, d, year, first, r);
      EVENT_SERIES.forEach((e, s) => {
        if (n[s] === 0) return;
        // DuckDB's fsum step, as favg adds.
        const diff = quantileCont(scratch[s]!, n[s]!, e.percentile / 100) - err[s]!;
        const next = sum[s]! + diff;
        err[s] = next - sum[s]! - diff;
        sum[s] = next;
        count[s]!++;
      });
    }
    // favg's result: the sum and its running error each divided by the count (not their difference).
    return EVENT_SERIES.map((_, s) => (count[s] === 0 ? null : sum[s]! / count[s]! + err[s]! / count[s]!));
  });
}
