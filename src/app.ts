import cors from 'cors';
import express, { type RequestHandler, type Router } from 'express';
import { rawDataRoutes } from './climate/routes.js';
import { indicatorRoutes } from './indicators/routes.js';
import type { Config } from './config.js';
import type { QueryPool } from './db/queryPool.js';
import { docsRoutes } from './http/docsRoutes.js';
import { errorHandler, unknownPath } from './http/errors.js';
import { methodNotAllowed, options, trailingSlash } from './http/routing.js';
import { accountThrottle } from './http/throttle.js';
import type { Catalog } from './reference/catalog.js';
import { cityRoutes } from './reference/cityRoutes.js';
import { mapCellRoutes } from './reference/mapCellRoutes.js';
import { metadataRoutes } from './reference/metadataRoutes.js';
import { regionRoutes } from './reference/regionRoutes.js';

export interface AppDeps {
  config: Config;
  catalog: Catalog;
  queries: QueryPool;
  auth: { requireToken: RequestHandler; tokenRouter: Router };
}

/** The Express app; tests drive it with supertest, server.ts listens with it. */
export function createApp({ config, catalog, queries, auth }: AppDeps): express.Express {
  const app = express();
  app.disable('x-powered-by');
  // Express's ETag hashes every body; responses are immutable per data build, so a build-derived
  // ETag is the better validator (not done yet), and hashing 5-50 KB per request is not free.
  app.set('etag', false);
  app.set('trust proxy', config.TRUST_PROXY);

  app.use(
    cors({
      origin: '*',
      exposedHeaders: ['Retry-After', 'Content-Disposition'],
      maxAge: 86400,
      preflightContinue: true,
    }),
  );
  app.use(options);
  app.use(docsRoutes(catalog));
  app.use(trailingSlash);

  app.use(auth.tokenRouter);
  app.use('/api', auth.requireToken);
  app.use(cityRoutes(catalog));
  app.use(mapCellRoutes(catalog));
  app.use(metadataRoutes(catalog));
  app.use(regionRoutes(catalog));
  const throttle = accountThrottle({ burst: config.THROTTLE_BURST_RATE, sustained: config.THROTTLE_SUSTAINED_RATE });
  const climate = { catalog, queries, throttle, maxModelYears: config.MAX_MODEL_YEARS };
  app.use(rawDataRoutes(climate));
  app.use(indicatorRoutes(climate));

  app.use(methodNotAllowed);
  app.use(unknownPath);
  app.use(errorHandler);
  return app;
}
