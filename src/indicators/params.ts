import { z } from 'zod';
import { badRequest } from '../errors.js';
import { parsedBy, wireType } from '../http/queryParams.js';
import type { Catalog, Dataset, HistoricRange } from '../reference/catalog.js';
import { climateQuery, single } from '../climate/params.js';
import { datasetRanges, defaultDatasetRanges, latestRange, scenarioYears } from '../reference/datasetContents.js';
import { INDICATORS, VALID_AGGREGATIONS, type IndicatorMeta } from './metadata.js';
import { WARMING_LEVELS, type WarmingLevel } from '../reference/warmingLevels.js';
import { returnLevelQuery } from './returnLevels/returnPeriods.js';

/**
 * Indicator query parameters, validated into the values the SQL templates read. The zod schemas
 * validate and generate the OpenAPI document; checks that depend on the indicator (its units, which
 * parameters it takes) or on another parameter run in the functions below, in the order the
 * route calls them.
 */

export type TimeAggregation = (typeof VALID_AGGREGATIONS)[number];
export interface Span {
  s: number;
  e: number;
}

const NAMED_AGGS = ['min', 'max', 'avg', 'median', 'stddev', 'stdev'];

/** `agg`: comma list of min, max, avg, median, stddev/stdev, NNth (1..99); duplicates collapse. */
export function parseAggs(value: string): string[] {
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
export function parseSpanList(value: string): Span[] {
  return value.split(',').map((span) => {
    const parts = span.split(':');
    if (parts.length !== 2) throw badRequest(`custom_time_agg: each span needs exactly a start and an end MM-DD, as in 3-1:5-31; got '${span}'.`);
    const s = monthDay(parts[0]!, span);
    const e = monthDay(parts[1]!, span);
    if (s > e) throw badRequest(`custom_time_agg: in '${span}' the start must not be after the end (spans cannot wrap past Dec 31).`);
    return { s, e };
  });
}

/**
 * The spans when time_aggregation is custom (then required), none otherwise (then forbidden). The
 * dependency is checked before the spans' syntax, so `spans` parses only for custom.
 */
export function customSpans(agg: TimeAggregation, query: Record<string, unknown>, spans: (query: unknown) => Span[] | undefined): Span[] {
  if (agg !== 'custom') {
    if (single(query, 'custom_time_agg') !== undefined) throw badRequest('If custom_time_agg is provided, param time_aggregation must equal "custom".');
    return [];
  }
  const out = spans(query);
  if (out === undefined) {
    throw badRequest('custom_time_agg is required when time_aggregation is custom: comma-separated MM-DD:MM-DD spans, e.g. 3-1:5-31,6-1:8-31.');
  }
  return out;
}

export const MAX_WINDOWS = 20;

/** `windows`: comma-separated year spans YYYY:YYYY, inclusive, at most 20; a repeated span collapses. */
export function parseWindows(value: string): Span[] {
  const out: Span[] = [];
  for (const text of value.split(',')) {
    const m = /^\s*(\d{4})\s*:\s*(\d{4})\s*$/.exec(text);
    if (!m) throw badRequest(`windows accepts comma-separated year spans start:end, e.g. 2021:2050,2041:2070; got '${text}'.`);
    const s = Number(m[1]);
    const e = Number(m[2]);
    if (s > e) throw badRequest(`windows: in '${text}' the start year must not be after the end year.`);
    if (!out.some((w) => w.s === s && w.e === e)) out.push({ s, e });
  }
  if (out.length > MAX_WINDOWS) throw badRequest(`windows accepts at most ${MAX_WINDOWS} spans; got ${out.length}.`);
  return out;
}

/**
 * The multi-year spans of decadal and window, over the years the request reads; none otherwise.
 * `windows` is required with window and refused without it. decadal: the calendar decades of the
 * years. window: spans must reach into the scenario's years, and only their years are read.
 */
export function multiYearWindows(
  agg: TimeAggregation,
  query: Record<string, unknown>,
  windows: (query: unknown) => Span[] | undefined,
  years: number[],
  available: [number, number],
): { windows?: Span[]; years: number[] } {
  if (agg !== 'window') {
    if (single(query, 'windows') !== undefined) throw badRequest('If windows is provided, param time_aggregation must equal "window".');
    if (agg !== 'decadal') return { years };
    const decades = [...new Set(years.map((y) => y - (y % 10)))];
    return { windows: decades.map((d) => ({ s: d, e: d + 9 })), years };
  }
  const spans = windows(query);
  if (spans === undefined) throw badRequest('windows is required when time_aggregation is window: comma-separated year spans start:end, e.g. 2021:2050,2041:2070.');
  const outside = spans.find((w) => w.e < available[0] || w.s > available[1]);
  if (outside) throw badRequest(`windows: ${outside.s}:${outside.e} has no year within this scenario's years, ${available[0]}-${available[1]}.`);
  return { windows: spans, years: years.filter((y) => spans.some((w) => y >= w.s && y <= w.e)) };
}

/** `warming_level`: comma-separated levels of WARMING_LEVELS (2 and 2.00 are 2.0), in ascending order; duplicates collapse. */
export function parseWarmingLevels(value: string): WarmingLevel[] {
  const out = new Set<WarmingLevel>();
  for (const text of value.split(',')) {
    const n = /^\s*\d+(\.\d+)?\s*$/.test(text) ? Number(text) : NaN;
    const level = WARMING_LEVELS.find((l) => Number(l) === n);
    if (!level) throw badRequest(`warming_level accepts a comma-separated list of ${WARMING_LEVELS.join(', ')} (°C of global warming above 1850-1900); got '${text.trim()}'.`);
    out.add(level);
  }
  return WARMING_LEVELS.filter((l) => out.has(l));
}

export const CHANGES = ['absolute', 'percent'] as const;
export const MIN_BASELINE_YEARS = 10;
export interface Baseline {
  start_year: number;
  end_year: number;
  change: (typeof CHANGES)[number];
}

/**
 * `relative_to` (a historic range's start year, or a span YYYY:YYYY) and `change`: the baseline's
 * years, which must lie within the dataset's historical years in this build and number at least 10.
 */
export function parseBaseline(catalog: Catalog, dataset: Dataset, query: Record<string, unknown>, q: Pick<IndicatorFields, 'relative_to' | 'change'>): Baseline | undefined {
  const text = q.relative_to(query);
  const change = q.change(query);
  if (text === undefined) {
    if (change !== undefined) throw badRequest("change applies only with relative_to: give relative_to (a historic range's start year or a span YYYY:YYYY), or leave change out.");
    return undefined;
  }
  const starts = datasetRanges(catalog, dataset).map((r) => r.start_year).join(', ');
  const allowed = `relative_to must be the start year of a historic range (${starts}) or a span YYYY:YYYY of at least ${MIN_BASELINE_YEARS} historical years`;
  let span: [number, number];
  const m = /^(\d{4})(?::(\d{4}))?$/.exec(text);
  if (!m) throw badRequest(`${allowed}; got '${text}'.`);
  if (m[2] === undefined) {
    const range = catalog.historicRanges.find((r) => r.start_year === Number(m[1]));
    if (!range) throw badRequest(`${allowed}; got '${text}', which starts no historic range.`);
    if (!range.datasets.includes(dataset.name)) throw badRequest(`${allowed}; ${notOfDataset(range, dataset)}`);
    span = [range.start_year, range.end_year];
  } else {
    span = [Number(m[1]), Number(m[2])];
    if (span[0] > span[1]) throw badRequest(`${allowed}; in '${text}' the start year is after the end year.`);
  }
  const historical = catalog.scenarioByName.get('historical');
  const [lo, hi] = historical ? scenarioYears(catalog, dataset, historical) : [NaN, NaN];
  if (!(span[0] >= lo && span[1] <= hi)) throw badRequest(`${allowed}; ${span[0]}-${span[1]} is not within the historical years of this data, ${lo}-${hi}.`);
  if (span[1] - span[0] + 1 < MIN_BASELINE_YEARS) throw badRequest(`${allowed}; ${span[0]}-${span[1]} has ${span[1] - span[0] + 1}.`);
  return { start_year: span[0], end_year: span[1], change: change ?? 'absolute' };
}

/**
 * `historic_range`: a range of the dataset, by default its latest (1971 for the CMIP5 datasets,
 * 1981 for the CMIP6 ones, whose historical run reaches 2014). A range of another dataset is a
 * 400 that says which datasets have it and why this one does not.
 */
export function parseHistoricRange(catalog: Catalog, dataset: Dataset, text: string | undefined): HistoricRange {
  const own = datasetRanges(catalog, dataset);
  if (text === undefined) {
    const latest = latestRange(own);
    if (!latest) throw badRequest(`Dataset ${dataset.name} has no historic range, so this indicator cannot be computed on it.`);
    return latest;
  }
  const range = catalog.historicRanges.find((r) => String(r.start_year) === text);
  if (range && range.datasets.includes(dataset.name)) return range;
  const list = `historic_range must be the start year of one of the historic ranges: ${own.map((r) => r.start_year).join(', ')}`;
  if (!range) throw badRequest(`${list}; got '${text}'.`);
  throw badRequest(`${list}; ${notOfDataset(range, dataset)}`);
}

/** Why a range is not one of the dataset's. */
function notOfDataset(range: HistoricRange, dataset: Dataset): string {
  const historical = dataset.scenarios.find((s) => s.name === 'historical');
  return `${range.start_year}-${range.end_year} is a range of ${range.datasets.join(', ')} only: ${dataset.name}'s historical run ends in ${historical?.endYear ?? '(none)'}.`;
}

/** `units`: which are valid depends on the indicator, so this check is not in the zod schema. */
export function parseUnits(meta: IndicatorMeta, value: string | undefined): string {
  const u = value ?? meta.defaultUnits;
  if (!meta.availableUnits.includes(u)) throw badRequest(`units must be one of ${meta.availableUnits.join(', ')} for ${meta.name}; got '${u}'.`);
  return u;
}

const hasParam = (meta: IndicatorMeta, name: string) => meta.parameters.some((p) => p.name === name);

/** A decimal number (surrounding blanks were trimmed); the detail quotes the text sent. */
function decimal(name: string) {
  return z
    .string()
    .transform((text, ctx) => {
      const n = /^[+-]?(\d+(\.\d*)?|\.\d+)([eE][+-]?\d+)?$/.test(text) ? Number(text) : NaN;
      if (!Number.isFinite(n)) ctx.addIssue({ code: 'custom', message: `${name} must be a number; got '${text}'.`, input: text });
      return n;
    })
    .meta({ override: wireType('number') });
}

/** Absolute temperature to K, in the original's operation order (identical doubles). */
export function temperatureToK(x: number, units: string): number {
  if (units === 'F') return (x + 459.67) * (1 / 1.8);
  if (units === 'C') return (x + 273.15) * 1.0;
  return x;
}

const RATE_FACTORS: Record<string, number> = { 'kg/m^2/s': 1, 'mm/day': 86400, 'in/day': (1 / 25.4) * 86400 };
const TEMPERATURE_UNITS = ['F', 'C', 'K'] as const;
const COMPARATORS = ['lt', 'lte', 'gt', 'gte'] as const;

/** An indicator-specific parameter's description from the indicator metadata, and who takes it. */
function indicatorParamDoc(name: string): string {
  const users = INDICATORS.filter((m) => hasParam(m, name));
  const docs = users.map((m) => m.parameters.find((p) => p.name === name)!);
  const defaults = new Set(docs.map((d) => d.default));
  // A default that differs by indicator (percentile) is listed per indicator instead.
  const description = defaults.size > 1 ? `${docs[0]!.description.replace(/ Defaults to [^.]*$/, '')} Defaults: ${users.map((m, i) => `${m.name} ${docs[i]!.default}`).join(', ')}.` : docs[0]!.description;
  return `${description} Used by: ${users.map((m) => m.name).join(', ')}; ignored by the other indicators.`;
}

/** Every indicator-data parameter; the indicator's own ones (threshold, basetemp, ...) apply to some indicators only. */
export function indicatorQuery(catalog: Catalog) {
  const ranges = catalog.historicRanges;
  const latest = latestRange(defaultDatasetRanges(catalog));
  const common = (name: string) => INDICATORS[0]!.parameters.find((p) => p.name === name)!.description;
  const allUnits = [...new Set(INDICATORS.flatMap((m) => m.availableUnits))];
  return {
    ...climateQuery(catalog),
    agg: z.string().transform(parsedBy(parseAggs)).default(['min', 'max', 'avg']).meta({ description: common('agg') }),
    time_aggregation: z
      .enum(VALID_AGGREGATIONS, { error: (iss) => `time_aggregation must be one of ${VALID_AGGREGATIONS.join(', ')}; got '${String(iss.input)}'.` })
      .default('yearly')
      .meta({ description: common('time_aggregation') }),
    custom_time_agg: z
      .string()
      .transform(parsedBy(parseSpanList))
      .optional()
      .meta({ description: common('custom_time_agg'), examples: ['3-1:5-31,6-1:8-31'] }),
    windows: z
      .string()
      .transform(parsedBy(parseWindows))
      .optional()
      .meta({ description: common('windows'), examples: ['2021:2050,2041:2070,2071:2100'] }),
    relative_to: z
      .string()
      .optional()
      .meta({ description: common('relative_to'), examples: ['1971', '1976:2005'] }),
    warming_level: z
      .string()
      .transform(parsedBy(parseWarmingLevels))
      .optional()
      .meta({ description: common('warming_level'), examples: ['2.0', '1.5,2.0,3.0'] }),
    pool_scenarios: z
      .enum(['true', 'false'], { error: (iss) => `pool_scenarios must be true or false; got '${String(iss.input)}'.` })
      .optional()
      .transform((v) => v === 'true')
      // No OpenAPI default: it applies only with warming_level (as change with relative_to).
      .meta({ description: common('pool_scenarios'), override: { enum: ['true', 'false'] } }),
    change: z
      .enum(CHANGES, { error: (iss) => `change must be one of ${CHANGES.join(', ')}; got '${String(iss.input)}'.` })
      .optional()
      // No OpenAPI default: it applies only with relative_to, and the docs page sends every declared
      // default, which the API refuses without relative_to.
      .meta({ description: common('change'), override: { enum: [...CHANGES] } }),
    units: z
      .string()
      .optional()
      .meta({
        description: `${common('units')} One of the indicator's available_units (see /api/indicator/{indicator_name}/); its default_units when omitted.`,
        override: { enum: allUnits },
      }),
    threshold: decimal('threshold').optional().meta({ description: indicatorParamDoc('threshold') }),
    threshold_comparator: z
      .enum(COMPARATORS, {
        error: (iss) => `threshold_comparator is required and must be one of ${COMPARATORS.join(', ')}; got '${String(iss.input)}'.`,
      })
      .optional()
      .meta({ description: indicatorParamDoc('threshold_comparator') }),
    threshold_units: z
      .string()
      .optional()
      .meta({
        description: `${indicatorParamDoc('threshold_units')} Temperature indicators take ${TEMPERATURE_UNITS.join(', ')}; precipitation_threshold takes ${Object.keys(RATE_FACTORS).join(', ')}.`,
        override: { enum: [...TEMPERATURE_UNITS, ...Object.keys(RATE_FACTORS)] },
      }),
    basetemp: decimal('basetemp').default(65).meta({ description: indicatorParamDoc('basetemp') }),
    basetemp_units: z
      .enum(TEMPERATURE_UNITS, { error: (iss) => `basetemp_units must be one of ${TEMPERATURE_UNITS.join(', ')}; got '${String(iss.input)}'.` })
      .default('F')
      .meta({ description: indicatorParamDoc('basetemp_units') }),
    percentile: z
      .string()
      .transform((text, ctx) => {
        const p = /^\d{1,2}$/.test(text) ? Number(text) : NaN;
        if (!(p >= 1 && p <= 99)) ctx.addIssue({ code: 'custom', message: `percentile must be an integer from 1 to 99; got '${text}'.`, input: text });
        return p;
      })
      .optional()
      .meta({ description: indicatorParamDoc('percentile'), override: wireType('integer', 1, 99) }),
    n: z
      .string()
      .transform((text, ctx) => {
        const n = /^\d{1,2}$/.test(text) ? Number(text) : NaN;
        if (!(n >= 2 && n <= 10)) ctx.addIssue({ code: 'custom', message: `n must be an integer from 2 to 10; got '${text}'.`, input: text });
        return n;
      })
      .optional()
      .meta({ description: indicatorParamDoc('n'), override: wireType('integer', 2, 10) }),
    ...returnLevelQuery(),
    // Checked against the dataset by parseHistoricRange; the default is the default dataset's latest range.
    historic_range: z
      .string()
      .optional()
      .meta({
        description: `${indicatorParamDoc('historic_range')} With return_period or baseline_return_period, the fitting window instead: the range's years of the historical run. Each dataset has its own ranges (/api/historic-range/?dataset=...), and its latest is the default: ${catalog.datasets.map((d) => `${d.name} ${latestRange(datasetRanges(catalog, d))?.start_year ?? 'none'}`).join(', ')}.`,
        override: { enum: ranges.map((r) => String(r.start_year)), ...(latest ? { default: String(latest.start_year) } : {}) },
      }),
  };
}

export type IndicatorFields = { [K in keyof ReturnType<typeof indicatorQuery>]: (query: unknown) => z.output<ReturnType<typeof indicatorQuery>[K]> };

export interface IndicatorVariables {
  threshold?: number;
  comparator?: string;
  basetemp?: number;
  percentile?: number;
  historicRange?: HistoricRange;
  /** max_nday_precipitation: the days of each total. */
  n?: number;
}

/**
 * The indicator's own parameters (thresholds, base temperature, percentile, historic range), in the
 * original's order: presence and comparator before units before the threshold's value.
 */
export function parseIndicatorVariables(catalog: Catalog, dataset: Dataset, meta: IndicatorMeta, query: Record<string, unknown>, q: IndicatorFields): IndicatorVariables {
  const out: IndicatorVariables = {};
  if (hasParam(meta, 'threshold')) {
    const rate = meta.variables[0] === 'pr';
    const allowedUnits = rate ? Object.keys(RATE_FACTORS) : TEMPERATURE_UNITS;
    if (single(query, 'threshold') === undefined) throw badRequest('threshold is required: the value to compare daily values with, in threshold_units.');
    const comparator = q.threshold_comparator(query);
    if (comparator === undefined) throw badRequest(`threshold_comparator is required and must be one of ${COMPARATORS.join(', ')}.`);
    const units = q.threshold_units(query);
    if (units === undefined || !(allowedUnits as readonly string[]).includes(units)) {
      throw badRequest(`threshold_units is required and must be one of ${allowedUnits.join(', ')}${units ? `; got '${units}'` : ''}.`);
    }
    const x = q.threshold(query)!;
    out.threshold = rate ? x * (1.0 * RATE_FACTORS['kg/m^2/s']! / RATE_FACTORS[units]!) : temperatureToK(x, units);
    out.comparator = comparator;
  }
  if (hasParam(meta, 'basetemp')) {
    const units = q.basetemp_units(query);
    out.basetemp = temperatureToK(q.basetemp(query), units);
  }
  if (hasParam(meta, 'percentile')) {
    out.percentile = q.percentile(query) ?? (meta.parameters.find((p) => p.name === 'percentile')!.default as number);
  }
  if (hasParam(meta, 'n')) out.n = q.n(query) ?? (meta.parameters.find((p) => p.name === 'n')!.default as number);
  if (hasParam(meta, 'historic_range')) out.historicRange = parseHistoricRange(catalog, dataset, q.historic_range(query));
  return out;
}
