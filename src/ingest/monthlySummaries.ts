import { DOUBLE, ENUM, INTEGER } from '@duckdb/node-api';
import type { RowSource } from '../db/rowSource.js';
import { calendarOfDays } from './dayCalendar.js';
import { quantileCont } from './orderStatistics.js';
import type { EventThresholds, NormRow } from './summaries.js';
import { EVENT_SERIES } from '../dataBuild/summaryFormat.js';
import type { ModelDays } from './syntheticDays.js';

/**
 * A cell's monthly summaries from days the build holds in memory: per model, year and month, the
 * frost days, the highest tasmax, the lowest tasmin, the sums of tasmax, tasmin, their difference
 * and pr with the days they count, the highest pr, and the run summary of each series (dry: pr =
 * 0; not_wet: not pr > 0; a heat series per historic range: tasmax more than 5 K above the range's
 * daily mean): the days flagged, the run of true days at each end of the month, the longest run and
 * the runs of 5 or more days, the days in date order (a date a calendar lacks is no day, so runs go
 * across it); each year's median of tasmax, tasmin and pr, and each month's extreme events of each
 * historic range (days past the range's thresholds, historicThresholds.ts). sql/build/monthly_summary.sql
 * computes the same from a cell's file, for the ingest and
 * `make summaries`; a test compares the two on every calendar and historic range. Here it costs a
 * fraction of that query, which was a third of the default build's time.
 */

const DAY_MS = 86_400_000;
/** Heat-wave series: one per historic range, at most four (summaries.ts MAX_HISTORIC_RANGES). */
const HEAT = 4;
const FIELDS = ['n', 'head', 'tail', 'longest', 'runs5'] as const;

/**
 * The run summaries of one series, per (model, year, month) k, folded day by day in date order: at
 * 6k the days flagged, the run at the head, the run going on (the tail once the month is over), the
 * longest run, the runs of 5 or more, and 1 once a false day ended the head run. One array per
 * series, a month's fields side by side: a function call and a cache line a day.
 */
const STRIDE = 6;

/** year_runs's packing of a year's run summary (sql/indicators/macros.sql): n + 512 longest + 262144 runs5. */
const YEAR_RUNS_LONGEST = 512;
const YEAR_RUNS_5 = 512 * 512;

function addRun(a: Int32Array, j: number, flag: boolean) {
  a[j]!++;
  if (flag) {
    const run = ++a[j + 2]!;
    if (a[j + 5] === 0) a[j + 1]!++;
    if (run > a[j + 3]!) a[j + 3] = run;
    if (run === 5) a[j + 4]!++;
  } else {
    a[j + 2] = 0;
    a[j + 5] = 1;
  }
}

/** The default base of the degree days, 65 F in K as the service converts it (temperatureToK). */
const BASETEMP_65F = (65 + 459.67) * (1 / 1.8);

/** The Rx-n-day maxima the summaries hold: n = 2..10 (max_nday_precipitation's n). */
const NDAYS = 9;

/** DuckDB's fsum step (Kahan's): the sum at a[j], its running error at a[j + 1]. */
function kahanAdd(a: Float64Array, j: number, input: number) {
  const diff = input - a[j + 1]!;
  const next = a[j]! + diff;
  a[j + 1] = next - a[j]! - diff;
  a[j] = next;
}

/** The per-month sums, extremes and counts of a cell's days, indexed by (model, year, month) k. */
function newSums(size: number) {
  return {
    count: new Int32Array(size),
    frost: new Int32Array(size),
    maxTasmax: new Float64Array(size).fill(-Infinity),
    minTasmin: new Float64Array(size).fill(Infinity),
    // Exact sums (sql/build/monthly_summary.sql says why), each day's value added in date order.
    sumTasmax: new Float64Array(size),
    sumTasmin: new Float64Array(size),
    sumDtr: new Float64Array(size),
    sumPr: new Float64Array(size),
    maxPr: new Float64Array(size).fill(-Infinity),
    // The degree days at the default base, as DuckDB's fsum adds them (kahanAdd): value and error per month.
    cooling: new Float64Array(2 * size),
    heating: new Float64Array(2 * size),
    coolingDays: new Int32Array(size),
    heatingDays: new Int32Array(size),
    // Rx-n-day for n = 2..10 at NDAYS * k + n - 2: the greatest total of n consecutive rows of the
    // model ending in the month (sql/build/monthly_summary.sql); -Infinity while there is none.
    rx: new Float64Array(NDAYS * size).fill(-Infinity),
  };
}
type Sums = ReturnType<typeof newSums>;

/** The run series of a cell: dry, not wet, and the heat series with a norm, with the norm of each day of the span. */
interface Runs {
  dry: Int32Array;
  notWet: Int32Array;
  heat: Int32Array[];
  norm: Float64Array[];
}

/**
 * One model's days `d` into the sums and the run series, in date order: day r is in month
 * `base + monthAt[date - first]`.
 */
function foldModel(s: Sums, runs: Runs, d: ModelDays, monthAt: Int32Array, first: number, base: number) {
  const { tasmax: tx, tasmin: tn, pr: p, date } = d;
  const { rx } = s;
  for (let r = 0; r < date.length; r++) {
    const i = date[r]! - first;
    const k = base + monthAt[i]!;
    const tasmax = tx[r]!;
    const tasmin = tn[r]!;
    const pr = p[r]!;
    s.count[k]!++;
    if (tasmin <= 273.15) s.frost[k]!++;
    if (tasmax > s.maxTasmax[k]!) s.maxTasmax[k] = tasmax;
    if (tasmin < s.minTasmin[k]!) s.minTasmin[k] = tasmin;
    s.sumTasmax[k]! += tasmax;
    s.sumTasmin[k]! += tasmin;
    s.sumDtr[k]! += tasmax - tasmin;
    s.sumPr[k]! += pr;
    if (pr > s.maxPr[k]!) s.maxPr[k] = pr;
    // Each n-day total summed from the day back, as the SQL window adds it.
    const at = NDAYS * k - 2;
    let total = pr;
    const deepest = Math.min(NDAYS + 1, r + 1);
    for (let n = 2; n <= deepest; n++) {
      total += p[r - n + 1]!;
      if (total > rx[at + n]!) rx[at + n] = total;
    }
    const mean = (tasmax + tasmin) / 2;
    if (mean > BASETEMP_65F) {
      kahanAdd(s.cooling, 2 * k, mean - BASETEMP_65F);
      s.coolingDays[k]!++;
    } else if (mean < BASETEMP_65F) {
      kahanAdd(s.heating, 2 * k, BASETEMP_65F - mean);
      s.heatingDays[k]!++;
    }
    const j = STRIDE * k;
    addRun(runs.dry, j, pr === 0);
    addRun(runs.notWet, j, !(pr > 0));
    for (let h = 0; h < runs.heat.length; h++) {
      const n = runs.norm[h]![i]!;
      // NaN: no norm for the day's slot, no flag.
      if (n === n) addRun(runs.heat[h]!, j, tasmax > n + 5);
    }
  }
}

/** Where foldFreezing puts each period's value: a year's at its first month's k / 12, an offset year's at its first year's. */
interface Freezing {
  year: Float64Array;
  offsetYear: Float64Array;
}

/**
 * Accumulated freezing degree days of one model's years and offset years (from day 181 of a year
 * to day 180 of the next), in one pass over its days in date order: day i is in year
 * `monthAt[i] / 12` and offset year `offsetYearAt[i]` (-1: none) of the span, and every period is
 * folded from its first day as the template's running_sum_fold folds it (a running total of 273.15
 * - (tasmax + tasmin) / 2 floored at 0, and its greatest value), with the same double arithmetic,
 * so the value is the same to the bit. The folds are written out one by one: a loop over them with
 * their state in arrays took the build's summaries 40% longer.
 */
function foldFreezing(out: Freezing, d: ModelDays, monthAt: Int32Array, offsetYearAt: Int32Array, first: number, yearBase: number) {
  const { tasmax: tx, tasmin: tn, date } = d;
  let y = -1;
  let o = -1;
  let yTotal = 0;
  let yBest = 0;
  let oTotal = 0;
  let oBest = 0;
  for (let r = 0; r < date.length; r++) {
    const i = date[r]! - first;
    const v = 273.15 - (tx[r]! + tn[r]!) / 2;
    const year = (monthAt[i]! / 12) | 0;
    if (year !== y) {
      if (y >= 0) out.year[yearBase + y] = yBest;
      y = year;
      yTotal = 0;
      yBest = 0;
    }
    let t = yTotal + v;
    if (t > yBest) yBest = t;
    yTotal = t > 0 ? t : 0;
    const offsetYear = offsetYearAt[i]!;
    if (offsetYear !== o) {
      if (o >= 0) out.offsetYear[yearBase + o] = oBest;
      o = offsetYear;
      oTotal = 0;
      oBest = 0;
    }
    if (o < 0) continue;
    t = oTotal + v;
    if (t > oBest) oBest = t;
    oTotal = t > 0 ? t : 0;
  }
  if (y >= 0) out.year[yearBase + y] = yBest;
  if (o >= 0) out.offsetYear[yearBase + o] = oBest;
}

/**
 * One model's extreme events into `counts` (index (h * EVENT_SERIES.length + e) * size + k: range h,
 * series e, month k): the days on which its variable is above (below) the range's threshold.
 * Thresholds are NaN where none, which no day passes.
 */
function foldEvents(counts: Int32Array, thresholds: Float64Array, size: number, d: ModelDays, monthAt: Int32Array, first: number, base: number) {
  const { tasmax: tx, tasmin: tn, pr: p, date } = d;
  const n = thresholds.length;
  for (let r = 0; r < date.length; r++) {
    const k = base + monthAt[date[r]! - first]!;
    const x = tx[r]!;
    const y = tn[r]!;
    const z = p[r]!;
    for (let t = 0; t < n; t += 3) {
      const at = t * size + k;
      if (x > thresholds[t]!) counts[at]!++;
      if (y < thresholds[t + 1]!) counts[at + size]!++;
      if (z > thresholds[t + 2]!) counts[at + 2 * size]!++;
    }
  }
}

/** The event counts of one (range, series) for the months `ks`; -1 (none: NULL in the file) where the range has no threshold. */
function eventCounts(counts: Int32Array, threshold: number, size: number, at: number, ks: Int32Array): Int32Array {
  const out = new Int32Array(ks.length);
  for (let j = 0; j < ks.length; j++) out[j] = threshold === threshold ? counts[at * size + ks[j]!]! : -1;
  return out;
}

/** Each (model, year)'s median of tasmax, tasmin and pr (foldMedians), NaN where none. */
interface Medians {
  tasmax: Float64Array;
  tasmin: Float64Array;
  pr: Float64Array;
}

/**
 * The medians of each year of one model's days (day i of the span in year `monthAt[i] / 12`), at
 * `yearBase + year`: what percentile_high_temperature, percentile_low_temperature and
 * percentile_precipitation give a year at their default percentile, 50. `scratch`: three arrays
 * of 366 or more.
 */
function foldMedians(out: Medians, d: ModelDays, monthAt: Int32Array, first: number, yearBase: number, scratch: Float64Array[]) {
  const { tasmax: tx, tasmin: tn, pr: p, date } = d;
  const [sx, sn, sp] = scratch as [Float64Array, Float64Array, Float64Array];
  // Each year's days are consecutive rows: copied out whole (a native copy), then selected in.
  let from = 0;
  for (let r = 1; r <= date.length; r++) {
    const year = (monthAt[date[from]! - first]! / 12) | 0;
    if (r < date.length && ((monthAt[date[r]! - first]! / 12) | 0) === year) continue;
    const m = r - from;
    sx.set(tx.subarray(from, r));
    sn.set(tn.subarray(from, r));
    sp.set(p.subarray(from, r));
    out.tasmax[yearBase + year] = quantileCont(sx, m, 0.5);
    out.tasmin[yearBase + year] = quantileCont(sn, m, 0.5);
    out.pr[yearBase + year] = quantileCont(sp, m, 0.5);
    from = r;
  }
}

/**
 * `column[j] = value[year of ks[j]]` on the first row of each (model, year) (ks are sorted, k / 12
 * the year), NaN on the others: a year's value once, as few bytes as a column of a value per
 * month's row would take.
 */
function onYearsFirstRow(ks: Int32Array, value: Float64Array): Float64Array {
  const out = new Float64Array(ks.length);
  let previous = -1;
  for (let j = 0; j < ks.length; j++) {
    const year = (ks[j]! / 12) | 0;
    out[j] = year !== previous ? value[year]! : NaN;
    previous = year;
  }
  return out;
}

/** `column[j] = from[stride * ks[j] + offset]`: a plain loop, where a closure per column made the call site megamorphic. */
function gather<T extends Int32Array | Float64Array>(out: T, from: T, ks: Int32Array, stride = 1, offset = 0): T {
  for (let j = 0; j < ks.length; j++) out[j] = from[stride * ks[j]! + offset]!;
  return out;
}

/** The (model, year, month) k with days, in order: the rows of the file. */
function monthsWithDays(count: Int32Array): Int32Array {
  let n = 0;
  for (let k = 0; k < count.length; k++) if (count[k]! > 0) n++;
  const ks = new Int32Array(n);
  for (let k = 0, j = 0; k < count.length; k++) if (count[k]! > 0) ks[j++] = k;
  return ks;
}

/** The model, year and month columns of the rows `ks` (k = model * months + year * 12 + month). */
function keyColumns(ks: Int32Array, months: number, y0: number) {
  const model = new Uint8Array(ks.length);
  const year = new Int32Array(ks.length);
  const month = new Int32Array(ks.length);
  for (let j = 0; j < ks.length; j++) {
    const k = ks[j]!;
    model[j] = Math.floor(k / months);
    year[j] = y0 + Math.floor((k % months) / 12);
    month[j] = (k % 12) + 1;
  }
  return [model, year, month];
}

/** A degree-day column: the month's Kahan sum (value at 2k), NaN (NULL in the file) in a month without a day past the base, as fsum of no rows. */
function degreeDayColumn(sums: Float64Array, days: Int32Array, ks: Int32Array): Float64Array {
  const out = new Float64Array(ks.length);
  for (let j = 0; j < ks.length; j++) {
    const k = ks[j]!;
    out[j] = days[k]! > 0 ? sums[2 * k]! : NaN;
  }
  return out;
}

/** -Infinity (no n days ending in the month) to NaN, NULL in the file. */
function noneToNaN(a: Float64Array) {
  for (let i = 0; i < a.length; i++) if (a[i] === -Infinity) a[i] = NaN;
}

/**
 * Each model-year's offset-year value of the freezing degree days where the model has days in the
 * next year (indicator_days), NaN where it has none or the year is its span's last.
 */
function offsetYearValues(offsetYear: Float64Array, count: Int32Array, years: number): Float64Array {
  const daysInYear = new Int32Array(offsetYear.length);
  for (let k = 0; k < count.length; k++) daysInYear[(k / 12) | 0]! += count[k]!;
  const out = new Float64Array(offsetYear.length);
  for (let y = 0; y < out.length; y++) out[y] = (y % years) + 1 < years && daysInYear[y + 1]! > 0 ? offsetYear[y]! : NaN;
  return out;
}

/** The fields of the months `ks` of a series, as columns in FIELDS order. */
const runColumns = (a: Int32Array, ks: Int32Array) => FIELDS.map((_, f) => gather(new Int32Array(ks.length), a, ks, STRIDE, f));

/**
 * A series' run summary of each whole year (its months joined in date order, as join_runs in
 * sql/indicators/macros.sql joins them; a month without flagged days changes nothing), packed as
 * year_runs packs it, on the row of the year's first month of `ks`: -1 (none) on the year's other
 * rows, and on its first where `empty` (a heat series) and no day of the year is flagged.
 */
function yearRunColumn(a: Int32Array, ks: Int32Array, empty: boolean): Int32Array {
  const column = new Int32Array(ks.length).fill(-1);
  let previous = -1;
  for (let j = 0; j < ks.length; j++) {
    const year = (ks[j]! / 12) | 0;
    if (year === previous) continue;
    previous = year;
    let n = 0;
    let head = 0;
    let tail = 0;
    let longest = 0;
    let runs5 = 0;
    for (let i = STRIDE * 12 * year; i < STRIDE * 12 * (year + 1); i += STRIDE) {
      const bn = a[i]!;
      const bHead = a[i + 1]!;
      const bTail = a[i + 2]!;
      runs5 += a[i + 4]! - (tail >= 5 ? 1 : 0) - (bHead >= 5 ? 1 : 0) + (tail + bHead >= 5 ? 1 : 0);
      longest = Math.max(longest, a[i + 3]!, tail + bHead);
      head = head === n ? n + bHead : head;
      tail = bTail === bn ? bn + tail : bTail;
      n += bn;
    }
    if (n > 0 || !empty) column[j] = n + YEAR_RUNS_LONGEST * longest + YEAR_RUNS_5 * runs5;
  }
  return column;
}

/**
 * The summaries of every model's days (all of one cell and scenario, models in `models` order: the
 * file's), with the cell's historical climatology `norms` for the heat series (a slot without a row,
 * or a range without a value, flags nothing). The days are the generator's: every value present.
 * Returns the rows as the columns monthly_summary_given.sql reads.
 */
export function monthlySummaries(models: string[], days: ModelDays[], norms: NormRow[], thresholds: EventThresholds[]): RowSource {
  const withRows = days.filter((d) => d.date.length > 0);
  const first = Math.min(...withRows.map((d) => d.date[0]!));
  const last = Math.max(...withRows.map((d) => d.date[d.date.length - 1]!));
  const y0 = withRows.length > 0 ? new Date(first * DAY_MS).getUTCFullYear() : 0;
  const months = withRows.length > 0 ? (new Date(last * DAY_MS).getUTCFullYear() - y0 + 1) * 12 : 0;
  const { monthAt, offsetYearAt, norm } = dayPlaces(first, withRows.length > 0 ? last - first + 1 : 0, y0, norms);

  // Every loop over days or months is a function of its own: V8 optimises each once, where loops
  // here made this function hot, and its recompilations with everything inlined took a sixth of
  // the default build's CPU (up to 1.2 s each).
  const size = days.length * months;
  const sums = newSums(size);
  const dry = new Int32Array(STRIDE * size);
  const notWet = new Int32Array(STRIDE * size);
  const heat = Array.from({ length: HEAT }, () => new Int32Array(STRIDE * size));
  // The heat series that have a norm on some day (the cell's dataset's ranges).
  const active = heat.flatMap((_, h) => (norm[h]!.some((v) => !Number.isNaN(v)) ? [h] : []));
  const runs: Runs = { dry, notWet, heat: active.map((h) => heat[h]!), norm: active.map((h) => norm[h]!) };
  for (const d of days) foldModel(sums, runs, d, monthAt, first, d.model * months);
  const freezing: Freezing = { year: new Float64Array(size / 12).fill(NaN), offsetYear: new Float64Array(size / 12).fill(NaN) };
  for (const d of days) foldFreezing(freezing, d, monthAt, offsetYearAt, first, (d.model * months) / 12);
  const medians: Medians = { tasmax: new Float64Array(size / 12).fill(NaN), tasmin: new Float64Array(size / 12).fill(NaN), pr: new Float64Array(size / 12).fill(NaN) };
  const scratch = [0, 1, 2].map(() => new Float64Array(366));
  for (const d of days) foldMedians(medians, d, monthAt, first, (d.model * months) / 12, scratch);
  // The extreme events of each range with thresholds (NaN: none), the heat series' h1..h4.
  const eventThresholds = Float64Array.from({ length: HEAT * EVENT_SERIES.length }, (_, i) => thresholds[Math.floor(i / EVENT_SERIES.length)]?.[i % EVENT_SERIES.length] ?? NaN);
  const events = new Int32Array(eventThresholds.length * size);
  for (const d of days) foldEvents(events, eventThresholds.subarray(0, thresholds.length * EVENT_SERIES.length), size, d, monthAt, first, d.model * months);
  const { count, frost, maxTasmax, minTasmin, sumTasmax, sumTasmin, sumDtr, sumPr, maxPr, cooling, heating, coolingDays, heatingDays, rx } = sums;
  noneToNaN(rx);

  const ks = monthsWithDays(count);
  const eventColumns = Array.from(eventThresholds, (threshold, i) => eventCounts(events, threshold, size, i, ks));
  const series = [['dry', dry], ['not_wet', notWet], ...heat.map((runs, h) => [`h${h + 1}`, runs] as const)] as const;
  const rxColumns: Float64Array[] = [];
  for (let i = 0; i < NDAYS; i++) rxColumns.push(gather(new Float64Array(ks.length), rx, ks, NDAYS, i));
  return {
    names: ['model', 'year', 'month', 'frost_days', 'max_tasmax', 'min_tasmin', 'sum_tasmax', 'n_tasmax', 'sum_tasmin', 'n_tasmin', 'sum_dtr', 'n_dtr', 'sum_pr', 'max_pr', ...Array.from({ length: NDAYS }, (_, i) => `rx${i + 2}day`), 'cooling_65f', 'heating_65f', 'afdd_year', 'afdd_offset_year', 'p50_tasmax_year', 'p50_tasmin_year', 'p50_pr_year', ...series.flatMap(([name]) => FIELDS.map((f) => `${name}_${f}`)), ...series.map(([name]) => `${name}_year`), ...heat.flatMap((_, h) => EVENT_SERIES.map((e) => `h${h + 1}_${e.series}`))],
    types: [ENUM(models), INTEGER, INTEGER, INTEGER, DOUBLE, DOUBLE, DOUBLE, INTEGER, DOUBLE, INTEGER, DOUBLE, INTEGER, DOUBLE, DOUBLE, ...Array.from({ length: NDAYS }, () => DOUBLE), DOUBLE, DOUBLE, DOUBLE, DOUBLE, DOUBLE, DOUBLE, DOUBLE, ...series.flatMap(() => FIELDS.map(() => INTEGER)), ...series.map(() => INTEGER), ...Array.from(eventThresholds, () => INTEGER)],
    batches: [
      [
        ...keyColumns(ks, months, y0),
        gather(new Int32Array(ks.length), frost, ks),
        gather(new Float64Array(ks.length), maxTasmax, ks),
        gather(new Float64Array(ks.length), minTasmin, ks),
        gather(new Float64Array(ks.length), sumTasmax, ks),
        // Every day of the generator has every variable.
        gather(new Int32Array(ks.length), count, ks),
        gather(new Float64Array(ks.length), sumTasmin, ks),
        gather(new Int32Array(ks.length), count, ks),
        gather(new Float64Array(ks.length), sumDtr, ks),
        gather(new Int32Array(ks.length), count, ks),
        gather(new Float64Array(ks.length), sumPr, ks),
        gather(new Float64Array(ks.length), maxPr, ks),
        ...rxColumns,
        degreeDayColumn(cooling, coolingDays, ks),
        degreeDayColumn(heating, heatingDays, ks),
        // A year's and an offset year's values on the year's first month's row (NaN: none, NULL in the file).
        onYearsFirstRow(ks, freezing.year),
        onYearsFirstRow(ks, offsetYearValues(freezing.offsetYear, count, months / 12)),
        onYearsFirstRow(ks, medians.tasmax),
        onYearsFirstRow(ks, medians.tasmin),
        onYearsFirstRow(ks, medians.pr),
        ...series.flatMap(([, runs]) => runColumns(runs, ks)),
        ...series.map(([, runs]) => yearRunColumn(runs, ks, heat.includes(runs))),
        ...eventColumns,
      ],
    ],
  };
}

/**
 * What every model shares on each day of the span `first`..`first + span - 1`: its month's place
 * from January of `y0` on (year * 12 + month), its offset year for the freezing degree days (-1
 * before the first year's), and each heat series' norm (NaN: none).
 */
function dayPlaces(first: number, span: number, y0: number, norms: NormRow[]) {
  const monthAt = new Int32Array(span);
  const offsetYearAt = new Int32Array(span);
  const norm = Array.from({ length: HEAT }, () => new Float64Array(span).fill(NaN));
  const bySlot = Array.from({ length: HEAT }, () => new Float64Array(366).fill(NaN));
  for (const r of norms) {
    [r.n1, r.n2, r.n3, r.n4].forEach((v, h) => {
      if (v !== null) bySlot[h]![r.slot] = v;
    });
  }
  const { year, month, slot } = calendarOfDays(first, span);
  for (let i = 0; i < span; i++) {
    monthAt[i] = (year[i]! - y0) * 12 + month[i]!;
    offsetYearAt[i] = year[i]! - y0 - (slot[i]! < 180 ? 1 : 0);
    for (let h = 0; h < HEAT; h++) norm[h]![i] = bySlot[h]![slot[i]!]!;
  }
  return { monthAt, offsetYearAt, norm };
}
