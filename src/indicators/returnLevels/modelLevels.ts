import { sortedValues, statistic } from '../acrossModels.js';
import type { ModelRows } from '../periodChanges.js';
import type { PeriodStats } from '../query.js';
import { fitGev, returnLevel, returnPeriodOf, type GevFit } from './gev.js';
import { MIN_FIT_YEARS, RETURN_PERIOD_CAP, type ReturnLevelPlan } from './params.js';

/** One place's return levels: per return period the statistics across models, and what the answer says of the models. */
export interface ReturnLevelRows {
  /** Keyed by return period ("20"), ascending. */
  periods: PeriodStats[];
  /** The models left out: fewer than MIN_FIT_YEARS yearly values in the window (or the baseline), or values without spread. */
  withoutFit: string[];
  /** baseline_return_period: per return period, the models whose answer was beyond RETURN_PERIOD_CAP years and is the cap. */
  capped?: { period: string; models: string[] }[];
  /** include=fit: each model's fit over the window and, with a baseline, over the baseline years. */
  fits?: { window: [string, GevFit][]; baseline?: [string, GevFit][] };
}

/** What the computation takes of an indicator plan. */
export interface ReturnLevelRequest {
  returnLevels: ReturnLevelPlan;
  /** The models asked for: a model without values is named among those without a fit. */
  models: string[];
  aggs: string[];
  /** relative_to's kind of change; undefined without a baseline, and for the inverse. */
  change?: 'absolute' | 'percent';
  /** Whether there is a baseline (negative period ids in the rows). */
  baseline: boolean;
}

/** A model's fit to its values, as maxima: minima are fitted as maxima of the negated values. */
function fitOf(values: number[], sign: number): GevFit | undefined {
  if (values.length < MIN_FIT_YEARS) return undefined;
  return fitGev(values.map((v) => sign * v));
}

/**
 * Per return period, the statistics across models of each model's value: its N-year return level
 * over its window; with a baseline, its change against its baseline's N-year level (absolute or
 * percent, as relative_to's changes); with `inverse`, the return period under its window's fit of
 * its baseline's N-year level, capped at RETURN_PERIOD_CAP. `rows` are period_models's: each
 * model's yearly values, the window's years (positive ids) and the baseline's (negative ids).
 */
export function modelReturnLevels(rows: ModelRows, r: ReturnLevelRequest): ReturnLevelRows {
  const { returnLevels: rl } = r;
  const sign = rl.extreme === 'minimum' ? -1 : 1;
  const index = new Map(rows.models.map((m, i) => [m, i]));
  const windowFits: [string, GevFit][] = [];
  const baselineFits: [string, GevFit][] = [];
  const withoutFit: string[] = [];
  for (const model of r.models) {
    const i = index.get(model);
    const ids = i === undefined ? [] : rows.ids[i]!;
    const vals = i === undefined ? [] : rows.vals[i]!;
    const years = new Set(rl.window.modelYears?.get(model) ?? rl.window.years);
    const inWindow: number[] = [];
    const inBaseline: number[] = [];
    ids.forEach((id, k) => {
      const v = vals[k];
      if (v === null || v === undefined || !Number.isFinite(v)) return;
      if (id > 0 && years.has(id)) inWindow.push(v);
      else if (id < 0) inBaseline.push(v);
    });
    const fit = fitOf(inWindow, sign);
    const base = r.baseline ? fitOf(inBaseline, sign) : undefined;
    if (!fit || (r.baseline && !base)) {
      withoutFit.push(model);
      continue;
    }
    windowFits.push([model, fit]);
    if (base) baselineFits.push([model, base]);
  }

  const level = (fit: GevFit, years: number) => sign * returnLevel(fit, years);
  const stats = r.aggs.map((name) => [name, statistic(name)] as const);
  const capped: { period: string; models: string[] }[] = [];
  const periods = rl.periods.map((years): PeriodStats => {
    const values: number[] = [];
    const cappedHere: string[] = [];
    windowFits.forEach(([model, fit], m) => {
      const base = baselineFits[m]?.[1];
      if (rl.inverse) {
        // The baseline's event is its N-year level; under the window's fit (of the negated values
        // for minima) it recurs every returnPeriodOf years.
        const recurrence = returnPeriodOf(fit, sign * level(base!, years));
        if (recurrence > RETURN_PERIOD_CAP) cappedHere.push(model);
        values.push(Math.min(recurrence, RETURN_PERIOD_CAP));
        return;
      }
      const value = level(fit, years);
      if (!base || r.change === undefined) values.push(value);
      else {
        const b = level(base, years);
        if (r.change === 'absolute') values.push(value - b);
        else if (b !== 0) values.push((100.0 * (value - b)) / b);
      }
    });
    if (rl.inverse) capped.push({ period: String(years), models: cappedHere });
    const sorted = sortedValues(values);
    return { period: String(years), stats: stats.map(([name, stat]) => [name, stat(sorted)]) };
  });
  return {
    periods,
    withoutFit,
    ...(rl.inverse ? { capped } : {}),
    ...(rl.includeFit ? { fits: { window: windowFits, ...(r.baseline ? { baseline: baselineFits } : {}) } } : {}),
  };
}
