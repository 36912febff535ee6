import { Router, type Request } from 'express';
import { z } from 'zod';
import { datasetRanges, defaultDatasetRanges } from './datasetContents.js';
import { datasetVariables, modelsLacking } from './datasetVariables.js';
import { provenanceOf } from './datasetSources.js';
import { badRequest, notFound } from '../errors.js';
import { queryParser, text } from '../http/queryParams.js';
import type { Catalog, ClimateModel, Dataset, Scenario } from './catalog.js';

const modelJson = (m: ClimateModel) => ({
  name: m.name,
  label: m.label,
  datasets: m.datasets,
  base_time: null,
  runs: m.runs.map((r) => ({ dataset: r.dataset, member: r.member, grid_label: r.gridLabel, calendar: r.calendar, scenarios: r.scenarios })),
});

export const namedListQuery = {
  name: text().optional().meta({ description: 'Only the item with exactly this name.' }),
  ordering: z.enum(['name', '-name'], { error: "must be 'name' or '-name'" }).optional().meta({ description: 'Sort by name; -name for descending.' }),
};
const namedListParams = queryParser(namedListQuery);

/** `?name=` (exact) and `?ordering=name|-name` on the unpaginated named lists, as the original. */
function namedList<T extends { name: string }>(req: Request, items: T[]): T[] {
  const q = namedListParams(req.query);
  let out = q.name === undefined ? items : items.filter((i) => i.name === q.name);
  if (q.ordering) {
    out = [...out].sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
    if (q.ordering === '-name') out.reverse();
  }
  return out;
}

export const historicRangeQuery = {
  dataset: text()
    .optional()
    .meta({
      description:
        "The ranges of this dataset (within its historical years: 1981-2010 is a range of the CMIP6 datasets only), e.g. NEX-GDDP-CMIP6. Default: the default dataset's (NEX-GDDP), the three of the original API, so that a client that takes the latest range asks for one that every request without `dataset` accepts.",
    }),
  ordering: z
    .enum(['start_year', '-start_year'], { error: "must be 'start_year' or '-start_year'" })
    .optional()
    .meta({ description: 'Sort by start year; -start_year for descending.' }),
};
const historicRangeParams = queryParser(historicRangeQuery);

export function metadataRoutes(catalog: Catalog): Router {
  const router = Router();
  // New members go after the original's, so that clients reading those are not disturbed.
  const datasetJson = (d: Dataset) => ({
    name: d.name,
    label: d.label,
    description: d.description,
    url: d.url,
    models: d.models,
    grid: d.grid,
    generation: d.generation,
    scenarios: d.scenarios.map((s) => ({ name: s.name, start_year: s.startYear, end_year: s.endYear })),
    historic_ranges: datasetRanges(catalog, d).map((r) => ({ start_year: r.start_year, end_year: r.end_year })),
    variables: datasetVariables(d.name),
    models_lacking: Object.fromEntries(
      datasetVariables(d.name).flatMap((v) => {
        const models = modelsLacking(d.name, d.models, [v]).map((x) => x.model);
        return models.length > 0 ? [[v, models]] : [];
      }),
    ),
    ...provenanceOf(d.name),
  });
  const scenarioJson = (s: Scenario) => ({
    name: s.name,
    label: s.label,
    description: s.description,
    alias: s.alias,
    datasets: catalog.datasets.filter((d) => d.scenarios.some((x) => x.name === s.name)).map((d) => d.name),
  });

  router.get('/api/dataset/', (req, res) => {
    res.json(namedList(req, catalog.datasets).map(datasetJson));
  });
  router.get('/api/dataset/:name/', (req, res) => {
    const d = catalog.datasetByName.get(req.params.name);
    if (!d) throw notFound();
    res.json(datasetJson(d));
  });

  router.get('/api/climate-model/', (req, res) => {
    res.json(namedList(req, catalog.models).map(modelJson));
  });
  router.get('/api/climate-model/:name/', (req, res) => {
    const m = catalog.modelByName.get(req.params.name);
    if (!m) throw notFound();
    res.json(modelJson(m));
  });

  router.get('/api/scenario/', (req, res) => {
    res.json(namedList(req, catalog.scenarios).map(scenarioJson));
  });
  router.get('/api/scenario/:name/', (req, res) => {
    const s = catalog.scenarioByName.get(req.params.name);
    if (!s) throw notFound();
    res.json(scenarioJson(s));
  });

  router.get('/api/historic-range/', (req, res) => {
    const q = historicRangeParams(req.query);
    const dataset = q.dataset === undefined ? undefined : catalog.datasetByName.get(q.dataset);
    if (q.dataset !== undefined && !dataset) {
      throw badRequest(`dataset must be one of ${catalog.datasets.map((d) => d.name).join(', ')}; got '${q.dataset}'.`);
    }
    const ranges = dataset ? datasetRanges(catalog, dataset) : defaultDatasetRanges(catalog);
    res.json(q.ordering === '-start_year' ? [...ranges].reverse() : ranges);
  });

  return router;
}
