import { calendarOfDays } from './dayCalendar.js';
import type { NormRow, SummaryRange } from './summaries.js';
import type { ModelDays } from './syntheticDays.js';

/**
 * A cell's daily climatology from its historical days in memory, as sql/build/historic_norms.sql
 * computes it from the cell's file: for each day slot (day of year - 1) that has a day, the mean
 * tasmax of every model and year of each range (null without a day in it). The build has the days
 * in memory: reading the file back for this cost a twentieth of a cell's time.
 *
 * The same to the bit as the query's favg, and so are the heat-wave flags that compare with it: a
 * float tasmax above 128 K is a multiple of 2^-16, so a double holds the sum of a slot's few
 * thousand values exactly, in any order, compensated (Kahan's, as favg adds) or not.
 */

const SLOTS = 366;

/** Each day's slot, and the ranges its year is in as a bit set (bit h: ranges[h]), for the days from `first` on. */
function dayKeys(first: number, span: number, ranges: SummaryRange[]) {
  const { year, slot } = calendarOfDays(first, span);
  const inRanges = new Uint8Array(span);
  for (let i = 0; i < span; i++) inRanges[i] = rangeBits(year[i]!, ranges);
  return { slot, inRanges };
}

const rangeBits = (year: number, ranges: SummaryRange[]) => ranges.reduce((bits, r, h) => (year >= r.start_year && year <= r.end_year ? bits | (1 << h) : bits), 0);

/**
 * One model's tasmax into the sums and counts of each (range, slot), index h * SLOTS + slot, and
 * the slots that have a day of any year into `present` (the query's groups).
 */
function addModel(sum: Float64Array, count: Float64Array, present: Uint8Array, d: ModelDays, first: number, slot: Int16Array, inRanges: Uint8Array, ranges: number) {
  const { date, tasmax } = d;
  for (let r = 0; r < date.length; r++) {
    const x = tasmax[r]!;
    // A missing value (NaN) is no day, as the query's WHERE tasmax IS NOT NULL.
    if (x !== x) continue;
    const i = date[r]! - first;
    present[slot[i]!] = 1;
    const bits = inRanges[i]!;
    for (let h = 0; h < ranges; h++) {
      if ((bits & (1 << h)) === 0) continue;
      const j = h * SLOTS + slot[i]!;
      sum[j]! += x;
      count[j]!++;
    }
  }
}

/** The norms of the historical days `days` for the dataset's `ranges` (at most four, in the catalog's order). */
export function historicNorms(days: ModelDays[], ranges: SummaryRange[]): NormRow[] {
  const withRows = days.filter((d) => d.date.length > 0);
  if (withRows.length === 0) return [];
  const first = Math.min(...withRows.map((d) => d.date[0]!));
  const span = Math.max(...withRows.map((d) => d.date[d.date.length - 1]!)) - first + 1;
  const { slot, inRanges } = dayKeys(first, span, ranges);
  const sum = new Float64Array(ranges.length * SLOTS);
  const count = new Float64Array(ranges.length * SLOTS);
  const present = new Uint8Array(SLOTS);
  for (const d of withRows) addModel(sum, count, present, d, first, slot, inRanges, ranges.length);
  const norm = (h: number, s: number) => {
    if (h >= ranges.length) return null;
    const j = h * SLOTS + s;
    const n = count[j]!;
    return n === 0 ? null : sum[j]! / n;
  };
  const rows: NormRow[] = [];
  for (let s = 0; s < SLOTS; s++) if (present[s]) rows.push({ slot: s, n1: norm(0, s), n2: norm(1, s), n3: norm(2, s), n4: norm(3, s) });
  return rows;
}
