import { csvLine } from '../http/csv.js';
import { monthDayTexts } from './calendar.js';
import { float32Text } from './numbers.js';
import type { Variable } from './params.js';
import type { DailyColumns } from './rawData.js';
import { VARIABLE_UNITS, type TableLabels } from './tableLabels.js';

/** A value the tables show: not null, and not NaN should a faster query mark missing values that way. */
export const hasValue = (v: number | null | undefined): v is number => v !== null && v !== undefined && !Number.isNaN(v);

export const RAW_CSV_COLUMNS = ['location', 'dataset', 'scenario', 'units', 'date', 'model', 'variable', 'value'];

/**
 * The raw daily values as tidy CSV, one row per (date, variable) value, dates ascending and the
 * variables in request order within a date. `model` is the aggregate across the chosen models (avg,
 * min, max). Days without a value (Feb 29 when no chosen model has one) have no row, and the JSON's
 * padding slot 365 of common years is not a day at all. Values print as the JSON does: the shortest
 * decimal of the stored float32.
 */
export function dailyDataCsv(cols: DailyColumns | undefined, variables: Variable[], agg: string, labels: TableLabels): string {
  const header = RAW_CSV_COLUMNS.join(',') + '\n';
  if (!cols) return header;
  // The fields around date and value are the same on every row of a variable: joined (and quoted) once.
  const lead = variables.map((v) => csvLine([labels.location, labels.dataset, labels.scenario, VARIABLE_UNITS[v]]).slice(0, -1) + ',');
  const mid = variables.map((v) => ',' + csvLine([agg, v]).slice(0, -1) + ',');
  const series = variables.map((v) => cols.values.get(v)!);
  const parts: string[] = [header];
  let year = NaN;
  let days: string[] = [];
  let yearText = '';
  for (let i = 0; i < cols.year.length; i++) {
    if (cols.year[i] !== year) {
      year = cols.year[i]!;
      days = monthDayTexts(year);
      yearText = `${year}-`;
    }
    const date = yearText + days[cols.slot[i]!];
    for (let k = 0; k < variables.length; k++) {
      const value = series[k]![i];
      if (hasValue(value)) parts.push(lead[k] + date + mid[k] + float32Text(value) + '\n');
    }
  }
  return parts.join('');
}
