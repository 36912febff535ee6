import type { TableLabels } from '../climate/tableLabels.js';
import { csvField, csvLine } from '../http/csv.js';
import type { PeriodStats } from './query.js';

export const INDICATOR_CSV_COLUMNS = ['location', 'dataset', 'scenario', 'indicator', 'units', 'period', 'statistic', 'value'];

export interface IndicatorTableContext {
  labels: TableLabels;
  indicator: string;
  units: string;
}

/**
 * An indicator's answer as tidy CSV: one row per (period, statistic) in the JSON's order. A
 * statistic the JSON shows as null (undefined for the models' values) is a row with an empty value:
 * it was asked for, so its row stays.
 */
export function indicatorCsv(rows: PeriodStats[], ctx: IndicatorTableContext): string {
  const { labels } = ctx;
  const lead = csvLine([labels.location, labels.dataset, labels.scenario, ctx.indicator, ctx.units]).slice(0, -1) + ',';
  const parts = [INDICATOR_CSV_COLUMNS.join(',') + '\n'];
  for (const { period, stats } of rows) {
    const p = lead + csvField(period) + ',';
    for (const [name, value] of stats) {
      parts.push(p + csvField(name) + ',' + (value === null || !Number.isFinite(value) ? '' : String(value)) + '\n');
    }
  }
  return parts.join('');
}
