import { sortedValues, statistic } from '../acrossModels.js';
import type { ModelRows } from '../periodChanges.js';
import type { PeriodStats } from '../query.js';
import { fitGev, returnLevel, returnPeriodOf, type GevFit } from './gev.js';
import { type ReturnLevelPlan } from './params.js';
import { MIN_FIT_YEARS, RETURN_PERIOD_CAP } from './returnPeriods.js';

/**
 * Who a fit belongs to: a model, and at warming levels its scenario too (pooled, a model is a
 * member once per scenario it reaches the level in).
 */
export interface FitMember {
  model: string;
  scenario?: string;
}

/** What an answer says of its models: those left out, those capped (the inverse), and the fits (include=fit). */
export interface FitNotes {
  /** The models left out: fewer than MIN_FIT_YEARS yearly values in the window (or the baseline), or values without spread. */
  withoutFit: FitMember[];
  /** baseline_return_period: per return period, the models whose answer was beyond RETURN_PERIOD_CAP years and is the cap. */
  capped?: { period: string; models: FitMember[] }[];
  /** include=fit: each model's fit over the window and, with a baseline, over the baseline years. */
  fits?: { window: [FitMember, GevFit][]; baseline?: [FitMember, GevFit][] };
}

/** One place's return levels: per return period the statistics across models, and what the answer says of the models. */
export interface ReturnLevelRows extends FitNotes {
  /** Keyed by return period ("20"), ascending; at warming levels by level, then return period, each with its model count. */
  periods: PeriodStats[];
  /** At warming levels, each level's notes (then the place's own are empty). */
  levels?: [string, FitNotes][];
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

/** A member's yearly extremes: over its fitting window, and over the baseline's years. */
export interface MemberSeries {
  member: FitMember;
  window: number[];
  baseline: number[];
}

/** A model's fit to its values, as maxima: minima are fitted as maxima of the negated values. */
function fitOf(values: number[], sign: number): GevFit | undefined {
  if (values.length < MIN_FIT_YEARS) return undefined;
  return fitGev(values.map((v) => sign * v));
}

const finite = (v: number | null | undefined): v is number => v !== null && v !== undefined && Number.isFinite(v);

/**
 * Per return period, the statistics across members of each member's value: its N-year return level
 * over its window; with a baseline, its change against its baseline's N-year level (absolute or
 * percent, as relative_to's changes); with `inverse`, the return period under its window's fit of
 * its baseline's N-year level, capped at RETURN_PERIOD_CAP. `level` labels the rows at a warming level.
 */
export function seriesReturnLevels(series: MemberSeries[], r: ReturnLevelRequest, level?: string): { periods: PeriodStats[]; notes: FitNotes } {
  const { returnLevels: rl } = r;
  const sign = rl.extreme === 'minimum' ? -1 : 1;
  const windowFits: [FitMember, GevFit][] = [];
  const baselineFits: [FitMember, GevFit][] = [];
  const withoutFit: FitMember[] = [];
  for (const { member, window, baseline } of series) {
    const fit = fitOf(window, sign);
    const base = r.baseline ? fitOf(baseline, sign) : undefined;
    if (!fit || (r.baseline && !base)) {
      withoutFit.push(member);
      continue;
    }
    windowFits.push([member, fit]);
    if (base) baselineFits.push([member, base]);
  }

  const levelOf = (fit: GevFit, years: number) => sign * returnLevel(fit, years);
  const stats = r.aggs.map((name) => [name, statistic(name)] as const);
  const capped: { period: string; models: FitMember[] }[] = [];
  const periods = rl.periods.map((years): PeriodStats => {
    const values: number[] = [];
    const cappedHere: FitMember[] = [];
    windowFits.forEach(([member, fit], m) => {
      const base = baselineFits[m]?.[1];
      if (rl.inverse) {
        // The baseline's event is its N-year level; under the window's fit (of the negated values
        // for minima) it recurs every returnPeriodOf years.
        const recurrence = returnPeriodOf(fit, sign * levelOf(base!, years));
        if (recurrence > RETURN_PERIOD_CAP) cappedHere.push(member);
        values.push(Math.min(recurrence, RETURN_PERIOD_CAP));
        return;
      }
      const value = levelOf(fit, years);
      if (!base || r.change === undefined) values.push(value);
      else {
        const b = levelOf(base, years);
        if (r.change === 'absolute') values.push(value - b);
        else if (b !== 0) values.push((100.0 * (value - b)) / b);
      }
    });
    if (rl.inverse) capped.push({ period: String(years), models: cappedHere });
    const sorted = sortedValues(values);
    const row: PeriodStats = { period: String(years), stats: stats.map(([name, stat]) => [name, stat(sorted)]) };
    return level === undefined ? row : { ...row, level, modelCount: values.length };
  });
  return {
    periods,
    notes: {
      withoutFit,
      ...(rl.inverse ? { capped } : {}),
      ...(rl.includeFit ? { fits: { window: windowFits, ...(r.baseline ? { baseline: baselineFits } : {}) } } : {}),
    },
  };
}

/**
 * The return levels of a place from period_models's rows: each model's yearly values, the window's
 * years (positive ids) and the baseline's
 * (negative ids); a model asked for without values is left out and named.
 */
export function modelReturnLevels(rows: ModelRows, r: ReturnLevelRequest): ReturnLevelRows {
  const { returnLevels: rl } = r;
  const index = new Map(rows.models.map((m, i) => [m, i]));
  const series = r.models.map((model): MemberSeries => {
    const i = index.get(model);
    const ids = i === undefined ? [] : rows.ids[i]!;
    const vals = i === undefined ? [] : rows.vals[i]!;
    const years = new Set(rl.window.years);
    const window: number[] = [];
    const baseline: number[] = [];
    ids.forEach((id, k) => {
      const v = vals[k];
      if (!finite(v)) return;
      if (id > 0 && years.has(id)) window.push(v);
      else if (id < 0) baseline.push(v);
    });
    return { member: { model }, window, baseline };
  });
  const { periods, notes } = seriesReturnLevels(series, r);
  return { periods, ...notes };
}
