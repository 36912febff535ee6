import type { Request } from 'express';
import { z } from 'zod';
import { single } from '../climate/params.js';
import { areaQuery } from '../areas/area.js';
import { badRequest } from '../errors.js';
import { parsedBy } from '../http/queryParams.js';
import { indicatorQuery, parseAggs, parseWarmingLevels } from '../indicators/params.js';
import type { Catalog } from '../reference/catalog.js';
import type { WarmingLevel } from '../reference/warmingLevels.js';

/**
 * The map's query parameters. A map is one period (a span of years or one warming level) of one
 * indicator, so the indicator endpoints' period parameters (time_aggregation, windows,
 * custom_time_agg, pool_scenarios) and the return levels' are not among them: the map turns its
 * own `years` or `warming_level` into the indicator request whose value it shows per cell
 * (mapIndicatorQuery), and every other parameter means what it means there.
 */

export const MAP_FORMATS = ['json', 'geojson', 'csv', 'geotiff'] as const;
export type MapFormat = (typeof MAP_FORMATS)[number];

export const MAP_MEDIA_TYPES: Record<MapFormat, string> = {
  json: 'application/json',
  geojson: 'application/geo+json',
  csv: 'text/csv',
  geotiff: 'image/tiff',
};

export const MAP_EXTENSIONS: Record<MapFormat, string> = { json: 'json', geojson: 'geojson', csv: 'csv', geotiff: 'tif' };

export const DEFAULT_MAP_AGGS = '10th,median,90th';

/** A span of years `start:end` (or one year), inclusive. */
export interface YearSpan {
  start: number;
  end: number;
}

export function parseYearSpan(text: string): YearSpan {
  const m = /^\s*(\d{4})\s*(?::\s*(\d{4})\s*)?$/.exec(text);
  if (!m) throw badRequest(`years must be one span of years start:end (e.g. 2041:2070) or one year; got '${text}'.`);
  const start = Number(m[1]);
  const end = Number(m[2] ?? m[1]);
  if (start > end) throw badRequest(`years: in '${text}' the start year must not be after the end year.`);
  return { start, end };
}

/** One warming level: a map shows one. */
export function parseOneWarmingLevel(text: string): WarmingLevel {
  const levels = parseWarmingLevels(text);
  if (levels.length !== 1) throw badRequest(`warming_level: a map shows one level; got ${levels.length} (${levels.join(', ')}). Ask for one map per level.`);
  return levels[0]!;
}

export function mapQuery(catalog: Catalog) {
  // Left out: the period parameters the map sets itself, and return levels (a map has no fit).
  const {
    time_aggregation: _t,
    custom_time_agg: _c,
    windows: _w,
    pool_scenarios: _p,
    return_period: _r,
    baseline_return_period: _b,
    include: _i,
    years: _y,
    warming_level: _l,
    agg: _a,
    ...indicator
  } = indicatorQuery(catalog);
  const { region, city, bbox } = areaQuery;
  return {
    ...indicator,
    agg: z
      .string()
      .transform(parsedBy(parseAggs))
      .default(parseAggs(DEFAULT_MAP_AGGS))
      .meta({ description: `Statistics across models, each a value per cell: min, max, avg, median, stddev (stdev), NNth (1..99). Default ${DEFAULT_MAP_AGGS}.` }),
    years: z
      .string()
      .transform(parsedBy(parseYearSpan))
      .optional()
      .meta({
        description:
          "The map's period: a span start:end (or one year). Each cell's value per model is its mean over these years of the indicator's yearly value, as time_aggregation=window&windows=start:end answers it. Give years or warming_level.",
        examples: ['2041:2070'],
      }),
    warming_level: z
      .string()
      .transform(parsedBy(parseOneWarmingLevel))
      .optional()
      .meta({ description: "The map's period: one warming level; each model's value is its mean over its own 20-year window at the level, as the indicator endpoints take it. Give years or warming_level.", examples: ['2.0'] }),
    region: region.meta({ description: "The map's cells are those of this ecoregion (an id of /api/region/). At most one of region, city, bbox; none: every cell of the dataset with data." }),
    city: city.meta({ description: "The map's cells are those of this city's boundary (a city id, e.g. 5128581). At most one of region, city, bbox; none: every cell of the dataset with data." }),
    bbox: bbox.meta({ description: "The map's cells are those this rectangle covers: minlon,minlat,maxlon,maxlat in degrees. At most one of region, city, bbox; none: every cell of the dataset with data." }),
    format: z
      .enum(MAP_FORMATS)
      .default('json')
      .meta({
        description: `Response format: json (the default), geojson (a polygon per cell), csv (a row per cell) or geotiff (a band per statistic, float32, EPSG:4326). Without it, Accept: ${MAP_MEDIA_TYPES.geojson}, ${MAP_MEDIA_TYPES.csv} or ${MAP_MEDIA_TYPES.geotiff} chooses it.`,
      }),
  };
}

const BY_MEDIA_TYPE = new Map(MAP_FORMATS.map((f) => [MAP_MEDIA_TYPES[f], f]));

/** `format` wins, as on the other endpoints; without it the Accept header, else JSON. */
export function mapFormat(req: Request): MapFormat {
  const given = single(req.query as Record<string, unknown>, 'format');
  if (given !== undefined) {
    if (!(MAP_FORMATS as readonly string[]).includes(given)) throw badRequest(`format must be one of ${MAP_FORMATS.join(', ')}; got '${given}'.`);
    return given as MapFormat;
  }
  const best = req.accepts(MAP_FORMATS.map((f) => MAP_MEDIA_TYPES[f]));
  return (best && BY_MEDIA_TYPE.get(best)) || 'json';
}

/** The map's period: exactly one of years and warming_level. */
export type MapPeriod = { years: YearSpan } | { warmingLevel: WarmingLevel };

export function mapPeriod(years: YearSpan | undefined, warmingLevel: WarmingLevel | undefined): MapPeriod {
  if (years && warmingLevel) throw badRequest("Give one of years and warming_level: warming_level replaces years (each model's years are its own window at the level).");
  if (years) return { years };
  if (warmingLevel) return { warmingLevel };
  throw badRequest("Give the map's period: years (a span start:end, e.g. 2041:2070) or warming_level (one of 1.0, 1.5, 2.0, 3.0, 4.0).");
}

/** A span must reach into the scenario's years, as a window must (multiYearWindows): only its years there are read. */
export function checkYearsInScenario(period: MapPeriod, available: [number, number], scenario: string) {
  if (!('years' in period)) return;
  const { start, end } = period.years;
  if (end < available[0] || start > available[1]) throw badRequest(`years: ${start}:${end} has no year within ${scenario}'s years in this data, ${available[0]}-${available[1]}.`);
}

/**
 * The indicator request whose value per cell the map shows: the query as sent, read through (so
 * that every parameter the indicator plan reads is the one the client sent), with the period as
 * the indicator endpoints take it: years A:B as time_aggregation=window&windows=A:B, a warming
 * level as warming_level with yearly values. The parameters the map does not take are hidden.
 */
export function mapIndicatorQuery(query: Record<string, unknown>, period: MapPeriod): Record<string, unknown> {
  const derived = Object.create(query) as Record<string, unknown>;
  const own: Record<string, unknown> = {
    time_aggregation: 'years' in period ? 'window' : 'yearly',
    windows: 'years' in period ? `${period.years.start}:${period.years.end}` : undefined,
    years: undefined,
    warming_level: 'warmingLevel' in period ? period.warmingLevel : undefined,
    agg: single(query, 'agg') ?? DEFAULT_MAP_AGGS,
    custom_time_agg: undefined,
    pool_scenarios: undefined,
    return_period: undefined,
    baseline_return_period: undefined,
    include: undefined,
  };
  for (const [key, value] of Object.entries(own)) Object.defineProperty(derived, key, { value, enumerable: true });
  return derived;
}
