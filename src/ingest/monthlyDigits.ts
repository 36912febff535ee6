import { BIGINT, DOUBLE, ENUM, INTEGER } from '@duckdb/node-api';
import type { RowSource } from '../db/rowSource.js';
import type { NormRow } from './summaries.js';
import type { ModelDays } from './syntheticDays.js';

/**
 * The first step of a cell's monthly summaries, from days the build holds in memory: per model,
 * year and month, the frost days, the highest tasmax, the lowest tasmin, and the flags of each run
 * series as base-4 digits at their day of the month (a false day 1, a true day 2: flag_digit in
 * sql/indicators/macros.sql). sql/build/monthly_digits.sql computes the same from a cell's file, for
 * the ingest and `make summaries`; a test compares the two on every dataset's calendars. Here it
 * costs a twentieth of that query, which was most of the summaries' time in the default build.
 *
 * A month's digits use up to 62 bits; they are kept as two 32-bit halves and handed to DuckDB as the
 * BIGINTs they make. A series without any flag in the month is 0 (the SQL makes it NULL for the heat
 * series: monthly_digits_given.sql does the same).
 */

const DAY_MS = 86_400_000;
/** Heat-wave series: one per historic range, at most four (summaries.ts MAX_HISTORIC_RANGES). */
const HEAT = 4;

/** The calendar of a span of days since 1970-01-01: each day's year, month, day of the month and slot (day of the year - 1). */
function calendarOf(first: number, last: number) {
  const n = last - first + 1;
  const year = new Int32Array(n);
  const month = new Int32Array(n);
  const dom = new Int32Array(n);
  const slot = new Int32Array(n);
  for (let i = 0; i < n; i++) {
    const d = new Date((first + i) * DAY_MS);
    year[i] = d.getUTCFullYear();
    month[i] = d.getUTCMonth() + 1;
    dom[i] = d.getUTCDate();
    slot[i] = (Date.UTC(year[i]!, month[i]! - 1, dom[i]!) - Date.UTC(year[i]!, 0, 1)) / DAY_MS;
  }
  return { year, month, dom, slot };
}

/**
 * The digits of every model's days (all of one cell and scenario, models in `models` order), with
 * the cell's historical climatology `norms` for the heat series (slots without a row, and ranges
 * without a value, give no heat flag). The days are the generator's: every value present. Returns the rows as the columns monthly_digits_given.sql reads.
 */
export function monthlyDigits(models: string[], days: ModelDays[], norms: NormRow[]): RowSource {
  const first = Math.min(...days.filter((d) => d.date.length > 0).map((d) => d.date[0]!));
  const last = Math.max(...days.filter((d) => d.date.length > 0).map((d) => d.date[d.date.length - 1]!));
  const cal = days.some((d) => d.date.length > 0) ? calendarOf(first, last) : calendarOf(0, -1);
  const y0 = cal.year[0] ?? 0;
  const months = ((cal.year[cal.year.length - 1] ?? y0 - 1) - y0 + 1) * 12;
  const heatNorms = Array.from({ length: HEAT }, () => new Float64Array(366).fill(NaN));
  for (const r of norms) [r.n1, r.n2, r.n3, r.n4].forEach((v, h) => v !== null && (heatNorms[h]![r.slot] = v));

  // What every model shares on a day: its month's place, its digit's word (low or high half of
  // the month's two) and shift, and each heat series' norm.
  const span = cal.year.length;
  const monthAt = new Int32Array(span);
  const word = new Uint8Array(span);
  const shift = new Uint8Array(span);
  const norm = Array.from({ length: HEAT }, () => new Float64Array(span));
  for (let i = 0; i < span; i++) {
    const bit = 2 * (cal.dom[i]! - 1);
    monthAt[i] = (cal.year[i]! - y0) * 12 + cal.month[i]! - 1;
    word[i] = bit < 32 ? 0 : 1;
    shift[i] = bit & 31;
    for (let h = 0; h < HEAT; h++) norm[h]![i] = heatNorms[h]![cal.slot[i]!]!;
  }
  const [n1, n2, n3, n4] = norm as [Float64Array, Float64Array, Float64Array, Float64Array];

  const size = days.length * months;
  const count = new Int32Array(size);
  const frost = new Int32Array(size);
  const maxTasmax = new Float64Array(size).fill(-Infinity);
  const minTasmin = new Float64Array(size).fill(Infinity);
  // Each series' digits, the two halves of month k at 2k and 2k + 1: dry, not_wet, heat 1..4.
  const series = Array.from({ length: 2 + HEAT }, () => new Uint32Array(2 * size));
  const [dry, notWet, h1, h2, h3, h4] = series as [Uint32Array, Uint32Array, Uint32Array, Uint32Array, Uint32Array, Uint32Array];
  for (const d of days) {
    const base = d.model * months;
    for (let r = 0; r < d.date.length; r++) {
      const i = d.date[r]! - first;
      const k = base + monthAt[i]!;
      const w = 2 * k + word[i]!;
      const sh = shift[i]!;
      const tasmax = d.tasmax[r]!;
      const tasmin = d.tasmin[r]!;
      const pr = d.pr[r]!;
      count[k]!++;
      if (tasmin <= 273.15) frost[k]!++;
      if (tasmax > maxTasmax[k]!) maxTasmax[k] = tasmax;
      if (tasmin < minTasmin[k]!) minTasmin[k] = tasmin;
      // a false day is digit 1, a true day 2
      dry[w]! |= (pr === 0 ? 2 : 1) << sh;
      notWet[w]! |= (pr > 0 ? 1 : 2) << sh;
      // A slot without a norm (NULL in SQL: no historical day) flags nothing; NaN compares false.
      if (n1[i] === n1[i]) h1[w]! |= (tasmax > n1[i]! + 5 ? 2 : 1) << sh;
      if (n2[i] === n2[i]) h2[w]! |= (tasmax > n2[i]! + 5 ? 2 : 1) << sh;
      if (n3[i] === n3[i]) h3[w]! |= (tasmax > n3[i]! + 5 ? 2 : 1) << sh;
      if (n4[i] === n4[i]) h4[w]! |= (tasmax > n4[i]! + 5 ? 2 : 1) << sh;
    }
  }

  // The (model, year, month) with days, as columns.
  const ks: number[] = [];
  for (let k = 0; k < size; k++) if (count[k]! > 0) ks.push(k);
  const pick32 = (a: Int32Array | Float64Array, out: Int32Array | Float64Array) => ks.forEach((k, j) => (out[j] = a[k]!));
  const bigints = (halves: Uint32Array) => {
    const out = new BigInt64Array(ks.length);
    const words = new Uint32Array(out.buffer);
    // Little-endian, as DuckDB's vectors: the low half first.
    ks.forEach((k, j) => {
      words[2 * j] = halves[2 * k]!;
      words[2 * j + 1] = halves[2 * k + 1]!;
    });
    return out;
  };
  const model = Uint8Array.from(ks, (k) => Math.floor(k / months));
  const year = Int32Array.from(ks, (k) => y0 + Math.floor((k % months) / 12));
  const month = Int32Array.from(ks, (k) => (k % 12) + 1);
  const frostDays = new Int32Array(ks.length);
  const maxT = new Float64Array(ks.length);
  const minT = new Float64Array(ks.length);
  pick32(frost, frostDays);
  pick32(maxTasmax, maxT);
  pick32(minTasmin, minT);
  return {
    names: ['model', 'year', 'month', 'frost_days', 'max_tasmax', 'min_tasmin', 'dry', 'not_wet', 'h1', 'h2', 'h3', 'h4'],
    types: [ENUM(models), INTEGER, INTEGER, INTEGER, DOUBLE, DOUBLE, BIGINT, BIGINT, BIGINT, BIGINT, BIGINT, BIGINT],
    batches: [[model, year, month, frostDays, maxT, minT, ...series.map(bigints)]],
  };
}
