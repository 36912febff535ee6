import { Router, type Request, type RequestHandler, type Response } from 'express';
import type { QueryPool } from '../db/queryPool.js';
import type { BuildProgress } from './buildProgress.js';
import { queryFields } from '../http/queryParams.js';
import { formatQuery, negotiateFormat, sendPieces, sendTable } from '../http/format.js';
import { acceptedEncodings } from '../http/compress.js';
import { SegmentCache, sendGzipPieces, type Piece } from '../http/gzipSegments.js';
import type { Catalog, Dataset, Scenario } from '../reference/catalog.js';
import { distanceQuery } from '../reference/pointParams.js';
import { cityLocation, pointLocation, scenarioOr404, type Location } from './location.js';
import { rawDataQuery } from './params.js';
import { rawColumns, rawDataPlan, rawHead, rawYearMembers } from './rawDataPlan.js';
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

/**
 * The query parameters of the raw data endpoints, for a city and at a point: the routes parse with
 * these shapes and the OpenAPI operations list them (src/api/openapi.ts), so the two cannot differ.
 */
export function rawDataQueries(catalog: Catalog) {
  const raw = rawDataQuery(catalog);
  return { city: { ...raw, ...formatQuery }, point: { ...raw, ...distanceQuery, ...formatQuery } };
}

/** GET /api/climate-data/{city}/{scenario}/ and /api/climate-data/{lat}/{lon}/{scenario}/ */
export function rawDataRoutes({ catalog, progress, queries, throttle, maxModelYears }: ClimateDeps): Router {
  const router = Router();
  // 32 MB of gzip segments: about 10,000 cell-years of the three variables (3 KB each).
  const segments = new SegmentCache(32 * 1024 * 1024);
  const shapes = rawDataQueries(catalog);
  const forCity = queryFields(shapes.city, { blankIsAbsent: true });
  const atPoint = queryFields(shapes.point, { blankIsAbsent: true });

  async function send(res: Response, q: typeof forCity, query: Record<string, unknown>, location: Location, dataset: Dataset, scenario: Scenario) {
    const format = negotiateFormat(res.req);
    const plan = rawDataPlan(catalog, q, query, dataset, scenario, maxModelYears);
    progress.requireCell(dataset.name, location.cellId);
    if (format !== 'json') {
      const cols = await rawColumns(catalog, queries, plan, location.cellId);
      const labels = tableLabels(location, dataset, scenario);
      const body = format === 'csv' ? dailyDataCsv(cols, plan.variables, plan.agg, labels) : dailyDataArrow(cols, plan.variables, { labels, agg: plan.agg, models: plan.models });
      return sendTable(res, format, labels.fileStem, body);
    }
    const yearMembers = await rawYearMembers(catalog, queries, plan, location.cellId);
    const head = `{"${location.key}":${location.featureJson},${rawHead(plan)}"data":{`;
    const pieces: Piece[] = [{ text: head }, ...yearMembers.flatMap((m, i) => (i > 0 ? [{ text: ',' }, m] : [m])), { text: '}}' }];
    res.vary('Accept').type('application/json');
    // gzip from kept segments costs a CRC pass; br would compress the whole megabyte again.
    if (yearMembers.some((m) => m.key) && acceptedEncodings(res.req.headers['accept-encoding']).includes('gzip')) sendGzipPieces(res, pieces, segments);
    else sendPieces(res, pieces.map((p) => p.text));
  }

  router.get('/api/climate-data/:city/:scenario/', throttle, async (req, res) => {
    const { query, params } = request(req);
    const scenario = scenarioOr404(catalog, params.scenario);
    const dataset = forCity.dataset(query);
    await send(res, forCity, query, cityLocation(catalog, params.city, dataset), dataset, scenario);
  });

  router.get('/api/climate-data/:lat/:lon/:scenario/', throttle, async (req, res) => {
    const { query, params } = request(req);
    const scenario = scenarioOr404(catalog, params.scenario);
    const dataset = atPoint.dataset(query);
    await send(res, atPoint, query, pointLocation(catalog, params.lat, params.lon, atPoint.distance, query, dataset), dataset, scenario);
  });

  return router;
}
