import { Data, Field, Int32, makeData } from 'apache-arrow';
import { dailyArrowRows } from '../climate/rawArrow.js';
import { dailyDataCsv } from '../climate/rawCsv.js';
import type { DailyColumns } from '../climate/rawData.js';
import type { RawDataPlan } from '../climate/rawDataPlan.js';
import { tableLabels, VARIABLE_UNITS } from '../climate/tableLabels.js';
import { dateColumn, dictionaryColumn, dictionaryIndices, floatColumn, intColumn, ipcStream, type Column } from '../http/arrowTable.js';
import { csvLine } from '../http/csv.js';
import { indicatorCsv, scenarioLabel } from '../indicators/indicatorCsv.js';
import { warmingHeadJson } from '../indicators/warmingJson.js';
import type { IndicatorPlan } from '../indicators/indicatorPlan.js';
import type { PeriodStats } from '../indicators/query.js';
import { ReturnLevelArrow, returnLevelCsvHeader, returnLevelCsvRows } from '../indicators/returnLevels/answer.js';
import type { ReturnLevelRows } from '../indicators/returnLevels/modelLevels.js';
import type { BatchPlace } from './batchBody.js';
import type { ResolvedPlace } from './batchPlaces.js';

/**
 * A batch as one table: the single endpoint's CSV or Arrow rows of each place, in the request's
 * order, after the place as the request gave it (`city`, `lat`, `lon`; empty where not given).
 * The single tables' `location` column (`city/<id>` or `map-cell/<lat>/<lon>`) stays: it is the
 * cell read. A place without data has no rows; the JSON and NDJSON answers say why.
 */
export const PLACE_COLUMNS = ['city', 'lat', 'lon'];

const placeFields = (p: BatchPlace) => (p.kind === 'city' ? [String(p.city), '', ''] : ['', String(p.lat), String(p.lon)]);

/** The CSV lines of one place: the single CSV without its header, each line led by the place. */
function ledLines(place: BatchPlace, lines: string[]): string {
  const lead = csvLine(placeFields(place)).slice(0, -1) + ',';
  let out = '';
  for (const line of lines) out += lead + line;
  return out;
}

/** Splits a CSV text into its lines, each with its newline; no field of these tables holds one. */
const lines = (csv: string) => csv.split(/(?<=\n)/).filter((l) => l.length > 0);

export function indicatorCsvHeader(plan: IndicatorPlan): string {
  const ctx = { labels: { location: '', feature: '', dataset: '', scenario: '', fileStem: '' }, indicator: plan.meta.name, units: plan.units, relativeTo: plan.relativeTo, warming: plan.warming, leftOut: plan.leftOut };
  return PLACE_COLUMNS.join(',') + ',' + indicatorCsv([], ctx);
}

export function indicatorCsvRows(plan: IndicatorPlan, resolved: ResolvedPlace, rows: PeriodStats[]): string {
  const labels = tableLabels(resolved.location, plan.dataset, plan.scenario);
  return ledLines(resolved.place, lines(indicatorCsv(rows, { labels, indicator: plan.meta.name, units: plan.units, relativeTo: plan.relativeTo, warming: plan.warming, leftOut: plan.leftOut })).slice(1));
}

export function returnLevelBatchCsvHeader(plan: IndicatorPlan): string {
  return PLACE_COLUMNS.join(',') + ',' + returnLevelCsvHeader(plan);
}

export function returnLevelBatchCsvRows(plan: IndicatorPlan, resolved: ResolvedPlace, rows: ReturnLevelRows): string {
  return ledLines(resolved.place, lines(returnLevelCsvRows(plan, tableLabels(resolved.location, plan.dataset, plan.scenario), rows)));
}

/** Return levels of a batch as one Arrow table: the place columns, then the single table's columns. */
export function returnLevelBatchArrow(plan: IndicatorPlan) {
  const places = new PlaceColumns();
  const table = new ReturnLevelArrow<ResolvedPlace>(plan, [['dataset', plan.dataset.name], ['scenario', scenarioLabel(plan.scenario.name, plan.warming)]], {
    add: (resolved, rows) => places.add(resolved, plan, rows),
    columns: () => places.columns(),
  });
  return { add: (resolved: ResolvedPlace, rows: ReturnLevelRows) => table.add(rows, resolved), toIPC: () => table.toIPC() };
}

export function rawCsvHeader(plan: RawDataPlan): string {
  const labels = { location: '', feature: '', dataset: '', scenario: '', fileStem: '' };
  return PLACE_COLUMNS.join(',') + ',' + dailyDataCsv(undefined, plan.variables, plan.agg, labels)[0]!;
}

export function rawCsvRows(plan: RawDataPlan, resolved: ResolvedPlace, cols: DailyColumns | undefined): string {
  const labels = tableLabels(resolved.location, plan.dataset, plan.scenario);
  return ledLines(resolved.place, dailyDataCsv(cols, plan.variables, plan.agg, labels).slice(1));
}

/** The place columns and `location` of an Arrow batch table, one entry per row. */
class PlaceColumns {
  private city: number[] = [];
  private lat: number[] = [];
  private lon: number[] = [];
  private location: number[] = [];
  private locations: string[] = [];
  private locationIndex = new Map<string, number>();

  add(resolved: ResolvedPlace, plan: { dataset: IndicatorPlan['dataset']; scenario: IndicatorPlan['scenario'] }, rows: number) {
    const path = tableLabels(resolved.location, plan.dataset, plan.scenario).location;
    let li = this.locationIndex.get(path);
    if (li === undefined) this.locationIndex.set(path, (li = this.locations.push(path) - 1));
    const p = resolved.place;
    for (let i = 0; i < rows; i++) {
      this.city.push(p.kind === 'city' ? p.city : NaN);
      this.lat.push(p.kind === 'point' ? p.lat : NaN);
      this.lon.push(p.kind === 'point' ? p.lon : NaN);
      this.location.push(li);
    }
  }

  columns(): Column[] {
    const n = this.city.length;
    const location = dictionaryIndices(this.locations.length, n);
    location.set(this.location);
    return [
      nullableInt32('city', this.city),
      nullableFloat64('lat', this.lat),
      nullableFloat64('lon', this.lon),
      dictionaryColumn('location', this.locations, location),
    ];
  }
}

/** NaN marks a null. */
function nullableFloat64(name: string, values: number[]): Column {
  const valid = Uint8Array.from(values, (v) => (Number.isNaN(v) ? 0 : 1));
  return floatColumn(name, Float64Array.from(values, (v) => (Number.isNaN(v) ? 0 : v)), new Map(), valid);
}

/** NaN marks a null. */
function nullableInt32(name: string, values: number[]): Column {
  const data = Int32Array.from(values, (v) => (Number.isNaN(v) ? 0 : v));
  const nullBitmap = new Uint8Array((values.length + 7) >> 3);
  let nullCount = 0;
  values.forEach((v, i) => {
    if (Number.isNaN(v)) nullCount++;
    else nullBitmap[i >> 3]! |= 1 << (i & 7);
  });
  const type = new Int32();
  return { field: new Field(name, type, true), data: makeData({ type, length: values.length, data, nullBitmap: nullCount > 0 ? nullBitmap : undefined, nullCount }) as Data };
}

/**
 * An indicator batch as one Arrow table: the place columns, then the single table's period,
 * statistic, value (at warming levels: warming_level, period, statistic, value, model_count).
 */
export class IndicatorArrowBatch {
  private places = new PlaceColumns();
  private periods: string[] = [];
  private periodIndex = new Map<string, number>();
  private stats: string[] = [];
  private statIndex = new Map<string, number>();
  private levels: string[] = [];
  private levelIndex = new Map<string, number>();
  private period: number[] = [];
  private statistic: number[] = [];
  private values: number[] = [];
  private level: number[] = [];
  private counts: number[] = [];

  constructor(private readonly plan: IndicatorPlan) {}

  add(resolved: ResolvedPlace, rows: PeriodStats[]) {
    let n = 0;
    for (const { period, stats, level, modelCount } of rows) {
      let pi = this.periodIndex.get(period);
      if (pi === undefined) this.periodIndex.set(period, (pi = this.periods.push(period) - 1));
      let li = this.levelIndex.get(level ?? '');
      if (li === undefined) this.levelIndex.set(level ?? '', (li = this.levels.push(level ?? '') - 1));
      for (const [name, value] of stats) {
        let si = this.statIndex.get(name);
        if (si === undefined) this.statIndex.set(name, (si = this.stats.push(name) - 1));
        this.period.push(pi);
        this.statistic.push(si);
        this.values.push(value === null || !Number.isFinite(value) ? NaN : value);
        this.level.push(li);
        this.counts.push(modelCount ?? 0);
        n++;
      }
    }
    this.places.add(resolved, this.plan, n);
  }

  toIPC(): Uint8Array {
    const { plan } = this;
    const n = this.values.length;
    const period = dictionaryIndices(this.periods.length, n);
    period.set(this.period);
    const statistic = dictionaryIndices(this.stats.length, n);
    statistic.set(this.statistic);
    const value = nullableFloat64('value', this.values);
    const level = dictionaryIndices(this.levels.length, n);
    level.set(this.level);
    return ipcStream(
      [
        ...this.places.columns(),
        ...(plan.warming ? [dictionaryColumn('warming_level', this.levels, level)] : []),
        dictionaryColumn('period', this.periods, period),
        dictionaryColumn('statistic', this.stats, statistic),
        { field: new Field('value', value.field.type, true, new Map([['units', plan.units]])), data: value.data },
        ...(plan.warming ? [intColumn('model_count', Int32Array.from(this.counts))] : []),
      ],
      new Map([
        ['dataset', plan.dataset.name],
        ['scenario', scenarioLabel(plan.scenario.name, plan.warming)],
        ['indicator', plan.meta.name],
        ['time_aggregation', plan.timeAggregation],
        ['units', plan.units],
        ['climate_models', JSON.stringify(plan.models)],
        ...(plan.relativeTo ? [['relative_to', JSON.stringify(plan.relativeTo)] as [string, string]] : []),
        ...(plan.warming ? [['warming_levels', warmingHeadJson(plan.warming)] as [string, string]] : []),
      ]),
    );
  }
}

/** A raw-data batch as one Arrow table: the place columns, then the single table's date, model, variable, value. */
export class RawArrowBatch {
  private places = new PlaceColumns();
  private parts: ReturnType<typeof dailyArrowRows>[] = [];

  constructor(private readonly plan: RawDataPlan) {}

  add(resolved: ResolvedPlace, cols: DailyColumns | undefined) {
    const rows = dailyArrowRows(cols, this.plan.variables);
    this.parts.push(rows);
    this.places.add(resolved, this.plan, rows.n);
  }

  toIPC(): Uint8Array {
    const { plan } = this;
    const n = this.parts.reduce((sum, p) => sum + p.n, 0);
    const days = new Int32Array(n);
    const variable = dictionaryIndices(plan.variables.length, n);
    const values = new Float32Array(n);
    let at = 0;
    for (const p of this.parts) {
      days.set(p.days, at);
      variable.set(p.variable, at);
      values.set(p.values, at);
      at += p.n;
    }
    const units = JSON.stringify(Object.fromEntries(plan.variables.map((v) => [v, VARIABLE_UNITS[v]])));
    return ipcStream(
      [
        ...this.places.columns(),
        dateColumn('date', days),
        dictionaryColumn('model', [plan.agg], dictionaryIndices(1, n)),
        dictionaryColumn('variable', plan.variables, variable),
        floatColumn('value', values, new Map([['units', units]])),
      ],
      new Map([
        ['dataset', plan.dataset.name],
        ['scenario', plan.scenario.name],
        ['agg', plan.agg],
        ['climate_models', JSON.stringify(plan.models)],
      ]),
    );
  }
}
