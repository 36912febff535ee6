import cors from 'cors';
import express, { type RequestHandler, type Router } from 'express';
import { openApiDocument } from './api/openapi.js';
import { areaRoutes } from './areas/routes.js';
import { mapRoutes } from './maps/routes.js';
import { BuildProgress } from './climate/buildProgress.js';
import { rawDataRoutes } from './climate/routes.js';
import { indicatorRoutes } from './indicators/routes.js';
import type { Config } from './config.js';
import type { QueryPool } from './db/queryPool.js';
import { dataCaching } from './http/caching.js';
import { docsRoutes } from './http/docsRoutes.js';
import { explorerRoutes } from './explorer/routes.js';
import { LocalExports, type ExportScheduler } from './export/exportJobs.js';
import { runnerOptions } from './export/exportProcess.js';
import { QueuedExports } from './export/exportQueue.js';
import { exportRoutes } from './export/exportRoutes.js';
import { ExportStore } from './export/exportStore.js';
import { errorHandler, unknownPath } from './http/errors.js';
import { createMetrics } from './http/metrics.js';
import { opsRoutes, type Lifecycle } from './http/opsRoutes.js';
import { requestLog } from './http/requestLog.js';
import { securityHeaders } from './http/securityHeaders.js';
import { methodNotAllowed, options, trailingSlash } from './http/routing.js';
import { accountThrottles } from './http/throttle.js';
import { batchRoutes } from './batch/batchRoutes.js';
import { compress, compressibleType } from './http/compress.js';
import { memoryThrottleStores, type ThrottleStores } from './http/throttleStore.js';
import { createLogger, type Logger } from './logger.js';
import type { Catalog } from './reference/catalog.js';
import { cityRoutes } from './reference/cityRoutes.js';
import { mapCellRoutes } from './reference/mapCellRoutes.js';
import { metadataRoutes } from './reference/metadataRoutes.js';
import { regionRoutes } from './reference/regionRoutes.js';
import { warmingLevelRoutes } from './reference/warmingLevelRoutes.js';

export interface AppDeps {
  config: Config;
  catalog: Catalog;
  queries: QueryPool;
  auth: { requireToken: RequestHandler; tokenRouter: Router; accounts?: { ping(): Promise<void> } };
  /** Defaults to JSON lines on stdout at LOG_LEVEL; tests pass one that writes to memory. */
  logger?: Logger;
  /** server.ts sets `shuttingDown` on SIGTERM, which turns /readyz to 503. */
  lifecycle?: Lifecycle;
  /** How far the data build is (default: read from catalog.dataDir). */
  progress?: BuildProgress;
  /** The explorer page's built files (default: explorerAssetsDir()). */
  explorerAssets?: string;
  /** Where the per-account throttle counts (default: in memory); the same as createAuth's. */
  throttleStores?: ThrottleStores;
  /** Export jobs: their store in EXPORT_DIR and where they run (default: this process, or the queue with QUEUE_URL). */
  exports?: { store: ExportStore; scheduler: ExportScheduler };
}

/**
 * The export jobs of a server: on the queue's workers with QUEUE_URL, else in a child process on the
 * catalog `catalog()` names when each starts. One per process, shared by the apps of its data
 * builds (server.ts), so that a reload does not run a job twice.
 */
export function exportJobs(config: Config, catalog: () => Catalog): { store: ExportStore; scheduler: ExportScheduler } {
  const store = new ExportStore(config.EXPORT_DIR);
  const scheduler = config.QUEUE_URL ? new QueuedExports(config.QUEUE_URL) : new LocalExports(store, catalog, runnerOptions(config));
  // Expired exports go at the next request that lists or asks for exports, and at least hourly
  // (or each EXPORT_TTL, if shorter) when nobody asks.
  setInterval(() => {
    try {
      store.removeExpired();
    } catch {
      // EXPORT_DIR unreadable for now: the next sweep or request tries again, and says why.
    }
  }, Math.min(config.EXPORT_TTL, 3600) * 1000).unref();
  return { store, scheduler };
}

/** The Express app; tests drive it with supertest, server.ts listens with it. */
export function createApp({ config, catalog, queries, auth, logger, lifecycle, progress = new BuildProgress(catalog.dataDir), throttleStores = memoryThrottleStores(), explorerAssets, exports = exportJobs(config, () => catalog) }: AppDeps): express.Express {
  const app = express();
  app.disable('x-powered-by');
  // Express's ETag hashes every body; responses are immutable per data build, so a build-derived
  // ETag (src/http/caching.ts) is the better validator, and hashing 5-50 KB per request is not free.
  app.set('etag', false);
  app.set('trust proxy', config.TRUST_PROXY);

  const metrics = config.METRICS === 'on' ? createMetrics(queries, throttleStores) : undefined;
  app.use(requestLog(logger ?? createLogger(config.LOG_LEVEL)));
  app.use(securityHeaders());
  if (metrics) app.use(metrics.requests);
  // gzip at level 1 (nginx's default) and br at quality 1, each body compressed in one call
  // (src/http/compress.ts): CPU, not bandwidth, is what a 2-core server runs out of.
  app.use(compress({ threshold: 1024, compressible: compressibleType }));

  app.use(
    cors({
      origin: '*',
      exposedHeaders: ['Retry-After', 'Content-Disposition', 'ETag', 'X-Request-Id'],
      maxAge: 86400,
      preflightContinue: true,
    }),
  );
  app.use(options);
  app.use(opsRoutes({ queries, progress, lifecycle: lifecycle ?? { shuttingDown: false }, metrics, metricsToken: config.METRICS_TOKEN, accounts: auth.accounts, buildId: catalog.manifest.build_id }));
  app.use(docsRoutes(() => openApiDocument(catalog)));
  app.use(explorerRoutes(explorerAssets));
  app.use(trailingSlash);

  app.use(auth.tokenRouter);
  app.use('/api', auth.requireToken);
  // Before the build-derived validators: an export's state changes without a new build.
  app.use(
    exportRoutes({
      catalog,
      queries,
      progress,
      ...exports,
      limits: { maxValues: config.EXPORT_MAX_VALUES, maxRunning: config.EXPORT_MAX_RUNNING, maxBytes: config.EXPORT_MAX_BYTES, ttl: config.EXPORT_TTL, maxAreaVertices: config.MAX_AREA_VERTICES, clipTimeoutMs: config.QUERY_TIMEOUT_MS },
    }),
  );
  const caching = dataCaching({ buildId: catalog.manifest.build_id, maxAge: config.CACHE_MAX_AGE });
  app.use(caching.reference);
  app.use(cityRoutes(catalog, queries));
  app.use(mapCellRoutes(catalog));
  app.use(metadataRoutes(catalog));
  app.use(regionRoutes(catalog));
  app.use(warmingLevelRoutes(catalog));
  const accountLimits = accountThrottles({ burst: config.THROTTLE_BURST_RATE, sustained: config.THROTTLE_SUSTAINED_RATE }, throttleStores, metrics?.throttled);
  const throttle = caching.afterThrottle(accountLimits.perRequest);
  const climate = { catalog, progress, queries, throttle, maxModelYears: config.MAX_MODEL_YEARS };
  // Before the single-cell routes: their {city} segment would take `area` (and `map`).
  app.use(areaRoutes({ ...climate, maxAreaVertices: config.MAX_AREA_VERTICES, maxAreaCells: config.MAX_AREA_CELLS, clipTimeoutMs: config.QUERY_TIMEOUT_MS }));
  app.use(mapRoutes({ ...climate, maxCells: config.MAP_MAX_CELLS, maxDayCells: config.MAP_MAX_DAY_CELLS, clipTimeoutMs: config.QUERY_TIMEOUT_MS }));
  app.use(rawDataRoutes(climate));
  app.use(indicatorRoutes(climate));
  app.use(
    batchRoutes({ ...climate, charge: accountLimits.charge, maxLocations: config.MAX_BATCH_LOCATIONS, cellsPerRequest: config.BATCH_CELLS_PER_REQUEST, concurrency: config.QUERY_CONCURRENCY }),
  );

  app.use(methodNotAllowed);
  app.use(unknownPath);
  app.use(errorHandler);
  return app;
}
