import { dictionaryColumn, dictionaryIndices, floatColumn, intColumn, ipcStream, type Column } from '../http/arrowTable.js';
import { scenarioLabel, type IndicatorTableContext } from './indicatorCsv.js';
import type { PeriodStats } from './query.js';
import { warmingHeadJson } from './warmingJson.js';

export interface IndicatorArrowContext extends IndicatorTableContext {
  timeAggregation: string;
  models: string[];
}

/**
 * An indicator's answer as an Arrow IPC stream with the rows of the CSV: period and statistic
 * (dictionaries, in first-seen order), value (float64, null where the JSON has null). The value
 * field's metadata holds `units`; the schema metadata the location, its GeoJSON feature, dataset,
 * scenario, indicator, time aggregation and models, and relative_to (JSON) for changes. At warming
 * levels a `warming_level` column (dictionary) comes first and `model_count` (int32) last, and the
 * schema metadata has the answer's `warming_levels` (JSON). Models left out for lacking the
 * indicator's inputs are the schema metadata's `models_left_out` (JSON, as in the JSON answer).
 */
export function indicatorArrow(rows: PeriodStats[], ctx: IndicatorArrowContext): Uint8Array {
  const n = rows.reduce((sum, r) => sum + r.stats.length, 0);
  const statNames: string[] = [];
  const statIndex = new Map<string, number>();
  for (const r of rows) for (const [name] of r.stats) if (!statIndex.has(name)) statIndex.set(name, statNames.push(name) - 1);

  const { warming } = ctx;
  // Periods repeat across levels at warming levels; plain answers have each once.
  const periodNames = [...new Set(rows.map((r) => r.period))];
  const levelNames = [...new Set(rows.map((r) => r.level ?? ''))];
  const periodIndex = new Map(periodNames.map((p, i) => [p, i]));
  const levelIndex = new Map(levelNames.map((l, i) => [l, i]));
  const period = dictionaryIndices(periodNames.length, n);
  const level = dictionaryIndices(levelNames.length, n);
  const counts = new Int32Array(n);
  const statistic = dictionaryIndices(statNames.length, n);
  const values = new Float64Array(n);
  const valid = new Uint8Array(n);
  let row = 0;
  rows.forEach((r) => {
    for (const [name, value] of r.stats) {
      period[row] = periodIndex.get(r.period)!;
      level[row] = levelIndex.get(r.level ?? '')!;
      counts[row] = r.modelCount ?? 0;
      statistic[row] = statIndex.get(name)!;
      if (value !== null && Number.isFinite(value)) {
        values[row] = value;
        valid[row] = 1;
      }
      row++;
    }
  });

  const { labels } = ctx;
  const columns: Column[] = [
    dictionaryColumn('period', periodNames, period),
    dictionaryColumn('statistic', statNames, statistic),
    floatColumn('value', values, new Map([['units', ctx.units]]), valid),
  ];
  if (warming) columns.unshift(dictionaryColumn('warming_level', levelNames, level));
  if (warming) columns.push(intColumn('model_count', counts));
  return ipcStream(
    columns,
    new Map([
      ['location', labels.location],
      ['location_feature', labels.feature],
      ['dataset', labels.dataset],
      ['scenario', scenarioLabel(labels.scenario, warming)],
      ['indicator', ctx.indicator],
      ['time_aggregation', ctx.timeAggregation],
      ['units', ctx.units],
      ['climate_models', JSON.stringify(ctx.models)],
      ...(ctx.relativeTo ? [['relative_to', JSON.stringify(ctx.relativeTo)] as [string, string]] : []),
      ...(warming ? [['warming_levels', warmingHeadJson(warming)] as [string, string]] : []),
      ...(ctx.leftOut?.length ? [['models_left_out', JSON.stringify(ctx.leftOut)] as [string, string]] : []),
    ]),
  );
}
