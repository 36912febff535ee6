import { Router, type Response } from 'express';
import type { Dataset, Scenario } from '../reference/catalog.js';
import { climateFile, summaryFile } from '../climate/files.js';
import { cityLocation, pointLocation, scenarioOr404, type Location } from '../climate/location.js';
import { checkCost, parseModels, scenarioYears, yearsWithin } from '../climate/params.js';
import { request, type ClimateDeps } from '../climate/routes.js';
import { HttpError } from '../http/errors.js';
import { queryFields } from '../http/queryParams.js';
import { negotiateFormat, sendTable } from '../http/format.js';
import { safeFileName, tableLabels } from '../climate/tableLabels.js';
import { indicatorArrow } from './indicatorArrow.js';
import { indicatorCsv } from './indicatorCsv.js';
import type { IndicatorMeta } from './metadata.js';
import { customSpans, indicatorQuery, multiYearWindows, parseBaseline, parseIndicatorVariables, parseUnits } from './params.js';
import { queryIndicator, type IndicatorRequest, type PeriodStats } from './query.js';
import { findIndicator, indicatorJson } from './registry.js';
import { INDICATORS } from './metadata.js';

function indicatorOr404(name: string | undefined): IndicatorMeta {
  const meta = findIndicator(name ?? '');
  if (!meta) throw new HttpError(404, `Indicator ${name} does not exist.`);
  return meta;
}

/** The `data` member of an indicator answer: period -> statistic -> value (null for none). */
export function dataJson(rows: PeriodStats[]): string {
  const periods = rows.map(({ period, stats }) => `${JSON.stringify(period)}:{${stats.map(([k, v]) => `${JSON.stringify(k)}:${v === null || !Number.isFinite(v) ? 'null' : String(v)}`).join(',')}}`);
  return `{${periods.join(',')}}`;
}

/** GET /api/indicator/, /api/indicator/{name}/ and the indicator data endpoints. */
export function indicatorRoutes({ catalog, progress, queries, throttle, maxModelYears }: ClimateDeps): Router {
  const router = Router();
  const q = queryFields(indicatorQuery(catalog), { blankIsAbsent: true });

  router.get('/api/indicator/', (_req, res) => {
    res.json(INDICATORS.map((m) => indicatorJson(m, catalog.historicRanges)));
  });
  router.get('/api/indicator/:name/', (req, res) => {
    res.json(indicatorJson(indicatorOr404(request(req).params.name), catalog.historicRanges));
  });

  async function send(res: Response, query: Record<string, unknown>, location: Location, dataset: Dataset, scenario: Scenario, name: string | undefined) {
    const format = negotiateFormat(res.req);
    const models = parseModels(dataset, q.models(query));
    const meta = indicatorOr404(name);
    const aggs = q.agg(query);
    const timeAggregation = q.time_aggregation(query);
    const spans = customSpans(timeAggregation, query, q.custom_time_agg);
    const units = parseUnits(meta, q.units(query));
    const vars = parseIndicatorVariables(meta, query, q);
    const available = scenarioYears(catalog, scenario);
    const { windows, years: windowYears } = multiYearWindows(timeAggregation, query, q.windows, yearsWithin(q.years(query), available), available);
    let years = windowYears;
    // An offset year is named by its first calendar year and also needs the next one.
    if (timeAggregation === 'offset_yearly') years = [...new Set(years.flatMap((y) => (y < available[1] ? [y, y + 1] : [y])))].sort((a, b) => a - b);
    const relativeTo = parseBaseline(catalog, query, q);
    const baselineYears = relativeTo ? Array.from({ length: relativeTo.end_year - relativeTo.start_year + 1 }, (_, i) => relativeTo.start_year + i) : [];
    checkCost(years.length + baselineYears.length, models.length, maxModelYears);
    progress.requireCell(dataset.name, location.cellId);

    const file = climateFile(catalog.dataDir, dataset.name, scenario.name, location.cellId);
    let rows: PeriodStats[] = [];
    if (file && years.length > 0) {
      let historicFile: string | undefined;
      if (vars.historicRange) {
        historicFile = climateFile(catalog.dataDir, dataset.name, 'historical', location.cellId);
        if (!historicFile) throw new HttpError(404, `No historical ${dataset.name} data for this map cell, so no historic baseline for ${meta.name}.`);
      }
      let baseline: IndicatorRequest['baseline'];
      if (relativeTo) {
        const baselineFile = climateFile(catalog.dataDir, dataset.name, 'historical', location.cellId);
        if (!baselineFile) throw new HttpError(404, `No historical ${dataset.name} data for this map cell, so no baseline for relative_to.`);
        const monthlyFile = summaryFile(catalog.dataDir, 'monthly', dataset.name, 'historical', location.cellId);
        baseline = { file: baselineFile, monthlyFile, years: baselineYears, change: relativeTo.change };
      }
      const all = models.length === dataset.models.length;
      const monthlyFile = summaryFile(catalog.dataDir, 'monthly', dataset.name, scenario.name, location.cellId);
      // Windows are made of each model's yearly values.
      const periods = windows ? 'yearly' : timeAggregation;
      rows = await queryIndicator(queries, { name: meta.name, file, monthlyFile, models: all ? undefined : models, years, timeAggregation: periods, spans, aggs, units, historicFile, baseline, windows, ...vars });
    }
    if (format !== 'json') {
      const labels = tableLabels(location, dataset, scenario);
      const ctx = { labels, indicator: meta.name, units, timeAggregation, models, relativeTo };
      return sendTable(res, format, safeFileName(`${labels.fileStem}_${meta.name}`), format === 'csv' ? indicatorCsv(rows, ctx) : indicatorArrow(rows, ctx));
    }
    const data = dataJson(rows);
    res
      .vary('Accept')
      .type('application/json')
      .send(
        `{"${location.key}":${location.featureJson},"dataset":${JSON.stringify(dataset.name)},"scenario":${JSON.stringify(scenario.name)},` +
          `"indicator":${JSON.stringify(indicatorJson(meta, catalog.historicRanges))},"climate_models":${JSON.stringify(models)},` +
          `"time_aggregation":${JSON.stringify(timeAggregation)},"units":${JSON.stringify(units)},` +
          (relativeTo ? `"relative_to":${JSON.stringify(relativeTo)},` : '') +
          `"data":${data}}`,
      );
  }

  router.get('/api/climate-data/:city/:scenario/indicator/:name/', throttle, async (req, res) => {
    const { query, params } = request(req);
    const scenario = scenarioOr404(catalog, params.scenario);
    const dataset = q.dataset(query);
    await send(res, query, cityLocation(catalog, params.city, dataset), dataset, scenario, params.name);
  });

  router.get('/api/climate-data/:lat/:lon/:scenario/indicator/:name/', throttle, async (req, res) => {
    const { query, params } = request(req);
    const scenario = scenarioOr404(catalog, params.scenario);
    const dataset = q.dataset(query);
    await send(res, query, pointLocation(catalog, params.lat, params.lon, query, dataset), dataset, scenario, params.name);
  });

  return router;
}
