import { dateColumn, dictionaryColumn, dictionaryIndices, floatColumn, ipcStream } from '../http/arrowTable.js';
import { epochDay } from './calendar.js';
import type { Variable } from './params.js';
import type { DailyColumns } from './rawData.js';
import { hasValue } from './rawCsv.js';
import { VARIABLE_UNITS, type TableLabels } from './tableLabels.js';

export interface RawArrowContext {
  labels: TableLabels;
  agg: string;
  models: string[];
}

/**
 * The raw daily values as an Arrow IPC stream with the rows of the CSV: date (date32), model
 * (dictionary: the aggregate name), variable (dictionary), value (float32, as stored). Unlike the
 * CSV, rows are ordered by date, then variable (request order): a date32 column repeating each day
 * once per variable compresses far better than one counting up through each variable's run (gzip
 * 400 KB instead of 578 KB for the raw century). The value field's `units` metadata maps each
 * variable to its units (JSON object); the schema metadata holds the location, its GeoJSON feature,
 * dataset, scenario, aggregate and the models aggregated.
 */
export function dailyDataArrow(cols: DailyColumns | undefined, variables: Variable[], ctx: RawArrowContext): Uint8Array {
  const { days, variable, values, n } = dailyArrowRows(cols, variables);
  const units = JSON.stringify(Object.fromEntries(variables.map((v) => [v, VARIABLE_UNITS[v]])));
  const { labels } = ctx;
  return ipcStream(
    [
      dateColumn('date', days),
      dictionaryColumn('model', [ctx.agg], dictionaryIndices(1, n)),
      dictionaryColumn('variable', variables, variable),
      floatColumn('value', values, new Map([['units', units]])),
    ],
    new Map([
      ['location', labels.location],
      ['location_feature', labels.feature],
      ['dataset', labels.dataset],
      ['scenario', labels.scenario],
      ['agg', ctx.agg],
      ['climate_models', JSON.stringify(ctx.models)],
    ]),
  );
}

/** The rows of the raw Arrow table as typed arrays: days since 1970-01-01, variable index, value. */
export function dailyArrowRows(cols: DailyColumns | undefined, variables: Variable[]) {
  const series = cols ? variables.map((v) => cols.values.get(v)!) : [];
  const rowCount = cols?.year.length ?? 0;
  let n = 0;
  for (const s of series) for (let i = 0; i < rowCount; i++) if (hasValue(s[i])) n++;

  const days = new Int32Array(n);
  const variable = dictionaryIndices(variables.length, n);
  const values = new Float32Array(n);
  let row = 0;
  let year = NaN;
  let jan1 = 0;
  for (let i = 0; i < rowCount; i++) {
    if (cols!.year[i] !== year) {
      year = cols!.year[i]!;
      jan1 = epochDay(year);
    }
    const day = jan1 + cols!.slot[i]!;
    for (let k = 0; k < series.length; k++) {
      const value = series[k]![i];
      if (!hasValue(value)) continue;
      days[row] = day;
      variable[row] = k;
      values[row] = value;
      row++;
    }
  }
  return { days, variable, values, n };
}
