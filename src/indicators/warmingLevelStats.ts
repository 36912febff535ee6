import { sortedValues, statistic } from './acrossModels.js';
import type { Baseline, Span, TimeAggregation } from './params.js';
import { changeOf, forEachModelValue, meanOf, type ModelRows } from './periodChanges.js';
import type { PeriodStats } from './query.js';
import type { WarmingPlan } from './warmingPlan.js';

/**
 * The answer at warming levels from each model's values per period (period_models's rows, one
 * set per file read: each scenario's and the historical one). Per model at a level, the mean of its
 * values over its window's years, per slot of the year (the month, quarter or custom span; one slot
 * for yearly and offset-yearly values); with a baseline, its change against its own mean over the
 * baseline's years of the same slot, as periodChanges.ts takes it; then per level and slot the
 * statistics across the models that have a value, and how many they are.
 */

/** A period id's year and slot: 2050 -> (2050, 0); 205003 -> (2050, 3); 20501 -> (2050, 1); 2050001 -> (2050, 1). */
function divisor(agg: TimeAggregation): number {
  return agg === 'monthly' ? 100 : agg === 'quarterly' ? 10 : agg === 'custom' ? 1000 : 1;
}

/** The slots of a year, with their keys in the answer ('' for yearly and offset-yearly values). */
function slotsOf(agg: TimeAggregation, spans: Span[]): { slot: number; label: string }[] {
  const two = (n: number) => String(n).padStart(2, '0');
  if (agg === 'monthly') return Array.from({ length: 12 }, (_, i) => ({ slot: i + 1, label: two(i + 1) }));
  if (agg === 'quarterly') return [1, 2, 3, 4].map((q) => ({ slot: q, label: `Q${q}` }));
  if (agg === 'custom') return spans.map((_, i) => ({ slot: i + 1, label: two(i + 1) }));
  return [{ slot: 0, label: '' }];
}

/** Each model's values by slot, from the rows whose period's year is within [first, last]. */
function slotValues(rows: ModelRows | undefined, model: string, first: number, last: number, d: number, into: Map<number, (number | null)[]>) {
  forEachModelValue(rows, model, (id, value) => {
    const year = d === 1 ? id : Math.floor(id / d);
    if (year < first || year > last) return;
    const slot = d === 1 ? 0 : id % d;
    const list = into.get(slot);
    if (list) list.push(value);
    else into.set(slot, [value]);
  });
}

export function warmingLevelStats(
  plan: WarmingPlan,
  rowsByScenario: Map<string, ModelRows>,
  r: { timeAggregation: TimeAggregation; spans: Span[]; aggs: string[]; baseline?: Baseline },
): PeriodStats[] {
  const d = divisor(r.timeAggregation);
  const historical = rowsByScenario.get('historical');
  const stats = r.aggs.map((name) => [name, statistic(name)] as const);
  // Each model's base per slot: its mean over the baseline's years (an offset year needs both of its calendar years there).
  const bases = new Map<string, Map<number, number | null>>();
  const baseOf = (model: string, slot: number): number | null => {
    const b = r.baseline!;
    let slots = bases.get(model);
    if (!slots) {
      const values = new Map<number, (number | null)[]>();
      slotValues(historical, model, b.start_year, r.timeAggregation === 'offset_yearly' ? b.end_year - 1 : b.end_year, d, values);
      bases.set(model, (slots = new Map([...values].map(([s, vs]) => [s, meanOf(vs)]))));
    }
    return slots.get(slot) ?? null;
  };
  const out: PeriodStats[] = [];
  for (const level of plan.levels) {
    const bySlot = new Map<number, number[]>();
    for (const member of plan.members.filter((m) => m.level === level)) {
      const values = new Map<number, (number | null)[]>();
      const { start_year, end_year } = member.window;
      slotValues(rowsByScenario.get(member.scenario), member.model, start_year, end_year, d, values);
      // Years before the scenario are in the historical file only (it holds no scenario year).
      slotValues(historical, member.model, start_year, end_year, d, values);
      for (const [slot, vs] of values) {
        const value = meanOf(vs);
        const changed = r.baseline && value !== null ? changeOf(value, baseOf(member.model, slot), r.baseline.change) : value;
        if (changed === null) continue;
        const list = bySlot.get(slot);
        if (list) list.push(changed);
        else bySlot.set(slot, [changed]);
      }
    }
    for (const { slot, label } of slotsOf(r.timeAggregation, r.spans)) {
      const sorted = sortedValues(bySlot.get(slot) ?? []);
      out.push({ level, period: label, modelCount: sorted.length, stats: stats.map(([name, stat]) => [name, stat(sorted)]) });
    }
  }
  return out;
}
