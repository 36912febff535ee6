import { badRequest } from '../http/errors.js';
import type { HistoricRange } from '../reference/catalog.js';
import { single } from '../climate/params.js';
import { VALID_AGGREGATIONS, type IndicatorMeta } from './metadata.js';

/** Indicator-specific query parameters, validated into the values the SQL templates read. */

export type TimeAggregation = (typeof VALID_AGGREGATIONS)[number];
export interface Span {
  s: number;
  e: number;
}

const NAMED_AGGS = ['min', 'max', 'avg', 'median', 'stddev', 'stdev'];

/** `agg`: comma list of min, max, avg, median, stddev/stdev, NNth (1..99); duplicates collapse. */
export function parseAggs(value: string | undefined): string[] {
  if (value === undefined) return ['min', 'max', 'avg'];
  const out: string[] = [];
  for (const raw of value.split(',')) {
    const a = raw.trim();
    const pct = /^(\d{1,2})th$/i.exec(a);
    const ok = NAMED_AGGS.includes(a) || (pct !== null && Number(pct[1]) >= 1 && Number(pct[1]) <= 99);
    if (!ok) {
      throw badRequest(`agg accepts a comma-separated list of min, max, avg, median, stddev (or stdev) and NNth with NN from 1 to 99 (e.g. 5th, 95th); got '${a}'.`);
    }
    if (!out.includes(a)) out.push(a);
  }
  return out;
}

export function parseTimeAggregation(value: string | undefined): TimeAggregation {
  const v = value ?? 'yearly';
  if (!(VALID_AGGREGATIONS as readonly string[]).includes(v)) {
    throw badRequest(`time_aggregation must be one of ${VALID_AGGREGATIONS.join(', ')}; got '${v}'.`);
  }
  return v as TimeAggregation;
}

const DAYS_IN_2000 = [31, 29, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31];

function monthDay(text: string, span: string): number {
  const m = /^\s*(\d{1,2})-(\d{1,2})\s*$/.exec(text);
  const month = m ? Number(m[1]) : NaN;
  const day = m ? Number(m[2]) : NaN;
  if (!(month >= 1 && month <= 12 && day >= 1 && day <= DAYS_IN_2000[month - 1]!)) {
    throw badRequest(`custom_time_agg: '${span}' must be a valid date range MM-DD:MM-DD (e.g. 3-1:5-31); '${text}' is not a valid MM-DD.`);
  }
  return month * 100 + day;
}

/** `custom_time_agg`: spans MM-DD:MM-DD, inclusive, in order (the first listed wins an overlap). */
export function parseSpans(agg: TimeAggregation, value: string | undefined): Span[] {
  if (agg !== 'custom') {
    if (value !== undefined) throw badRequest('If custom_time_agg is provided, param time_aggregation must equal "custom".');
    return [];
  }
  if (value === undefined) {
    throw badRequest('custom_time_agg is required when time_aggregation is custom: comma-separated MM-DD:MM-DD spans, e.g. 3-1:5-31,6-1:8-31.');
  }
  return value.split(',').map((span) => {
    const parts = span.split(':');
    if (parts.length !== 2) throw badRequest(`custom_time_agg: each span needs exactly a start and an end MM-DD, as in 3-1:5-31; got '${span}'.`);
    const s = monthDay(parts[0]!, span);
    const e = monthDay(parts[1]!, span);
    if (s > e) throw badRequest(`custom_time_agg: in '${span}' the start must not be after the end (spans cannot wrap past Dec 31).`);
    return { s, e };
  });
}

export function parseUnits(meta: IndicatorMeta, value: string | undefined): string {
  const u = value ?? meta.defaultUnits;
  if (!meta.availableUnits.includes(u)) throw badRequest(`units must be one of ${meta.availableUnits.join(', ')} for ${meta.name}; got '${u}'.`);
  return u;
}

const hasParam = (meta: IndicatorMeta, name: string) => meta.parameters.some((p) => p.name === name);

function number(name: string, text: string): number {
  const n = /^\s*[+-]?(\d+(\.\d*)?|\.\d+)([eE][+-]?\d+)?\s*$/.test(text) ? Number(text) : NaN;
  if (!Number.isFinite(n)) throw badRequest(`${name} must be a number; got '${text}'.`);
  return n;
}

/** Absolute temperature to K, in the original's operation order (identical doubles). */
export function temperatureToK(x: number, units: string): number {
  if (units === 'F') return (x + 459.67) * (1 / 1.8);
  if (units === 'C') return (x + 273.15) * 1.0;
  return x;
}

const RATE_FACTORS: Record<string, number> = { 'kg/m^2/s': 1, 'mm/day': 86400, 'in/day': (1 / 25.4) * 86400 };
const TEMPERATURE_UNITS = ['F', 'C', 'K'];
const COMPARATORS = ['lt', 'lte', 'gt', 'gte'];

export interface IndicatorVariables {
  threshold?: number;
  comparator?: string;
  basetemp?: number;
  percentile?: number;
  historicRange?: HistoricRange;
}

/** The indicator's own parameters (thresholds, base temperature, percentile, historic range). */
export function parseIndicatorVariables(meta: IndicatorMeta, query: Record<string, unknown>, ranges: HistoricRange[]): IndicatorVariables {
  const out: IndicatorVariables = {};
  if (hasParam(meta, 'threshold')) {
    const rate = meta.variables[0] === 'pr';
    const allowedUnits = rate ? Object.keys(RATE_FACTORS) : TEMPERATURE_UNITS;
    const threshold = single(query, 'threshold');
    const comparator = single(query, 'threshold_comparator');
    const units = single(query, 'threshold_units');
    if (threshold === undefined) throw badRequest('threshold is required: the value to compare daily values with, in threshold_units.');
    if (comparator === undefined || !COMPARATORS.includes(comparator)) {
      throw badRequest(`threshold_comparator is required and must be one of ${COMPARATORS.join(', ')}${comparator ? `; got '${comparator}'` : ''}.`);
    }
    if (units === undefined || !allowedUnits.includes(units)) {
      throw badRequest(`threshold_units is required and must be one of ${allowedUnits.join(', ')}${units ? `; got '${units}'` : ''}.`);
    }
    const x = number('threshold', threshold);
    out.threshold = rate ? x * (1.0 * RATE_FACTORS['kg/m^2/s']! / RATE_FACTORS[units]!) : temperatureToK(x, units);
    out.comparator = comparator;
  }
  if (hasParam(meta, 'basetemp')) {
    const units = single(query, 'basetemp_units') ?? 'F';
    if (!TEMPERATURE_UNITS.includes(units)) throw badRequest(`basetemp_units must be one of ${TEMPERATURE_UNITS.join(', ')}; got '${units}'.`);
    const base = single(query, 'basetemp');
    out.basetemp = temperatureToK(base === undefined ? 65 : number('basetemp', base), units);
  }
  if (hasParam(meta, 'percentile')) {
    const fallback = meta.parameters.find((p) => p.name === 'percentile')!.default as number;
    const text = single(query, 'percentile');
    const p = text === undefined ? fallback : /^\d{1,2}$/.test(text) ? Number(text) : NaN;
    if (!(p >= 1 && p <= 99)) throw badRequest(`percentile must be an integer from 1 to 99; got '${text}'.`);
    out.percentile = p;
  }
  if (hasParam(meta, 'historic_range')) {
    const text = single(query, 'historic_range');
    const latest = [...ranges].sort((a, b) => b.end_year - a.end_year)[0];
    const range = text === undefined ? latest : ranges.find((r) => String(r.start_year) === text);
    if (!range) {
      throw badRequest(`historic_range must be the start year of one of the historic ranges: ${ranges.map((r) => r.start_year).join(', ')}; got '${text}'.`);
    }
    out.historicRange = range;
  }
  return out;
}
