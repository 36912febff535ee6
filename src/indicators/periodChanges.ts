import { sortedValues } from './acrossModels.js';
import type { Span, TimeAggregation } from './params.js';

/**
 * Multi-year windows, the change against a baseline and the periods' keys, from each model's
 * values per period: TypeScript twin of in_windows, period_changes and period_label in
 * sql/indicators/macros.sql, operation for operation, so that the service and a DuckDB CLI session
 * give the same answers (test/cli-session.test.ts compares them). The rows are period_models's:
 * per model (models[m]), its period ids (ids[m], the baseline's negated) and its values there
 * (vals[m]), in any order.
 */
export interface ModelRows {
  models: string[];
  ids: number[][];
  vals: (number | null)[][];
}

/** Calls `each` with every (period id, value) of one model's rows; not at all when the rows or the model are missing. */
export function forEachModelValue(rows: ModelRows | undefined, model: string, each: (id: number, value: number | null) => void) {
  const m = rows ? rows.models.indexOf(model) : -1;
  if (m < 0) return;
  const ids = rows!.ids[m]!;
  const vals = rows!.vals[m]!;
  for (let i = 0; i < ids.length; i++) each(ids[i]!, vals[i]!);
}

/** mean_of: the mean of the values in ascending order, NULLs left out; null when none is left. */
export function meanOf(values: (number | null)[]): number | null {
  const s = sortedValues(values).filter((v): v is number => v !== null);
  if (s.length === 0) return null;
  let sum = 0;
  for (const v of s) sum += v;
  return sum / s.length;
}

const pad = (n: number, width: number) => String(n).padStart(width, '0');

/** period_label: the API's key of a period id (2050, 2050-03, 2050-Q1, 2050-2051, 2050-01). */
export function periodLabel(timeAggregation: TimeAggregation, id: number): string {
  switch (timeAggregation) {
    case 'monthly':
      return `${pad(Math.floor(id / 100), 4)}-${pad(id % 100, 2)}`;
    case 'quarterly':
      return `${pad(Math.floor(id / 10), 4)}-Q${id % 10}`;
    case 'offset_yearly':
      return `${id}-${id + 1}`;
    case 'custom':
      return `${pad(Math.floor(id / 1000), 4)}-${pad(id % 1000, 2)}`;
    default:
      return String(id);
  }
}

/** slot_modulus: a period id modulo this is the month, quarter or span it is compared with. */
function slotModulus(timeAggregation: TimeAggregation): number {
  return timeAggregation === 'monthly' ? 100 : timeAggregation === 'quarterly' ? 10 : timeAggregation === 'custom' ? 1000 : 1;
}

/** Values collected under a key, in the order met. */
function push<K>(lists: Map<K, (number | null)[]>, key: K, value: number | null) {
  const list = lists.get(key);
  if (list) list.push(value);
  else lists.set(key, [value]);
}

interface Period {
  id: number;
  period: string;
  /** Each model's value, by model. */
  byModel: Map<string, number | null>;
}

/** The requested periods (positive ids) in id order, each model's value as it is. */
function requestedPeriods(rows: ModelRows, timeAggregation: TimeAggregation): Period[] {
  const byId = new Map<number, Map<string, number | null>>();
  rows.models.forEach((model, m) => {
    const ids = rows.ids[m]!;
    const vals = rows.vals[m]!;
    for (let i = 0; i < ids.length; i++) {
      const id = ids[i]!;
      if (id <= 0) continue;
      let models = byId.get(id);
      if (!models) byId.set(id, (models = new Map()));
      models.set(model, vals[i]!);
    }
  });
  return [...byId.keys()].sort((a, b) => a - b).map((id) => ({ id, period: periodLabel(timeAggregation, id), byModel: byId.get(id)! }));
}

/** in_windows: each model's mean over each window's years (the window's position its id). */
function inWindows(rows: ModelRows, windows: Span[]): Period[] {
  return windows.flatMap((w, i) => {
    const byModel = new Map<string, (number | null)[]>();
    rows.models.forEach((model, m) => {
      const ids = rows.ids[m]!;
      for (let r = 0; r < ids.length; r++) if (ids[r]! >= w.s && ids[r]! <= w.e) push(byModel, model, rows.vals[m]![r]!);
    });
    return byModel.size === 0 ? [] : [{ id: i + 1, period: `${w.s}-${w.e}`, byModel: new Map([...byModel].map(([m, vs]) => [m, meanOf(vs)])) }];
  });
}

/**
 * A model's value against its base (period_changes): 'absolute' value - base, 'percent'
 * 100 x (value - base) / base; null where either is missing or the percent's base is 0.
 */
export function changeOf(value: number | null, base: number | null, change: 'absolute' | 'percent'): number | null {
  if (value === null || base === null) return null;
  if (change === 'absolute') return value - base;
  return base === 0 ? null : (100.0 * (value - base)) / base;
}

/**
 * Per period, the values the statistics across models are taken over: with windows, each model's
 * window means; with a change, each model's value against its base (the mean of its baseline
 * periods of the same slot): 'absolute' value - base, 'percent' 100 x (value - base) / base, null
 * where the base is 0 or missing. Models without a value are left out.
 */
export function changedPeriods(rows: ModelRows, timeAggregation: TimeAggregation, windows: Span[] | undefined, change: 'absolute' | 'percent' | undefined): { period: string; values: number[] }[] {
  const requested = windows ? inWindows(rows, windows) : requestedPeriods(rows, timeAggregation);
  const modulus = slotModulus(timeAggregation);
  // Each model's base per slot.
  const baseValues = new Map<string, Map<number, (number | null)[]>>();
  if (change !== undefined) {
    rows.models.forEach((model, m) => {
      const ids = rows.ids[m]!;
      for (let i = 0; i < ids.length; i++) {
        if (ids[i]! >= 0) continue;
        let slots = baseValues.get(model);
        if (!slots) baseValues.set(model, (slots = new Map()));
        push(slots, -ids[i]! % modulus, rows.vals[m]![i]!);
      }
    });
  }
  const bases = new Map([...baseValues].map(([model, slots]) => [model, new Map([...slots].map(([slot, vs]) => [slot, meanOf(vs)]))]));
  return requested.map(({ id, period, byModel }) => {
    const values: number[] = [];
    for (const [model, value] of byModel) {
      const changed = change === undefined ? value : changeOf(value, bases.get(model)?.get(id % modulus) ?? null, change);
      if (changed !== null) values.push(changed);
    }
    return { period, values };
  });
}
