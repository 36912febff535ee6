import type { ModelRows } from '../periodChanges.js';

/** Rows of (period id, model, value), as an area's combined rows are, grouped into each model's series. */
export function seriesOfRows(rows: { periods: number[]; models: string[]; values: (number | null)[] }): ModelRows {
  const out: ModelRows = { models: [], ids: [], vals: [] };
  const index = new Map<string, number>();
  rows.models.forEach((model, k) => {
    let i = index.get(model);
    if (i === undefined) {
      index.set(model, (i = out.models.push(model) - 1));
      out.ids.push([]);
      out.vals.push([]);
    }
    out.ids[i]!.push(rows.periods[k]!);
    out.vals[i]!.push(rows.values[k]!);
  });
  return out;
}
