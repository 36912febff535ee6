import { Router, type Request, type RequestHandler, type Response } from 'express';
import type { QueryPool } from '../db/queryPool.js';
import { badRequest } from '../http/errors.js';
import { negotiateFormat, sendTable } from '../http/format.js';
import type { Catalog, Dataset, Scenario } from '../reference/catalog.js';
import { climateFile } from './files.js';
import { cityLocation, pointLocation, scenarioOr404, type Location } from './location.js';
import { checkCost, parseDataset, parseModels, parseVariables, parseYears, scenarioYears, single } from './params.js';
import { dailyDataJson, queryRawData, RAW_AGGS, type RawAgg } from './rawData.js';
import { dailyDataArrow } from './rawArrow.js';
import { dailyDataCsv } from './rawCsv.js';
import { tableLabels } from './tableLabels.js';

export interface ClimateDeps {
  catalog: Catalog;
  queries: QueryPool;
  throttle: RequestHandler;
  maxModelYears: number;
}

/** Path segments (one each: no route here has a wildcard) and the parsed query string. */
export const request = (req: Request) => ({
  params: req.params as Record<string, string | undefined>,
  query: req.query as Record<string, unknown>,
});

function parseRawAgg(value: string | undefined): RawAgg {
  if (value === undefined) return 'avg';
  if (!(RAW_AGGS as readonly string[]).includes(value)) throw badRequest(`agg must be one of ${RAW_AGGS.join(', ')} (across models); got '${value}'.`);
  return value as RawAgg;
}

/** GET /api/climate-data/{city}/{scenario}/ and /api/climate-data/{lat}/{lon}/{scenario}/ */
export function rawDataRoutes({ catalog, queries, throttle, maxModelYears }: ClimateDeps): Router {
  const router = Router();

  async function send(res: Response, query: Record<string, unknown>, location: Location, dataset: Dataset, scenario: Scenario) {
    const format = negotiateFormat(res.req);
    const agg = parseRawAgg(single(query, 'agg'));
    const models = parseModels(dataset, single(query, 'models'));
    const variables = parseVariables(single(query, 'variables'));
    const years = parseYears(single(query, 'years'), scenarioYears(catalog, scenario));
    checkCost(years.length, models.length, maxModelYears);
    const file = climateFile(catalog.dataDir, dataset.name, scenario.name, location.cellId);
    const cols = file && years.length > 0 && variables.length > 0 ? await queryRawData(queries, { file, models, years, variables, agg }) : undefined;
    if (format !== 'json') {
      const labels = tableLabels(location, dataset, scenario);
      const body = format === 'csv' ? dailyDataCsv(cols, variables, agg, labels) : dailyDataArrow(cols, variables, { labels, agg, models });
      return sendTable(res, format, labels.fileStem, body);
    }
    const data = cols ? dailyDataJson(cols, variables) : '{}';
    res
      .vary('Accept')
      .type('application/json')
      .send(
        `{"${location.key}":${location.featureJson},"dataset":${JSON.stringify(dataset.name)},"scenario":${JSON.stringify(scenario.name)},` +
          `"climate_models":${JSON.stringify(models)},"variables":${JSON.stringify(variables)},"data":${data}}`,
      );
  }

  router.get('/api/climate-data/:city/:scenario/', throttle, async (req, res) => {
    const { query, params } = request(req);
    const scenario = scenarioOr404(catalog, params.scenario);
    const dataset = parseDataset(catalog, single(query, 'dataset'));
    await send(res, query, cityLocation(catalog, params.city, dataset), dataset, scenario);
  });

  router.get('/api/climate-data/:lat/:lon/:scenario/', throttle, async (req, res) => {
    const { query, params } = request(req);
    const scenario = scenarioOr404(catalog, params.scenario);
    const dataset = parseDataset(catalog, single(query, 'dataset'));
    await send(res, query, pointLocation(catalog, params.lat, params.lon, query, dataset), dataset, scenario);
  });

  return router;
}
