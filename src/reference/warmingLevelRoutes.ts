import { Router } from 'express';
import type { Catalog } from './catalog.js';
import { warmingLevelListing } from './warmingLevels.js';

/** GET /api/warming-level/: the levels an indicator can be asked at, and who reaches them. */
export function warmingLevelRoutes(catalog: Catalog): Router {
  const router = Router();
  const listing = warmingLevelListing(catalog);
  router.get('/api/warming-level/', (_req, res) => {
    res.json(listing);
  });
  return router;
}
