import { Router } from 'express';
import { notFound } from '../errors.js';
import type { Catalog } from './catalog.js';
import { pointCellFeature } from './features.js';
import { parseDistance, parsePoint } from './pointParams.js';

export function mapCellRoutes(catalog: Catalog): Router {
  const router = Router();

  router.get('/api/map-cell/:lat/:lon/', (req, res) => {
    const { lat, lon } = parsePoint(req.params.lat, req.params.lon);
    const matches = catalog.mapCells.near(lat, lon, parseDistance(req.query));
    if (matches.length === 0) throw notFound();
    res.json(matches.map((m) => pointCellFeature(m.cell, [m.cell.dataset], m.distance)));
  });

  return router;
}
