import { areaCells, areaOfBody, areaOfQuery } from '../areas/area.js';
import type { CoverThread } from '../areas/coverThread.js';
import { isResolved, resolvePlace } from '../batch/batchPlaces.js';
import { parseBatchBody } from '../batch/batchBody.js';
import type { BuildProgress } from '../climate/buildProgress.js';
import { scenarioOr404 } from '../climate/location.js';
import { listValue } from '@duckdb/node-api';
import { checkDatasetVariables, modelsWithVariables, parseModels, parseVariables, parseYearRanges, yearsWithin, type Variable, type YearsFilter } from '../climate/params.js';
import { climateFile } from '../dataBuild/files.js';
import type { QueryPool } from '../db/queryPool.js';
import { sqlFile } from '../db/sqlFiles.js';
import { BadRequestError, badRequest, NotFoundError, ServiceError } from '../errors.js';
import { queryFields } from '../http/queryParams.js';
import { indicatorPlan, type IndicatorPlan } from '../indicators/indicatorPlan.js';
import { indicatorQuery } from '../indicators/params.js';
import { findIndicator } from '../indicators/registry.js';
import type { Catalog, Dataset } from '../reference/catalog.js';
import { DEFAULT_DATASET, scenarioYears } from '../reference/datasetContents.js';
import { cellCentre, GRIDS, normalizeLon } from '../reference/grids.js';
import type { ExportBody, ExportFormat } from './exportRequest.js';

/**
 * An export request resolved against the data build: the scenarios with their years and models,
 * the cells to read and how each file places them. It is stored with the job (JSON), so that a
 * worker on another machine runs exactly what was checked, without clipping the area again.
 */
export interface ExportPlan {
  dataset: string;
  format: ExportFormat;
  /** The years as asked, for every scenario or per scenario (indicator plans are made again from it by the runner). */
  years: ExportBody['years'];
  scenarios: { name: string; years: number[]; models: string[] }[];
  /** Scenarios asked for that get no file, each with why (none of the years asked for, or no data here). */
  skipped?: SkippedScenario[];
  /** Per scenario, the dataset's models (models omitted) without data for it in this build: not in its file. */
  modelsLeftOut?: { scenario: string; models: string[]; reason: string }[];
  what: { kind: 'variables'; variables: Variable[] } | { kind: 'indicators'; indicators: ExportIndicator[] };
  where: AreaCells | Places;
  /** Values the files will hold at most (missing days and periods included). */
  values: number;
}

export interface SkippedScenario {
  scenario: string;
  /** The years asked for and those the scenario has in this build, when that is why. */
  years?: string;
  available?: [number, number];
  reason: string;
}

/** The years asked for one scenario: the one filter of every scenario, or the scenario's own. */
export const yearsOfScenario = (years: ExportBody['years'], scenario: string): string | undefined => (typeof years === 'object' ? years[scenario] : years);

/** An indicator of an export: its name and its parameters in query-string form, as the endpoints read them. */
export interface ExportIndicator {
  name: string;
  params: Record<string, string>;
}

/** The cells of an area on the dataset's grid: the rectangle of rows and columns that holds them. */
export interface AreaCells {
  kind: 'area';
  cells: { cellId: number; lat: number; lon: number }[];
  rows: [number, number];
  cols: [number, number];
}

/** Places, each on its map cell (several may share one). */
export interface Places {
  kind: 'locations';
  locations: { label: string; name: string; cityId: number | null; cellId: number; lat: number; lon: number }[];
}

/** Parameters an export item may not set: the export has them, or they change the answer's shape. */
const NOT_PER_INDICATOR = ['dataset', 'models', 'years', 'agg', 'format', 'distance', 'warming_level', 'pool_scenarios', 'return_period', 'baseline_return_period', 'include'];

export interface PlanDeps {
  catalog: Catalog;
  progress: BuildProgress;
  clipper: CoverThread;
  /** Reads which models the cells' files hold (sql/export/models_present.sql). */
  queries: QueryPool;
  maxAreaVertices: number;
  maxValues: number;
}

const daysIn = (year: number) => ((year % 4 === 0 && year % 100 !== 0) || year % 400 === 0 ? 366 : 365);
const span = (r: [number, number]) => `${r[0]}-${r[1]}`;

/** The body resolved, in the endpoints' order of checks: dataset, scenarios, models, years, what, where, models with data, size. */
export async function planExport(deps: PlanDeps, body: ExportBody): Promise<ExportPlan> {
  const { catalog } = deps;
  const datasetName = body.dataset ?? DEFAULT_DATASET;
  const dataset = catalog.datasetByName.get(datasetName);
  if (!dataset) throw badRequest(`dataset ${datasetName} does not exist. Choose one of: ${catalog.datasets.map((d) => d.name).join(', ')}.`);
  const names = [...new Set(body.scenarios)];
  const variables = body.variables ? parseVariables(body.variables.join(',')) : undefined;
  if (variables) checkDatasetVariables(dataset, variables, 'variables asks for');
  const indicators = body.indicators?.map((item, i) => exportIndicator(catalog, item, i));
  const seen = new Set<string>();
  indicators?.forEach((ind, i) => {
    if (seen.has(ind.name)) throw badRequest(`indicators[${i}]: ${ind.name} is asked for twice; an export holds each indicator once (export the other parameters separately).`);
    seen.add(ind.name);
    const meta = findIndicator(ind.name);
    if (meta) checkDatasetVariables(dataset, meta.variables, `indicators[${i}] (${meta.name}) needs`);
  });
  // What the files need of each model: a model its publisher left without one is left out, as the endpoints leave it out.
  const needs = variables ?? [...new Set(indicators!.flatMap((ind) => findIndicator(ind.name)?.variables ?? []))];
  const { scenarios, skipped, lacking } = scenarioYearsOf(catalog, dataset, names, body, needs);

  let what: ExportPlan['what'];
  /** Values per model and place, per scenario. */
  const perModelPlace = new Map<string, number>();
  if (variables) {
    what = { kind: 'variables', variables };
    for (const s of scenarios) perModelPlace.set(s.name, s.years.reduce((n, y) => n + daysIn(y), 0) * variables.length);
  } else {
    // Every parameter checked now, for every scenario, as the indicator endpoints check them.
    for (const s of scenarios) {
      indicators!.forEach((ind, i) => {
        const plan = planIndicator(catalog, dataset, s, yearsOfScenario(body.years, s.name), ind, i);
        perModelPlace.set(s.name, (perModelPlace.get(s.name) ?? 0) + periodsOf(plan));
      });
    }
    what = { kind: 'indicators', indicators: indicators! };
  }

  const where = body.area ? await areaOf(deps, dataset, body.area, names) : placesOf(catalog, dataset, body.locations!);
  const cellIds = where.kind === 'area' ? where.cells.map((c) => c.cellId) : [...new Set(where.locations.map((l) => l.cellId))];
  const withData = await modelsWithData(deps.queries, catalog.dataDir, dataset.name, scenarios, cellIds, body.models !== undefined);
  // A NetCDF area is a (lat, lon) rectangle: it holds every grid position of it, FILL where there are no data.
  const rectangle = where.kind === 'area' && body.format === 'netcdf' ? (where.rows[1] - where.rows[0] + 1) * (where.cols[1] - where.cols[0] + 1) : undefined;
  const places = rectangle ?? (where.kind === 'area' ? where.cells.length : where.locations.length);
  const values = withData.scenarios.reduce((n, s) => n + perModelPlace.get(s.name)! * s.models.length, 0) * places;
  if (values > deps.maxValues) {
    const sparse =
      rectangle !== undefined && where.kind === 'area' && rectangle > where.cells.length
        ? ` As NetCDF the area is its rectangle of ${rectangle.toLocaleString('en-US')} grid cells, ${where.cells.length.toLocaleString('en-US')} of them with data; Parquet or CSV hold only those (${(values / rectangle) * where.cells.length > deps.maxValues ? 'still over the limit' : 'within the limit'}).`
        : '';
    throw badRequest(
      `This export holds up to ${values.toLocaleString('en-US')} values; the limit is ${deps.maxValues.toLocaleString('en-US')} (EXPORT_MAX_VALUES). Ask for fewer models, years, scenarios, ${what.kind} or ${where.kind === 'area' ? 'a smaller area' : 'locations'}, or split it.${sparse}`,
    );
  }
  const allSkipped = [...skipped, ...withData.skipped];
  return {
    dataset: dataset.name,
    format: body.format,
    years: body.years,
    scenarios: withData.scenarios,
    ...(allSkipped.length > 0 ? { skipped: allSkipped } : {}),
    ...(lacking.length + withData.leftOut.length > 0 ? { modelsLeftOut: [...lacking, ...withData.leftOut] } : {}),
    what,
    where,
    values,
  };
}

/**
 * Each scenario's years: the years asked for within the scenario's own. One filter for every
 * scenario skips a scenario that has none of them (a 400 only when no scenario has any); years per
 * scenario are checked each, as asked.
 */
function scenarioYearsOf(catalog: Catalog, dataset: Dataset, names: string[], body: ExportBody, needs: readonly string[]) {
  const perScenario = typeof body.years === 'object' ? body.years : undefined;
  for (const key of Object.keys(perScenario ?? {})) {
    if (!names.includes(key)) throw badRequest(`years has ${JSON.stringify(key)}, which is not one of scenarios (${names.join(', ')}); name each scenario's years under its name.`);
  }
  const skipped: SkippedScenario[] = [];
  const scenarios: ExportPlan['scenarios'] = [];
  const lacking: NonNullable<ExportPlan['modelsLeftOut']> = [];
  for (const name of names) {
    const scenario = scenarioOr404(catalog, name);
    const { models, leftOut } = modelsWithVariables(dataset, parseModels(dataset, scenario, body.models ? body.models.join(',') : 'all'), needs);
    for (const lacks of new Set(leftOut.map((x) => x.lacks.join(' and ')))) {
      lacking.push({ scenario: name, models: leftOut.filter((x) => x.lacks.join(' and ') === lacks).map((x) => x.model), reason: `published without ${lacks}, which the export needs` });
    }
    const asked = yearsOfScenario(body.years, name);
    let filter: YearsFilter;
    try {
      filter = asked === undefined ? 'all' : parseYearRanges(asked);
    } catch (err) {
      if (perScenario && err instanceof BadRequestError) throw badRequest(`years.${name}: ${err.message}`);
      throw err;
    }
    const available = scenarioYears(catalog, dataset, scenario);
    const years = yearsWithin(filter, available);
    if (years.length > 0) scenarios.push({ name, years, models });
    else if (perScenario) throw badRequest(`years.${name} ${asked} holds no year of ${name} in ${dataset.name} (${span(available)}).`);
    else skipped.push({ scenario: name, years: asked ?? 'all', available, reason: `years ${asked ?? 'all'} holds no year of ${name} in ${dataset.name} (${span(available)}): no file.` });
  }
  if (scenarios.length === 0) {
    throw badRequest(
      `years ${String(body.years)} holds no year of ${skipped.map((s) => `${s.scenario} (${span(s.available!)})`).join(', ')} in ${dataset.name}. ` +
        'Ask for years within a scenario\'s, or give each scenario its own: {"historical": "1985:2014", "ssp245": "2040:2069"}.',
    );
  }
  return { scenarios, skipped, lacking };
}

/**
 * The models of each scenario that have data at the export's cells in this build. With models
 * omitted (the dataset's whole list) the others are left out and named; a model asked for by name
 * without data is a 400 naming it. A scenario with no model's data gets no file.
 */
async function modelsWithData(queries: QueryPool, dataDir: string, dataset: string, scenarios: ExportPlan['scenarios'], cellIds: number[], named: boolean) {
  const kept: ExportPlan['scenarios'] = [];
  const leftOut: NonNullable<ExportPlan['modelsLeftOut']> = [];
  const skipped: SkippedScenario[] = [];
  for (const s of scenarios) {
    const files = cellIds.map((id) => climateFile(dataDir, dataset, s.name, id)).filter((f): f is string => f !== undefined);
    const present = new Set(files.length === 0 ? [] : await queries.run(async (conn) => (await conn.runAndReadAll(sqlFile('export/models_present.sql'), { files: listValue(files) } as never)).getRowsJS().map((r) => String(r[0]))));
    const without = s.models.filter((m) => !present.has(m));
    if (named && without.length > 0) {
      throw badRequest(`models: ${without.join(', ')} ${without.length > 1 ? 'have' : 'has'} no ${s.name} data for these places in this data build; models with data: ${[...present].join(', ') || 'none'}. Ask for those, or leave models out for every model with data.`);
    }
    const models = s.models.filter((m) => present.has(m));
    if (models.length === 0) {
      skipped.push({ scenario: s.name, reason: `${dataset} has no ${s.name} data for these places in this data build: no file.` });
      continue;
    }
    if (without.length > 0) leftOut.push({ scenario: s.name, models: without, reason: 'no data for these places in this data build' });
    kept.push({ ...s, models });
  }
  if (kept.length === 0) throw new NotFoundError(`No ${dataset} data for these places in this data build in ${scenarios.map((s) => s.name).join(', ')}.`);
  return { scenarios: kept, leftOut, skipped };
}

/** One item of `indicators` as query-string parameters; unknown or export-wide ones are a 400. */
function exportIndicator(catalog: Catalog, item: Record<string, unknown>, i: number): ExportIndicator {
  const { name, ...rest } = item as { name: string } & Record<string, string | number | boolean>;
  const allowed = Object.keys(fieldsOf(catalog)).filter((k) => !NOT_PER_INDICATOR.includes(k));
  const params: Record<string, string> = {};
  for (const [key, value] of Object.entries(rest)) {
    if (NOT_PER_INDICATOR.includes(key)) {
      throw badRequest(`indicators[${i}].${key}: ${['dataset', 'models', 'years'].includes(key) ? 'set it once for the whole export, beside scenarios' : key === 'agg' ? 'an export holds every model\'s value, not statistics across models' : 'not available in exports'}.`);
    }
    if (!allowed.includes(key)) throw badRequest(`indicators[${i}] has an unknown parameter ${JSON.stringify(key)}; the indicator parameters are ${allowed.join(', ')}.`);
    params[key] = String(value);
  }
  return { name, params };
}

/** The indicator's plan for one scenario and every model, its 400s and 404s naming the item. */
export function planIndicator(catalog: Catalog, dataset: Dataset, s: { name: string; models: string[] }, years: string | undefined, ind: ExportIndicator, i: number): IndicatorPlan {
  const scenario = scenarioOr404(catalog, s.name);
  const fields = fieldsOf(catalog);
  const query = { ...ind.params, dataset: dataset.name, models: s.models.join(','), ...(years === undefined ? {} : { years }), agg: 'avg' };
  try {
    // The export's size is bounded by EXPORT_MAX_VALUES, not by a request's model-years.
    return indicatorPlan(catalog, fields, query, dataset, scenario, ind.name, Number.MAX_SAFE_INTEGER);
  } catch (err) {
    const at = `indicators[${i}] (${ind.name}${scenario ? `, ${scenario.name}` : ''}): `;
    if (err instanceof BadRequestError) throw badRequest(at + err.message);
    if (err instanceof NotFoundError) throw new NotFoundError(at + err.message);
    throw err;
  }
}

const fieldCache = new WeakMap<Catalog, ReturnType<typeof queryFields<ReturnType<typeof indicatorQuery>>>>();
function fieldsOf(catalog: Catalog) {
  let f = fieldCache.get(catalog);
  if (!f) fieldCache.set(catalog, (f = queryFields(indicatorQuery(catalog), { blankIsAbsent: true })));
  return f;
}

/** Periods of an indicator plan per model, at most (the sizes of its period keys). */
function periodsOf(plan: IndicatorPlan): number {
  if (plan.windows) return plan.windows.length;
  // An offset year reads the next calendar year too: counting read years bounds the periods.
  const years = plan.years.length;
  const perYear = { yearly: 1, offset_yearly: 1, quarterly: 4, monthly: 12, custom: plan.spans.length, decadal: 1, window: 1 }[plan.timeAggregation];
  return years * perYear;
}

async function areaOf(deps: PlanDeps, dataset: Dataset, area: NonNullable<ExportBody['area']>, scenarios: string[]): Promise<AreaCells> {
  const { catalog, progress } = deps;
  const named = 'geometry' in area ? undefined : (Object.keys(area)[0] as 'bbox' | 'city' | 'region');
  let shape;
  try {
    shape = named ? await areaOfQuery(catalog, deps.queries, { [named]: String((area as Record<string, unknown>)[named]) }) : areaOfBody((area as { geometry: unknown }).geometry, {}, deps.maxAreaVertices);
  } catch (err) {
    if (err instanceof ServiceError && !(err instanceof NotFoundError)) throw badRequest(`area: ${err.message}`);
    throw err;
  }
  const found = await areaCells(catalog, dataset, shape.shape, shape.origin, Number.MAX_SAFE_INTEGER, (cellId) => {
    progress.requireCell(dataset.name, cellId);
    return scenarios.some((s) => climateFile(catalog.dataDir, dataset.name, s, cellId) !== undefined);
  }, deps.clipper);
  const grid = GRIDS[dataset.name]!;
  const rowOf = (id: number) => Math.floor(id / grid.cols);
  const colOf = (id: number) => id % grid.cols;
  const ids = found.cells.map((c) => c.cellId);
  return {
    kind: 'area',
    cells: found.cells.map(({ cellId }) => ({ cellId, ...cellCentre(grid, cellId) })),
    rows: [Math.min(...ids.map(rowOf)), Math.max(...ids.map(rowOf))],
    cols: [Math.min(...ids.map(colOf)), Math.max(...ids.map(colOf))],
  };
}

function placesOf(catalog: Catalog, dataset: Dataset, locations: NonNullable<ExportBody['locations']>): Places {
  const grid = GRIDS[dataset.name]!;
  const places = parseBatchBody({ locations }, Number.MAX_SAFE_INTEGER);
  return {
    kind: 'locations',
    locations: places.map((place, i) => {
      const resolved = resolvePlace(catalog, place, dataset, 0);
      if (!isResolved(resolved)) throw new NotFoundError(`locations[${i}]: ${resolved.detail}`);
      const cellId = resolved.location.cellId;
      const centre = cellCentre(grid, cellId);
      if (place.kind === 'city') {
        const city = catalog.cityById.get(place.city)!;
        return { label: `city/${city.id}`, name: `${city.name}, ${city.admin}`, cityId: city.id, cellId, ...centre };
      }
      return { label: `point/${place.lat},${normalizeLon(place.lon)}`, name: `${place.lat}, ${place.lon}`, cityId: null, cellId, ...centre };
    }),
  };
}

const EXTENSIONS = { netcdf: 'nc', parquet: 'parquet', csv: 'csv' } as const;

/** `NEX-GDDP-CMIP6_ssp245_tasmax-pr.nc`: dataset, scenario and what it holds. */
export function exportFileName(plan: ExportPlan, scenario: string): string {
  const what = plan.what.kind === 'variables' ? plan.what.variables : plan.what.indicators.map((i) => i.name);
  return `${plan.dataset}_${scenario}_${what.join('-')}.${EXTENSIONS[plan.format]}`.replace(/[^\w.+-]/g, '_');
}
