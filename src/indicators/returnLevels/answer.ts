import { dictionaryColumn, dictionaryIndices, floatColumn, ipcStream, type Column } from '../../http/arrowTable.js';
import { csvLine } from '../../http/csv.js';
import { WINDOW_YEARS } from '../../reference/warmingLevels.js';
import { LEFT_OUT_CSV_COLUMN, leftOutField, scenarioLabel } from '../indicatorCsv.js';
import { warmingHeadJson } from '../warmingJson.js';
import type { TableLabels } from '../../climate/tableLabels.js';
import { dataJson, indicatorHead } from '../indicatorData.js';
import { type IndicatorPlan } from '../indicatorPlan.js';
import type { GevFit } from './gev.js';
import type { FitMember, FitNotes, ReturnLevelRows } from './modelLevels.js';
import { type ReturnLevelPlan } from './params.js';
import { FIT_METHOD, RETURN_PERIOD_CAP } from './returnPeriods.js';

/**
 * A return-level answer in each format. JSON: the indicator answer's members, `return_levels`
 * (method, fitting window, return periods) before `data` keyed by return period, then the place's
 * `models_without_fit`, `models_capped` (the inverse) and `fit` (include=fit). CSV and Arrow: the
 * indicator table with the return period for the period and the fitting window beside the units;
 * with include=fit, each model's parameters as rows with a `model`. At warming levels `data` is keyed
 * by level then return period (as warming levels key theirs, each with its model_count), the
 * models' members by level with each model's scenario, and the tables gain a `warming_level` column.
 */

const rlOf = (plan: IndicatorPlan): ReturnLevelPlan => plan.returnLevels!;

/** The units of the answer's values: return periods are years. */
export const answerUnits = (plan: IndicatorPlan) => (rlOf(plan).inverse ? 'years' : plan.units);

const baselineWindow = (plan: IndicatorPlan) => (plan.relativeTo ? { scenario: 'historical', start_year: plan.relativeTo.start_year, end_year: plan.relativeTo.end_year } : undefined);

/** The `return_levels` member: what was fitted, over which years, and what the values are. */
export function returnLevelsJson(plan: IndicatorPlan) {
  const rl = rlOf(plan);
  return {
    method: FIT_METHOD,
    extreme: `yearly ${rl.extreme}`,
    fitting_window: rl.window.json,
    ...(plan.relativeTo ? { baseline_window: baselineWindow(plan) } : {}),
    ...(rl.inverse ? { baseline_return_periods: rl.periods, return_period_cap: RETURN_PERIOD_CAP } : { return_periods: rl.periods }),
    ...(rl.includeFit ? { fit_units: plan.units } : {}),
  };
}

/**
 * The members before `data`: the indicator answer's (units are years for the inverse, whose
 * relative_to has no change) and `return_levels`.
 */
export function returnLevelHead(plan: IndicatorPlan, indicatorJson: unknown): string {
  const rl = rlOf(plan);
  const head = indicatorHead({ ...plan, units: answerUnits(plan), relativeTo: rl.inverse ? undefined : plan.relativeTo }, indicatorJson);
  const relative = rl.inverse && plan.relativeTo ? `"relative_to":${JSON.stringify({ start_year: plan.relativeTo.start_year, end_year: plan.relativeTo.end_year })},` : '';
  return `${head}${relative}"return_levels":${JSON.stringify(returnLevelsJson(plan))},`;
}

/** A model's name, or at warming levels the model and its scenario. */
const memberJson = (m: FitMember) => (m.scenario === undefined ? m.model : { model: m.model, scenario: m.scenario });

/** include=fit: each model's fits keyed by model, or at warming levels a list of members with theirs. */
const fitsJson = (fits: FitNotes['fits'] & object, atLevels: boolean) => {
  const side = (list: [FitMember, GevFit][]) => (atLevels ? list.map(([m, fit]) => ({ model: m.model, scenario: m.scenario, ...fit })) : Object.fromEntries(list.map(([m, fit]) => [m.model, fit])));
  return { window: side(fits.window), ...(fits.baseline ? { baseline: side(fits.baseline) } : {}) };
};

const cappedJson = (capped: NonNullable<FitNotes['capped']>) => Object.fromEntries(capped.map((c) => [c.period, c.models.map(memberJson)]));

/** The place's members after `data`: models_without_fit, models_capped and fit, of the place or keyed by level. */
function notesMembers(rows: ReturnLevelRows): [string, unknown][] {
  const levels = rows.levels;
  const perLevel = <T>(f: (n: FitNotes) => T) => (levels ? Object.fromEntries(levels.map(([level, notes]) => [level, f(notes)])) : f(rows));
  const first = levels ? levels[0]?.[1] : rows;
  const out: [string, unknown][] = [['models_without_fit', perLevel((n) => n.withoutFit.map(memberJson))]];
  if (first?.capped) out.push(['models_capped', perLevel((n) => cappedJson(n.capped!))]);
  if (first?.fits) out.push(['fit', perLevel((n) => fitsJson(n.fits!, levels !== undefined))]);
  return out;
}

/**
 * `data` and the place's members after it, as one piece of text that follows `"data":` (so a batch
 * entry, written as the single answers are, carries them too).
 */
export function returnLevelDataJson(rows: ReturnLevelRows): string {
  return dataJson(rows.periods) + notesMembers(rows).map(([name, value]) => `,${JSON.stringify(name)}:${JSON.stringify(value)}`).join('');
}

// ---- tables ----

interface TableRow {
  level: string;
  period: string;
  statistic: string;
  value: number | null;
  units: string;
  model: string;
  /** At warming levels, the fitted model's scenario. */
  scenario: string;
}

/** The statistics' rows, then with include=fit each model's parameters (shape without units), level by level at warming levels. */
function tableRows(plan: IndicatorPlan, rows: ReturnLevelRows): TableRow[] {
  const units = answerUnits(plan);
  const out: TableRow[] = [];
  for (const { level, period, stats } of rows.periods) for (const [statistic, value] of stats) out.push({ level: level ?? '', period, statistic, value, units, model: '', scenario: '' });
  const fitRows = (level: string, fits: [FitMember, GevFit][], prefix: string) => {
    for (const [{ model, scenario = '' }, fit] of fits) {
      out.push({ level, period: '', statistic: `${prefix}location`, value: fit.location, units: plan.units, model, scenario });
      out.push({ level, period: '', statistic: `${prefix}scale`, value: fit.scale, units: plan.units, model, scenario });
      out.push({ level, period: '', statistic: `${prefix}shape`, value: fit.shape, units: '', model, scenario });
    }
  };
  for (const [level, notes] of rows.levels ?? [['', rows] as [string, FitNotes]]) {
    if (!notes.fits) continue;
    fitRows(level, notes.fits.window, '');
    if (notes.fits.baseline) fitRows(level, notes.fits.baseline, 'baseline_');
  }
  return out;
}

const periodColumn = (plan: IndicatorPlan) => (rlOf(plan).inverse ? 'baseline_return_period' : 'return_period');
const windowText = (plan: IndicatorPlan) => {
  if (plan.warming) return `each model's ${WINDOW_YEARS} years at the warming level`;
  const w = rlOf(plan).window.json as { scenario: string; start_year: number; end_year: number };
  return `${w.scenario} ${w.start_year}-${w.end_year}`;
};

/** The columns of a fit's model: its name, and at warming levels its scenario. */
const modelColumns = (plan: IndicatorPlan) => (rlOf(plan).includeFit ? ['model', ...(plan.warming ? ['model_scenario'] : [])] : []);

/** The CSV columns: the indicator table's, with the fitting window (and the baseline) after the units. */
export function returnLevelCsvHeader(plan: IndicatorPlan): string {
  const rl = rlOf(plan);
  const change = plan.relativeTo ? (rl.inverse ? ['relative_to'] : ['relative_to', 'change']) : [];
  return [
    'location', 'dataset', 'scenario', 'indicator', 'units', 'fitting_window', ...change, ...(plan.leftOut.length > 0 ? [LEFT_OUT_CSV_COLUMN] : []), ...(plan.warming ? ['warming_level'] : []), periodColumn(plan), 'statistic', 'value', ...modelColumns(plan),
  ].join(',') + '\n';
}

/** The CSV rows of one place, without the header. */
export function returnLevelCsvRows(plan: IndicatorPlan, labels: TableLabels, rows: ReturnLevelRows): string {
  const rl = rlOf(plan);
  const change = plan.relativeTo ? [`${plan.relativeTo.start_year}-${plan.relativeTo.end_year}`, ...(rl.inverse ? [] : [plan.relativeTo.change])] : [];
  // As the indicator tables say it: the request's models are not the models the levels are fitted over.
  if (plan.leftOut.length > 0) change.push(leftOutField(plan.leftOut));
  let out = '';
  for (const row of tableRows(plan, rows)) {
    const value = row.value === null || !Number.isFinite(row.value) ? '' : String(row.value);
    const model = rl.includeFit ? [row.model, ...(plan.warming ? [row.scenario] : [])] : [];
    out += csvLine([labels.location, labels.dataset, scenarioLabel(labels.scenario, plan.warming), plan.meta.name, row.units, windowText(plan), ...change, ...(plan.warming ? [row.level] : []), row.period, row.statistic, value, ...model]);
  }
  return out;
}

/** Strings of a dictionary column, in first-seen order, and each row's index. */
class Dictionary {
  readonly values: string[] = [];
  private index = new Map<string, number>();
  readonly rows: number[] = [];
  add(value: string) {
    let i = this.index.get(value);
    if (i === undefined) this.index.set(value, (i = this.values.push(value) - 1));
    this.rows.push(i);
  }
  column(name: string): Column {
    const indices = dictionaryIndices(this.values.length, this.rows.length);
    indices.set(this.rows);
    return dictionaryColumn(name, this.values, indices);
  }
}

/** Columns that lead each place's rows (a batch's place), added as the rows are. */
export interface LeadColumns<P> {
  add(place: P, rows: number): void;
  columns(): Column[];
}

/**
 * Return levels as one Arrow table: `return_period` (or `baseline_return_period`), `statistic`,
 * `value` (float64, null where the JSON has null; its field metadata the units), and with
 * include=fit `model` and `units` (the fits' rows are in the fitted values' units). The schema
 * metadata holds the answer's members: return_levels, relative_to, and per place (one place only)
 * models_without_fit and models_capped.
 */
export class ReturnLevelArrow<P = undefined> {
  private level = new Dictionary();
  private period = new Dictionary();
  private modelScenario = new Dictionary();
  private statistic = new Dictionary();
  private model = new Dictionary();
  private units = new Dictionary();
  private values: number[] = [];
  private placeMembers: [string, string][] = [];

  constructor(
    private readonly plan: IndicatorPlan,
    private readonly metadata: [string, string][],
    private readonly lead?: LeadColumns<P>,
  ) {}

  add(rows: ReturnLevelRows, place?: P) {
    const table = tableRows(this.plan, rows);
    for (const row of table) {
      this.level.add(row.level);
      this.modelScenario.add(row.scenario);
      this.period.add(row.period);
      this.statistic.add(row.statistic);
      this.model.add(row.model);
      this.units.add(row.units);
      this.values.push(row.value === null || !Number.isFinite(row.value) ? NaN : row.value);
    }
    if (this.lead) this.lead.add(place as P, table.length);
    else this.placeMembers = notesMembers(rows).filter(([name]) => name !== 'fit').map(([name, value]) => [name, JSON.stringify(value)]);
  }

  toIPC(): Uint8Array {
    const { plan } = this;
    const rl = rlOf(plan);
    const values = Float64Array.from(this.values, (v) => (Number.isNaN(v) ? 0 : v));
    const valid = Uint8Array.from(this.values, (v) => (Number.isNaN(v) ? 0 : 1));
    return ipcStream(
      [
        ...(this.lead?.columns() ?? []),
        ...(plan.warming ? [this.level.column('warming_level')] : []),
        this.period.column(periodColumn(plan)),
        this.statistic.column('statistic'),
        floatColumn('value', values, new Map([['units', answerUnits(plan)]]), valid),
        ...(rl.includeFit ? [this.model.column('model'), ...(plan.warming ? [this.modelScenario.column('model_scenario')] : []), this.units.column('units')] : []),
      ],
      new Map([
        ...this.metadata,
        ['indicator', plan.meta.name],
        ['time_aggregation', plan.timeAggregation],
        ['units', answerUnits(plan)],
        ['climate_models', JSON.stringify(plan.models)],
        ...(plan.leftOut.length > 0 ? [['models_left_out', JSON.stringify(plan.leftOut)] as [string, string]] : []),
        ['return_levels', JSON.stringify(returnLevelsJson(plan))],
        ...(plan.warming ? [['warming_levels', warmingHeadJson(plan.warming)] as [string, string]] : []),
        ...(plan.relativeTo ? [['relative_to', JSON.stringify(rl.inverse ? { start_year: plan.relativeTo.start_year, end_year: plan.relativeTo.end_year } : plan.relativeTo)] as [string, string]] : []),
        ...this.placeMembers,
      ]),
    );
  }
}
