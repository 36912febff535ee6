import type { TableLabels } from '../climate/tableLabels.js';
import { csvField, csvLine } from '../http/csv.js';
import type { Baseline } from './params.js';
import type { PeriodStats } from './query.js';
import type { WarmingPlan } from './warmingPlan.js';

export const INDICATOR_CSV_COLUMNS = ['location', 'dataset', 'scenario', 'indicator', 'units', 'period', 'statistic', 'value'];
/** Added after units when the values are changes against a baseline: its years ("1971-2000") and the change's kind. */
export const CHANGE_CSV_COLUMNS = ['relative_to', 'change'];
/** Added before the period (after relative_to and change) when models without the indicator's inputs were left out. */
export const LEFT_OUT_CSV_COLUMN = 'models_left_out';

/** A model left out of an answer for lacking variables (the JSON answer's models_left_out). */
export interface LeftOutModel {
  model: string;
  lacks: string[];
}

/** The CSV's models_left_out field: `NESM3: hurs huss; BCC-CSM2-MR: hurs` (the JSON's list, in its order). */
export const leftOutField = (leftOut: LeftOutModel[]) => leftOut.map((x) => `${x.model}: ${x.lacks.join(' ')}`).join('; ');

/** The scenario column of an answer: the scenarios pooled at warming levels joined by '+' (RCP45+RCP85), else the one asked. */
export const scenarioLabel = (scenario: string, warming: WarmingPlan | undefined) => (warming?.pooled ? warming.scenarios.join('+') : scenario);

export interface IndicatorTableContext {
  labels: TableLabels;
  indicator: string;
  units: string;
  /** The JSON answer's relative_to, when the values are changes against a baseline. */
  relativeTo?: Baseline;
  /** At warming levels: the rows have a level and a model count. */
  warming?: WarmingPlan;
  /** The models asked for but left out for lacking the indicator's inputs (JSON: models_left_out). */
  leftOut?: LeftOutModel[];
}

/**
 * An indicator's answer as tidy CSV: one row per (period, statistic) in the JSON's order. At
 * warming levels a `warming_level` column comes before `period` (then the month, quarter or span of
 * the year, empty for yearly values) and `model_count` after `value`. A
 * statistic the JSON shows as null (undefined for the models' values) is a row with an empty value:
 * it was asked for, so its row stays. A change against a baseline says so in every row (a table
 * read without its header must not pass changes off as values); so does an answer that left
 * models out for lacking the indicator's inputs (`models_left_out`: the request's `models` are not
 * the models the values are taken over); a plain answer keeps the columns it always had.
 */
export function indicatorCsv(rows: PeriodStats[], ctx: IndicatorTableContext): string {
  const { labels, relativeTo, warming, leftOut } = ctx;
  const fixed = [labels.location, labels.dataset, scenarioLabel(labels.scenario, warming), ctx.indicator, ctx.units];
  const columns = [...INDICATOR_CSV_COLUMNS];
  if (relativeTo) {
    fixed.push(`${relativeTo.start_year}-${relativeTo.end_year}`, relativeTo.change);
    columns.splice(columns.indexOf('units') + 1, 0, ...CHANGE_CSV_COLUMNS);
  }
  if (leftOut && leftOut.length > 0) {
    fixed.push(leftOutField(leftOut));
    columns.splice(columns.indexOf('period'), 0, LEFT_OUT_CSV_COLUMN);
  }
  if (warming) columns.splice(columns.indexOf('period'), 0, 'warming_level');
  if (warming) columns.push('model_count');
  const lead = csvLine(fixed).slice(0, -1) + ',';
  const parts = [columns.join(',') + '\n'];
  for (const { period, stats, level, modelCount } of rows) {
    const p = lead + (warming ? csvField(level!) + ',' : '') + csvField(period) + ',';
    const count = warming ? `,${modelCount}` : '';
    for (const [name, value] of stats) {
      parts.push(p + csvField(name) + ',' + (value === null || !Number.isFinite(value) ? '' : String(value)) + count + '\n');
    }
  }
  return parts.join('');
}
