import type { Variable } from './cfValues.js';

/** The variables' bit in `covered` and their column. */
export const VARIABLE_INDEX: Record<Variable, number> = { tasmax: 0, tasmin: 1, pr: 2, tas: 3, hurs: 4, huss: 5 };
const COUNT = 6;

/** One staged file's values of one cell. */
export interface Contribution {
  /** Position of the file in the ingest's file order: a later file's value wins. */
  order: number;
  file: string;
  variable: Variable;
  /** Days since 1970-01-01 per time step, ascending. */
  days: ArrayLike<number>;
  values: Float32Array;
}

/** A model's merged days in one cell and scenario, one slot per date from `first`. */
export interface ModelDays {
  first: number;
  /** Per variable (VARIABLE_INDEX), the value per slot (NaN: none). */
  values: Float32Array[];
  /** Per variable, the `order` of the file that gave the slot's value (-1: none). */
  sources: Int32Array[];
  /** Bit per variable: a file covers the date (its value, or its lack of one, replaces what was there). */
  covered: Uint8Array;
}

/**
 * Merges a model's contributions to one cell and scenario: every date from a file's first to its
 * last is covered by it, so the dates its calendar lacks (Feb 29 of a 365_day model, the 5 or 6
 * dates a 360_day year skips) replace earlier values with none; where two files cover a date, the
 * later file in the ingest's order wins, as it always has.
 */
export function mergeModelDays(contributions: Contribution[]): ModelDays | undefined {
  const spans = contributions.filter((c) => c.days.length > 0);
  if (spans.length === 0) return undefined;
  let first = Infinity;
  let last = -Infinity;
  for (const c of spans) {
    first = Math.min(first, c.days[0]!);
    last = Math.max(last, c.days[c.days.length - 1]!);
  }
  const n = last - first + 1;
  const values = Array.from({ length: COUNT }, () => new Float32Array(n).fill(NaN));
  const sources = Array.from({ length: COUNT }, () => new Int32Array(n).fill(-1));
  const covered = new Uint8Array(n);
  for (const c of [...spans].sort((a, b) => a.order - b.order)) {
    const v = VARIABLE_INDEX[c.variable];
    const bit = 1 << v;
    const from = c.days[0]! - first;
    const to = c.days[c.days.length - 1]! - first;
    const target = values[v]!;
    target.fill(NaN, from, to + 1);
    sources[v]!.fill(c.order, from, to + 1);
    for (let s = from; s <= to; s++) covered[s] = covered[s]! | bit;
    for (let t = 0; t < c.days.length; t++) target[c.days[t]! - first] = c.values[t]!;
  }
  return { first, values, sources, covered };
}
