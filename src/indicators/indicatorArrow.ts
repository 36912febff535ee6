import { dictionaryColumn, dictionaryIndices, floatColumn, ipcStream } from '../http/arrowTable.js';
import type { IndicatorTableContext } from './indicatorCsv.js';
import type { PeriodStats } from './query.js';

export interface IndicatorArrowContext extends IndicatorTableContext {
  timeAggregation: string;
  models: string[];
}

/**
 * An indicator's answer as an Arrow IPC stream with the rows of the CSV: period and statistic
 * (dictionaries, in first-seen order), value (float64, null where the JSON has null). The value
 * field's metadata holds `units`; the schema metadata the location, its GeoJSON feature, dataset,
 * scenario, indicator, time aggregation and models, and relative_to (JSON) for changes.
 */
export function indicatorArrow(rows: PeriodStats[], ctx: IndicatorArrowContext): Uint8Array {
  const n = rows.reduce((sum, r) => sum + r.stats.length, 0);
  const statNames: string[] = [];
  const statIndex = new Map<string, number>();
  for (const r of rows) for (const [name] of r.stats) if (!statIndex.has(name)) statIndex.set(name, statNames.push(name) - 1);

  const period = dictionaryIndices(rows.length, n);
  const statistic = dictionaryIndices(statNames.length, n);
  const values = new Float64Array(n);
  const valid = new Uint8Array(n);
  let row = 0;
  rows.forEach((r, p) => {
    for (const [name, value] of r.stats) {
      period[row] = p;
      statistic[row] = statIndex.get(name)!;
      if (value !== null && Number.isFinite(value)) {
        values[row] = value;
        valid[row] = 1;
      }
      row++;
    }
  });

  const { labels } = ctx;
  return ipcStream(
    [
      dictionaryColumn('period', rows.map((r) => r.period), period),
      dictionaryColumn('statistic', statNames, statistic),
      floatColumn('value', values, new Map([['units', ctx.units]]), valid),
    ],
    new Map([
      ['location', labels.location],
      ['location_feature', labels.feature],
      ['dataset', labels.dataset],
      ['scenario', labels.scenario],
      ['indicator', ctx.indicator],
      ['time_aggregation', ctx.timeAggregation],
      ['units', ctx.units],
      ['climate_models', JSON.stringify(ctx.models)],
      ...(ctx.relativeTo ? [['relative_to', JSON.stringify(ctx.relativeTo)] as [string, string]] : []),
    ]),
  );
}
