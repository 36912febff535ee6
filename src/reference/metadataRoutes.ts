import { Router, type Request } from 'express';
import { z } from 'zod';
import { notFound } from '../http/errors.js';
import { queryParser, text } from '../http/queryParams.js';
import type { Catalog, ClimateModel, Dataset, Scenario } from './catalog.js';

const datasetJson = (d: Dataset) => ({ name: d.name, label: d.label, description: d.description, url: d.url, models: d.models });
const modelJson = (m: ClimateModel) => ({ name: m.name, label: m.label, datasets: m.datasets, base_time: null });
const scenarioJson = (s: Scenario) => ({ name: s.name, label: s.label, description: s.description, alias: s.alias });

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
  ordering: z
    .enum(['start_year', '-start_year'], { error: "must be 'start_year' or '-start_year'" })
    .optional()
    .meta({ description: 'Sort by start year; -start_year for descending.' }),
};
const historicRangeParams = queryParser(historicRangeQuery);

export function metadataRoutes(catalog: Catalog): Router {
  const router = Router();

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
    const ranges = [...catalog.historicRanges];
    if (q.ordering === '-start_year') ranges.reverse();
    res.json(ranges);
  });

  return router;
}
