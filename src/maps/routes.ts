import { Router, type Response } from 'express';
import { CoverThread } from '../areas/coverThread.js';
import { scenarioOr404 } from '../climate/location.js';
import { request, type ClimateDeps } from '../climate/routes.js';
import { safeFileName } from '../climate/tableLabels.js';
import { cellsWithDays } from '../dataBuild/files.js';
import { badRequest } from '../errors.js';
import { formatQuery } from '../http/format.js';
import { queryFields } from '../http/queryParams.js';
import { indicatorPlan } from '../indicators/indicatorPlan.js';
import { indicatorQuery } from '../indicators/params.js';
import { indicatorJson } from '../indicators/registry.js';
import { datasetRanges, scenarioYears } from '../reference/datasetContents.js';
import { checkDatasetScenario } from '../climate/params.js';
import { colourScale } from './colourScale.js';
import { geoTiff } from './geotiff.js';
import { mapCsv, mapGeoJson, mapJson, mapRaster, type MapContent } from './mapAnswer.js';
import { mapCellList } from './mapCellList.js';
import { checkYearsInScenario, MAP_EXTENSIONS, MAP_MEDIA_TYPES, mapFormat, mapIndicatorQuery, mapPeriod, mapQuery, type MapFormat } from './mapParams.js';
import { mapValues } from './mapValues.js';

export interface MapDeps extends ClimateDeps {
  /** MAP_MAX_CELLS: most cells of any map. */
  maxCells: number;
  /** MAP_MAX_DAY_CELLS: most cells a map may compute from the days. */
  maxDayCells: number;
  /** Clipping a region past this many milliseconds is given up (QUERY_TIMEOUT_MS). */
  clipTimeoutMs: number;
}

/**
 * GET /api/climate-data/map/{scenario}/indicator/{name}/: an indicator for every cell of an area
 * (or of the dataset), over a span of years or at a warming level. Mounted before the single-cell
 * routes, whose `{city}` segment would otherwise take `map`.
 */
export function mapRoutes({ catalog, progress, queries, throttle, maxModelYears, maxCells, maxDayCells, clipTimeoutMs }: MapDeps): Router {
  const router = Router();
  const fields = queryFields(mapQuery(catalog), { blankIsAbsent: true });
  // The indicator endpoints' fields, which read the map's request as theirs (mapIndicatorQuery).
  const indicatorFields = queryFields({ ...indicatorQuery(catalog), ...formatQuery }, { blankIsAbsent: true });
  const clipper = new CoverThread(clipTimeoutMs);

  router.get('/api/climate-data/map/:scenario/indicator/:name/', throttle, async (req, res) => {
    const { query, params } = request(req);
    const scenario = scenarioOr404(catalog, params.scenario);
    const dataset = fields.dataset(query);
    const format = mapFormat(req);
    const period = mapPeriod(fields.years(query), fields.warming_level(query));
    checkDatasetScenario(dataset, scenario);
    checkYearsInScenario(period, scenarioYears(catalog, dataset, scenario), scenario.name);
    // The agg's own check (and the map's default) before the plan's.
    fields.agg(query);
    const plan = indicatorPlan(catalog, indicatorFields, mapIndicatorQuery(query, period), dataset, scenario, params.name, maxModelYears);
    // Cells still being built (a progressive default build) are left off the map rather than waited for.
    const withDays = cellsWithDays(catalog.dataDir, dataset.name, scenario.name);
    const cells = await mapCellList(catalog, queries, dataset, query, clipper, (cellId) => progress.cellReady(dataset.name, cellId) && withDays.has(cellId));
    if (cells.ids.length > maxCells) {
      throw badRequest(
        `This map has ${cells.ids.length} cells; the limit is ${maxCells} (MAP_MAX_CELLS). Ask for a smaller bbox or region, or export the cells' values (POST /api/export/).`,
      );
    }
    const values = await mapValues(catalog, queries, plan, cells.ids, (dayCells) => {
      if (dayCells > maxDayCells) {
        throw badRequest(
          `This map has ${dayCells} cells whose values must be computed from the days (${plan.meta.name} with these parameters is not in the build's summaries or map files); the limit is ${maxDayCells} (MAP_MAX_DAY_CELLS). ` +
            "Ask for a smaller bbox or region, use the indicator's default parameters, or export the cells' values (POST /api/export/).",
        );
      }
    });
    const content: MapContent = { plan, period, cells, values, scale: colourScale(plan.meta, plan.units, plan.relativeTo?.change), indicatorJson: indicatorJson(plan.meta, datasetRanges(catalog, dataset)) };
    send(res, format, content);
  });

  return router;
}

function send(res: Response, format: MapFormat, content: MapContent) {
  res.vary('Accept').type(MAP_MEDIA_TYPES[format]);
  if (format === 'json') return res.send(mapJson(content));
  const { plan, period } = content;
  const when = 'years' in period ? `${period.years.start}-${period.years.end}` : `warming_${period.warmingLevel}`;
  const stem = safeFileName(['map', plan.scenario.name, plan.dataset.name, plan.meta.name, when].join('_'));
  res.set('Content-Disposition', `attachment; filename="${stem}.${MAP_EXTENSIONS[format]}"`);
  if (format === 'geojson') return res.send(mapGeoJson(content));
  if (format === 'csv') return res.send(mapCsv(content));
  const tiff = geoTiff(mapRaster(content));
  res.send(Buffer.from(tiff.buffer, tiff.byteOffset, tiff.byteLength));
}
