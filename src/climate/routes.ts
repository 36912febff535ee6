import { Router, type Request, type RequestHandler, type Response } from 'express';
import type { QueryPool } from '../db/queryPool.js';
import type { BuildProgress } from './buildProgress.js';
import { queryFields } from '../http/queryParams.js';
import { negotiateFormat, sendPieces, sendTable } from '../http/format.js';
import { acceptedEncodings } from '../http/compress.js';
import { SegmentCache, sendGzipPieces, type Piece } from '../http/gzipSegments.js';
import type { Catalog, Dataset, Scenario } from '../reference/catalog.js';
import { climateFile, summaryFile } from './files.js';
import { cityLocation, pointLocation, scenarioOr404, type Location } from './location.js';
import { checkCost, parseModels, rawDataQuery, scenarioYears, yearsWithin } from './params.js';
import { dailyDataJson, queryEnsembleJson, queryRawData, queryRawDataText, type RawDataQuery } from './rawData.js';
import { dailyDataArrow } from './rawArrow.js';
import { dailyDataCsv } from './rawCsv.js';
import { tableLabels } from './tableLabels.js';

export interface ClimateDeps {
  catalog: Catalog;
  /** Which cells may be read while the default data is still being built. */
  progress: BuildProgress;
  queries: QueryPool;
  throttle: RequestHandler;
  maxModelYears: number;
}

/** Path segments (one each: no route here has a wildcard) and the parsed query string. */
export const request = (req: Request) => ({
  params: req.params as Record<string, string | undefined>,
  query: req.query as Record<string, unknown>,
});

/** GET /api/climate-data/{city}/{scenario}/ and /api/climate-data/{lat}/{lon}/{scenario}/ */
export function rawDataRoutes({ catalog, progress, queries, throttle, maxModelYears }: ClimateDeps): Router {
  const router = Router();
  // 32 MB of gzip segments: about 10,000 cell-years of the three variables (3 KB each).
  const segments = new SegmentCache(32 * 1024 * 1024);
  const q = queryFields(rawDataQuery(catalog), { blankIsAbsent: true });

  async function send(res: Response, query: Record<string, unknown>, location: Location, dataset: Dataset, scenario: Scenario) {
    const format = negotiateFormat(res.req);
    const agg = q.agg(query);
    const models = parseModels(dataset, q.models(query));
    const variables = q.variables(query);
    const years = yearsWithin(q.years(query), scenarioYears(catalog, scenario));
    checkCost(years.length, models.length, maxModelYears);
    progress.requireCell(dataset.name, location.cellId);
    const file = climateFile(catalog.dataDir, dataset.name, scenario.name, location.cellId);
    let source: RawDataQuery['source'] | undefined;
    if (file && years.length > 0 && variables.length > 0) {
      source =
        models.length === dataset.models.length
          ? { kind: 'ensemble', file: summaryFile(catalog.dataDir, 'ensemble', dataset.name, scenario.name, location.cellId) }
          : { kind: 'days', file, models };
    }
    if (format !== 'json') {
      const cols = source ? await queryRawData(queries, { source, years, variables, agg }) : undefined;
      const labels = tableLabels(location, dataset, scenario);
      const body = format === 'csv' ? dailyDataCsv(cols, variables, agg, labels) : dailyDataArrow(cols, variables, { labels, agg, models });
      return sendTable(res, format, labels.fileStem, body);
    }
    // Members with a key are the same text for every request of this cell and year: their gzip
    // segments are kept (src/http/gzipSegments.ts).
    let yearMembers: Piece[] = [];
    if (source?.kind === 'ensemble') {
      const file = summaryFile(catalog.dataDir, 'ensemble_json', dataset.name, scenario.name, location.cellId);
      yearMembers = (await queryEnsembleJson(queries, { file, years, variables, agg })).map(({ year, member }) => ({ text: member, key: `${file}|${agg}|${variables.join(',')}|${year}` }));
    } else if (source) {
      yearMembers = dailyDataJson(await queryRawDataText(queries, { source, years, variables, agg }), variables).map((text) => ({ text }));
    }
    const head =
      `{"${location.key}":${location.featureJson},"dataset":${JSON.stringify(dataset.name)},"scenario":${JSON.stringify(scenario.name)},` +
      `"climate_models":${JSON.stringify(models)},"variables":${JSON.stringify(variables)},"data":{`;
    const pieces: Piece[] = [{ text: head }, ...yearMembers.flatMap((m, i) => (i > 0 ? [{ text: ',' }, m] : [m])), { text: '}}' }];
    res.vary('Accept').type('application/json');
    // gzip from kept segments costs a CRC pass; br would compress the whole megabyte again.
    if (yearMembers.some((m) => m.key) && acceptedEncodings(res.req.headers['accept-encoding']).includes('gzip')) sendGzipPieces(res, pieces, segments);
    else sendPieces(res, pieces.map((p) => p.text));
  }

  router.get('/api/climate-data/:city/:scenario/', throttle, async (req, res) => {
    const { query, params } = request(req);
    const scenario = scenarioOr404(catalog, params.scenario);
    const dataset = q.dataset(query);
    await send(res, query, cityLocation(catalog, params.city, dataset), dataset, scenario);
  });

  router.get('/api/climate-data/:lat/:lon/:scenario/', throttle, async (req, res) => {
    const { query, params } = request(req);
    const scenario = scenarioOr404(catalog, params.scenario);
    const dataset = q.dataset(query);
    await send(res, query, pointLocation(catalog, params.lat, params.lon, query, dataset), dataset, scenario);
  });

  return router;
}
