/** numpy's default (linear) percentile of values already sorted ascending: the tests' independent statistic. */
export function npPercentile(sorted: number[], q: number): number {
  const idx = (q / 100) * (sorted.length - 1);
  const lo = Math.floor(idx);
  const hi = Math.min(lo + 1, sorted.length - 1);
  return sorted[lo]! * (1 - (idx - lo)) + sorted[hi]! * (idx - lo);
}
