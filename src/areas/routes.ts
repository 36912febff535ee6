import express, { Router, type Request, type Response } from 'express';
import { climateFile } from '../dataBuild/files.js';
import { scenarioOr404 } from '../climate/location.js';
import { rawDataQuery } from '../climate/params.js';
import { datasetRanges } from '../reference/datasetContents.js';
import { rawDataPlan } from '../climate/rawDataPlan.js';
import { dailyDataJson } from '../climate/rawData.js';
import { dailyDataArrow } from '../climate/rawArrow.js';
import { dailyDataCsv } from '../climate/rawCsv.js';
import { request, type ClimateDeps } from '../climate/routes.js';
import { safeFileName, type TableLabels } from '../climate/tableLabels.js';
import { formatQuery, negotiateFormat, sendPieces, sendTable, type Format } from '../http/format.js';
import { queryFields } from '../http/queryParams.js';
import { indicatorArrow } from '../indicators/indicatorArrow.js';
import { indicatorCsv, scenarioLabel } from '../indicators/indicatorCsv.js';
import { indicatorQuery } from '../indicators/params.js';
import { indicatorJson } from '../indicators/registry.js';
import { dataJson, indicatorHead } from '../indicators/indicatorData.js';
import { indicatorPlan, planCellFiles, planRequest, type IndicatorPlan } from '../indicators/indicatorPlan.js';
import { ReturnLevelArrow, returnLevelCsvHeader, returnLevelCsvRows, returnLevelDataJson, returnLevelHead } from '../indicators/returnLevels/answer.js';
import { modelReturnLevels } from '../indicators/returnLevels/modelLevels.js';
import { returnLevelRequest, warmingPlanReturnLevels } from '../indicators/returnLevels/rows.js';
import type { Catalog, Dataset, Scenario } from '../reference/catalog.js';
import { CoverThread } from './coverThread.js';
import { areaCells, areaOfBody, areaOfQuery, areaQuery, type Area, type AreaAgg } from './area.js';
import { queryAreaIndicator, queryAreaModelRows } from './areaIndicator.js';
import { warmingAreaRows, warmingAreaSeries } from './areaWarming.js';
import { queryAreaRawData, queryAreaRawDataText } from './areaRawData.js';

export interface AreaDeps extends ClimateDeps {
  maxAreaVertices: number;
  maxAreaCells: number;
  /** Clipping an area past this many milliseconds is given up (QUERY_TIMEOUT_MS). */
  clipTimeoutMs: number;
}

/** What a CSV or Arrow answer says of the area: how it was asked for, as an API path. */
function areaLabels(req: Request, area: Area, dataset: Dataset, scenario: Scenario): TableLabels {
  const query = req.query as Record<string, unknown>;
  const named = (['region', 'city', 'bbox'] as const).find((n) => req.method === 'GET' && typeof query[n] === 'string');
  const place = named ? `${named}_${String(query[named])}` : 'polygon';
  const location = named ? `area/${named}/${String(query[named])}` : 'area/polygon';
  return { location, feature: area.featureJson, dataset: dataset.name, scenario: scenario.name, fileStem: safeFileName(['climate-data', 'area', place, scenario.name, dataset.name].join('_')) };
}

/**
 * The query parameters of the area endpoints: a GET names its area (region, city or bbox), a POST
 * sends it as the body (and is refused those three). The routes parse with these shapes and the
 * OpenAPI operations list them (src/api/areaOperations.ts).
 */
export function areaQueries(catalog: Catalog) {
  const { region, city, bbox, area_agg } = areaQuery;
  const raw = rawDataQuery(catalog);
  const indicator = indicatorQuery(catalog);
  return {
    raw: { get: { ...raw, region, city, bbox, area_agg, ...formatQuery }, post: { ...raw, area_agg, ...formatQuery } },
    indicator: { get: { ...indicator, region, city, bbox, area_agg, ...formatQuery }, post: { ...indicator, area_agg, ...formatQuery } },
  };
}

/**
 * GET and POST /api/climate-data/area/{scenario}/ (daily data) and .../indicator/{name}/ over an
 * area: an ecoregion, a city's boundary, a bbox, or a posted GeoJSON polygon. Mounted before the
 * single-cell routes, whose `{city}` segment would otherwise take `area`.
 */
export function areaRoutes({ catalog, progress, queries, throttle, maxModelYears, maxAreaVertices, maxAreaCells, clipTimeoutMs }: AreaDeps): Router {
  const router = Router();
  // Both methods parse with the GET shape: a POST's lacks only region, city and bbox, which areaOfQuery and areaOfBody read.
  const shapes = areaQueries(catalog);
  const indicatorFields = queryFields(shapes.indicator.get, { blankIsAbsent: true });
  const rawFields = queryFields(shapes.raw.get, { blankIsAbsent: true });
  // 10,000 vertices are about 400 KB of GeoJSON; pretty-printed, more.
  const body = express.json({ limit: '4mb', type: ['application/json', 'application/geo+json'] });

  /** The area of the request and its cells with data, each ready to read (503 while one is being built). */
  const clipper = new CoverThread(clipTimeoutMs);
  async function areaOf(req: Request, dataset: Dataset, scenario: Scenario): Promise<Area> {
    const query = request(req).query;
    const { shape, origin } = req.method === 'POST' ? areaOfBody(req.body, query, maxAreaVertices) : await areaOfQuery(catalog, queries, query);
    return areaCells(catalog, dataset, shape, origin, maxAreaCells, (cellId) => {
      progress.requireCell(dataset.name, cellId);
      return climateFile(catalog.dataDir, dataset.name, scenario.name, cellId) !== undefined;
    }, clipper);
  }

  async function sendIndicator(req: Request, res: Response) {
    const { query, params } = request(req);
    const scenario = scenarioOr404(catalog, params.scenario);
    const dataset = indicatorFields.dataset(query);
    const format = negotiateFormat(req);
    const plan = indicatorPlan(catalog, indicatorFields, query, dataset, scenario, params.name, maxModelYears);
    const areaAgg = indicatorFields.area_agg(query);
    const { meta, models, years, relativeTo } = plan;
    const area = await areaOf(req, dataset, scenario);
    if (plan.returnLevels) return sendReturnLevels(req, res, format, plan, area, areaAgg);

    let rows: Awaited<ReturnType<typeof queryAreaIndicator>> = [];
    if (plan.warming) {
      rows = await warmingAreaRows(catalog, queries, plan, plan.warming, area.cells, areaAgg);
    } else if (years.length > 0) {
      // Every cell of the area has data for the scenario (areaOf reads only those).
      const cells = area.cells.map(({ cellId }) => planCellFiles(catalog, plan, cellId, `map cell ${cellId} of this area`)!);
      rows = await queryAreaIndicator(queries, planRequest(plan, cells), area.cells.map((c) => c.weight), areaAgg);
    }
    if (format !== 'json') {
      const labels = areaLabels(req, area, dataset, scenario);
      const ctx = { labels, indicator: meta.name, units: plan.units, timeAggregation: plan.timeAggregation, models, relativeTo, warming: plan.warming, leftOut: plan.leftOut };
      return sendTable(res, format, safeFileName(`${labels.fileStem}_${meta.name}`), format === 'csv' ? indicatorCsv(rows, ctx) : indicatorArrow(rows, ctx));
    }
    res
      .vary('Accept')
      .type('application/json')
      .send(`{"area":${area.featureJson},"area_agg":${JSON.stringify(areaAgg)},${indicatorHead(plan, indicatorJson(meta, datasetRanges(catalog, plan.dataset)))}"data":${dataJson(rows)}}`);
  }

  /** return_period or baseline_return_period over an area: each model's series combined over the cells, then fitted. */
  async function sendReturnLevels(req: Request, res: Response, format: Format, plan: IndicatorPlan, area: Area, areaAgg: AreaAgg) {
    const rows = plan.warming ? warmingPlanReturnLevels(plan, await warmingAreaSeries(catalog, queries, plan, plan.warming, area.cells, areaAgg)) : await plainAreaReturnLevels(plan, area, areaAgg);
    if (format !== 'json') {
      const labels = areaLabels(req, area, plan.dataset, plan.scenario);
      const stem = safeFileName(`${labels.fileStem}_${plan.meta.name}_return_levels`);
      if (format === 'csv') return sendTable(res, format, stem, returnLevelCsvHeader(plan) + returnLevelCsvRows(plan, labels, rows));
      const table = new ReturnLevelArrow(plan, [['location', labels.location], ['location_feature', labels.feature], ['dataset', labels.dataset], ['scenario', scenarioLabel(labels.scenario, plan.warming)], ['area_agg', areaAgg]]);
      table.add(rows);
      return sendTable(res, format, stem, table.toIPC());
    }
    res
      .vary('Accept')
      .type('application/json')
      .send(`{"area":${area.featureJson},"area_agg":${JSON.stringify(areaAgg)},${returnLevelHead(plan, indicatorJson(plan.meta, datasetRanges(catalog, plan.dataset)))}"data":${returnLevelDataJson(rows)}}`);
  }

  async function plainAreaReturnLevels(plan: IndicatorPlan, area: Area, areaAgg: AreaAgg) {
    const cells = area.cells.map(({ cellId }) => planCellFiles(catalog, plan, cellId, `map cell ${cellId} of this area`)!);
    return modelReturnLevels(await queryAreaModelRows(queries, planRequest(plan, cells), area.cells.map((c) => c.weight), areaAgg), returnLevelRequest(plan));
  }

  async function sendRaw(req: Request, res: Response) {
    const { query, params } = request(req);
    const scenario = scenarioOr404(catalog, params.scenario);
    const dataset = rawFields.dataset(query);
    const format = negotiateFormat(req);
    const areaAgg = rawFields.area_agg(query);
    const { agg, models, variables, years, leftOut } = rawDataPlan(catalog, rawFields, query, dataset, scenario, maxModelYears);
    const area = await areaOf(req, dataset, scenario);
    const rawQuery = {
      cells: area.cells.map((c) => ({ file: climateFile(catalog.dataDir, dataset.name, scenario.name, c.cellId)!, weight: c.weight })),
      models,
      years,
      variables,
      agg,
      areaAgg,
    };
    const empty = years.length === 0 || variables.length === 0;
    if (format !== 'json') {
      const cols = empty ? undefined : await queryAreaRawData(queries, rawQuery);
      const labels = areaLabels(req, area, dataset, scenario);
      return sendTable(res, format, labels.fileStem, format === 'csv' ? dailyDataCsv(cols, variables, agg, labels) : dailyDataArrow(cols, variables, { labels, agg, models }));
    }
    const members = empty ? [] : dailyDataJson(await queryAreaRawDataText(queries, rawQuery), variables);
    const head =
      `{"area":${area.featureJson},"area_agg":${JSON.stringify(areaAgg)},"dataset":${JSON.stringify(dataset.name)},"scenario":${JSON.stringify(scenario.name)},` +
      `"climate_models":${JSON.stringify(models)},"variables":${JSON.stringify(variables)},` +
      (leftOut.length > 0 ? `"models_left_out":${JSON.stringify(leftOut)},` : '') +
      '"data":{';
    res.vary('Accept').type('application/json');
    sendPieces(res, [head, ...members.flatMap((m, i) => (i > 0 ? [',', m] : [m])), '}}']);
  }

  router.get('/api/climate-data/area/:scenario/indicator/:name/', throttle, sendIndicator);
  router.post('/api/climate-data/area/:scenario/indicator/:name/', throttle, body, sendIndicator);
  router.get('/api/climate-data/area/:scenario/', throttle, sendRaw);
  router.post('/api/climate-data/area/:scenario/', throttle, body, sendRaw);
  return router;
}
