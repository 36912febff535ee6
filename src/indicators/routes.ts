import { datasetRanges, defaultDatasetRanges } from '../reference/datasetContents.js';
import { Router, type Response } from 'express';
import type { Catalog, Dataset, Scenario } from '../reference/catalog.js';
import { distanceQuery } from '../reference/pointParams.js';
import { cityLocation, pointLocation, scenarioOr404, type Location } from '../climate/location.js';
import { request, type ClimateDeps } from '../climate/routes.js';
import { queryFields } from '../http/queryParams.js';
import { formatQuery, negotiateFormat, sendTable, type Format } from '../http/format.js';
import { safeFileName, tableLabels } from '../climate/tableLabels.js';
import { indicatorArrow } from './indicatorArrow.js';
import { indicatorCsv, scenarioLabel } from './indicatorCsv.js';
import { dataJson, indicatorHead, indicatorRows } from './indicatorData.js';
import { indicatorOr404, indicatorPlan, type IndicatorPlan } from './indicatorPlan.js';
import { ReturnLevelArrow, returnLevelCsvHeader, returnLevelCsvRows, returnLevelDataJson, returnLevelHead } from './returnLevels/answer.js';
import { returnLevelRows } from './returnLevels/rows.js';
import { indicatorQuery } from './params.js';
import { indicatorJson } from './registry.js';
import { INDICATORS } from './metadata.js';

/**
 * The query parameters of the indicator data endpoints, for a city and at a point: the routes parse
 * with these shapes and the OpenAPI operations list them (src/api/openapi.ts).
 */
export function indicatorDataQueries(catalog: Catalog) {
  const indicator = indicatorQuery(catalog);
  return { city: { ...indicator, ...formatQuery }, point: { ...indicator, ...distanceQuery, ...formatQuery } };
}

/** GET /api/indicator/, /api/indicator/{name}/ and the indicator data endpoints. */
export function indicatorRoutes({ catalog, progress, queries, throttle, maxModelYears }: ClimateDeps): Router {
  const router = Router();
  const shapes = indicatorDataQueries(catalog);
  const forCity = queryFields(shapes.city, { blankIsAbsent: true });
  const atPoint = queryFields(shapes.point, { blankIsAbsent: true });

  // The indicator metadata shows the default dataset's defaults (its latest historic range).
  const ranges = defaultDatasetRanges(catalog);
  router.get('/api/indicator/', (_req, res) => {
    res.json(INDICATORS.map((m) => indicatorJson(m, ranges)));
  });
  router.get('/api/indicator/:name/', (req, res) => {
    res.json(indicatorJson(indicatorOr404(request(req).params.name), ranges));
  });

  async function send(res: Response, q: typeof forCity, query: Record<string, unknown>, location: Location, dataset: Dataset, scenario: Scenario, name: string | undefined) {
    const format = negotiateFormat(res.req);
    const plan = indicatorPlan(catalog, q, query, dataset, scenario, name, maxModelYears);
    progress.requireCell(dataset.name, location.cellId);
    if (plan.returnLevels) return sendReturnLevels(res, format, location, plan);
    const rows = await indicatorRows(catalog, queries, plan, location.cellId);
    if (format !== 'json') {
      const labels = tableLabels(location, dataset, scenario);
      const ctx = { labels, indicator: plan.meta.name, units: plan.units, timeAggregation: plan.timeAggregation, models: plan.models, relativeTo: plan.relativeTo, warming: plan.warming, leftOut: plan.leftOut };
      return sendTable(res, format, safeFileName(`${labels.fileStem}_${plan.meta.name}`), format === 'csv' ? indicatorCsv(rows, ctx) : indicatorArrow(rows, ctx));
    }
    res
      .vary('Accept')
      .type('application/json')
      .send(`{"${location.key}":${location.featureJson},${indicatorHead(plan, indicatorJson(plan.meta, datasetRanges(catalog, plan.dataset)))}"data":${dataJson(rows)}}`);
  }

  /** return_period or baseline_return_period: the answer keyed by return period (returnLevels/answer.ts). */
  async function sendReturnLevels(res: Response, format: Format, location: Location, plan: IndicatorPlan) {
    const rows = await returnLevelRows(catalog, queries, plan, location.cellId);
    if (format !== 'json') {
      const labels = tableLabels(location, plan.dataset, plan.scenario);
      const stem = safeFileName(`${labels.fileStem}_${plan.meta.name}_return_levels`);
      if (format === 'csv') return sendTable(res, format, stem, returnLevelCsvHeader(plan) + returnLevelCsvRows(plan, labels, rows));
      const table = new ReturnLevelArrow(plan, [['location', labels.location], ['location_feature', labels.feature], ['dataset', labels.dataset], ['scenario', scenarioLabel(labels.scenario, plan.warming)]]);
      table.add(rows);
      return sendTable(res, format, stem, table.toIPC());
    }
    res
      .vary('Accept')
      .type('application/json')
      .send(`{"${location.key}":${location.featureJson},${returnLevelHead(plan, indicatorJson(plan.meta, datasetRanges(catalog, plan.dataset)))}"data":${returnLevelDataJson(rows)}}`);
  }

  router.get('/api/climate-data/:city/:scenario/indicator/:name/', throttle, async (req, res) => {
    const { query, params } = request(req);
    const scenario = scenarioOr404(catalog, params.scenario);
    const dataset = forCity.dataset(query);
    await send(res, forCity, query, cityLocation(catalog, params.city, dataset), dataset, scenario, params.name);
  });

  router.get('/api/climate-data/:lat/:lon/:scenario/indicator/:name/', throttle, async (req, res) => {
    const { query, params } = request(req);
    const scenario = scenarioOr404(catalog, params.scenario);
    const dataset = atPoint.dataset(query);
    await send(res, atPoint, query, pointLocation(catalog, params.lat, params.lon, atPoint.distance, query, dataset), dataset, scenario, params.name);
  });

  return router;
}
