/**
 * The statistics across models of one period's values: TypeScript twin of across_models in
 * sql/indicators/macros.sql, operation for operation, so that the service (which takes them here)
 * and a DuckDB CLI session (which runs the macro) give the same doubles. Both sort the values
 * first, so that sums do not depend on the order the models' rows arrive in. As in the macro, a
 * model without a value (null) is sorted last and counts in the denominator of avg and in the
 * positions of the percentiles; the per_model values of the templates hold no nulls in practice.
 */

export type AcrossModelStat = (sorted: (number | null)[]) => number | null;

/** Sum of the non-null values in order; null when there are none (DuckDB's list_sum). */
function listSum(s: (number | null)[]): number | null {
  let sum: number | null = null;
  for (const v of s) if (v !== null) sum = sum === null ? v : sum + v;
  return sum;
}

/** Mean of the non-null values (DuckDB's list_avg); null when there are none. */
function listAvg(s: (number | null)[]): number | null {
  let sum = 0;
  let n = 0;
  for (const v of s) {
    if (v === null) continue;
    sum += v;
    n++;
  }
  return n === 0 ? null : sum / n;
}

/** The least and greatest non-null values of a list sorted as sortedValues sorts (list_min, list_max). */
function listMin(s: (number | null)[]): number | null {
  return s[0] ?? null;
}

function listMax(s: (number | null)[]): number | null {
  for (let i = s.length - 1; i >= 0; i--) if (s[i] !== null) return s[i]!;
  return null;
}

/** numpy 1.15 linear interpolation at 0-based position idx of the sorted values (np_interpolate). */
function interpolate(s: (number | null)[], idx: number): number | null {
  const lo = Math.floor(idx);
  const w = idx - lo;
  const a = s[lo];
  const b = s[Math.min(lo + 1, s.length - 1)];
  if (a === undefined || a === null || b === undefined || b === null) return null;
  return a * (1.0 - w) + b * w;
}

/** Population standard deviation, two-pass like numpy.std (np_std). */
function std(s: (number | null)[]): number | null {
  const m = listAvg(s);
  if (m === null) return null;
  const dev = listAvg(s.map((x) => (x === null ? null : (x - m) * (x - m))));
  return dev === null ? null : Math.sqrt(dev);
}

/** The percentile a statistic's name asks for (median is the 50th), or null for the others (stat_quantile). */
function quantileOf(name: string): number | null {
  if (name === 'median') return 50;
  const m = /^(\d+)th$/.exec(name.toLowerCase());
  return m ? Number(m[1]) : null;
}

/** One statistic by name (sorted_stat): min, max, avg, stddev (stdev), median or NNth. */
export function statistic(name: string): AcrossModelStat {
  switch (name) {
    case 'min':
      return listMin;
    case 'max':
      return listMax;
    case 'avg':
      return (s) => {
        const sum = listSum(s);
        return sum === null ? null : sum / s.length;
      };
    case 'stddev':
    case 'stdev':
      return std;
  }
  const q = quantileOf(name);
  if (q === null) return () => null;
  return (s) => (s.length === 0 ? null : interpolate(s, (q / 100.0) * (s.length - 1)));
}

/** DuckDB's order of doubles: NaN after every number. */
const ascending = (a: number, b: number) => (Number.isNaN(a) ? (Number.isNaN(b) ? 0 : 1) : Number.isNaN(b) ? -1 : a - b);

/** Ascending, NaN after the numbers and nulls last (list_sort's default order). */
export function sortedValues(values: (number | null)[]): (number | null)[] {
  const numbers = values.filter((v): v is number => v !== null).sort(ascending);
  return values.length === numbers.length ? numbers : [...numbers, ...values.filter((v) => v === null)];
}
