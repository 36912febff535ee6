import { createHash, timingSafeEqual } from 'node:crypto';
import { Router, type Response } from 'express';
import type { QueryPool } from '../db/queryPool.js';
import { sqlFile } from '../db/sqlFiles.js';
import { markNotReady } from './errors.js';
import type { Metrics } from './metrics.js';

/** Set by server.ts when a shutdown starts, so that /readyz turns load balancers away first. */
export interface Lifecycle {
  shuttingDown: boolean;
}

/** How far the data being served is built (src/climate/buildProgress.ts). */
export interface DataReadiness {
  complete(): boolean;
  counts(): { built: number; total: number };
  describe(): string;
}

export interface OpsDeps {
  queries: QueryPool;
  progress: DataReadiness;
  lifecycle: Lifecycle;
  /** Undefined when METRICS=off. */
  metrics?: Metrics;
  /** METRICS_TOKEN: when set, /metrics needs it as a Bearer (or Token) credential. */
  metricsToken?: string;
  /** The data build served, named by /readyz. */
  buildId: string;
  /** The account store: a shared one (PostgreSQL) may stop answering. */
  accounts?: { ping(): Promise<void> };
}

export const OPS_PATHS = ['/healthz', '/readyz', '/metrics'];

/** Constant-time comparison of the presented credential with the configured one. */
function sameSecret(presented: string, expected: string): boolean {
  const digest = (s: string) => createHash('sha256').update(s).digest();
  return timingSafeEqual(digest(presented), digest(expected));
}

function metricsAuthorized(header: string | undefined, token: string): boolean {
  const m = /^(?:Bearer|Token)[ \t]+(\S+)[ \t]*$/i.exec(header ?? '');
  return m !== null && sameSecret(m[1]!, token);
}

const noStore = (res: Response) => res.set('Cache-Control', 'no-store');

/**
 * GET /healthz (the process answers), /readyz (not shutting down, the data build complete, and the
 * DuckDB query pool hands out a connection that answers a query: 503 otherwise) and /metrics (Prometheus text). No API
 * token: probes and scrapers have none; /metrics has its own optional METRICS_TOKEN. No trailing
 * slash, as probes and Prometheus expect; mounted before the slash redirect.
 */
export function opsRoutes({ queries, progress, lifecycle, metrics, metricsToken, accounts, buildId }: OpsDeps): Router {
  const router = Router();
  const readiness = sqlFile('ops/readiness.sql');

  router.get('/healthz', (_req, res) => {
    noStore(res).json({ status: 'ok' });
  });

  router.get('/readyz', async (_req, res) => {
    noStore(res);
    // Building and shutting down are states a probe is meant to see; a store that does not answer is a fault.
    if (lifecycle.shuttingDown) {
      markNotReady(res, 'shutting_down');
      res.status(503).json({ status: 'shutting down', detail: 'The server is shutting down.' });
      return;
    }
    if (!progress.complete()) {
      const { built, total } = progress.counts();
      markNotReady(res, 'building');
      res.status(503).json({ status: 'building', detail: progress.describe(), cells_built: built, cells_total: total });
      return;
    }
    try {
      await accounts?.ping();
    } catch (err) {
      res.status(503).json({ status: 'not ready', detail: err instanceof Error ? err.message : String(err) });
      return;
    }
    try {
      await queries.run((conn) => conn.run(readiness));
      res.json({ status: 'ready', build_id: buildId });
    } catch (err) {
      const reason = err instanceof Error ? err.message : String(err);
      res.status(503).json({ status: 'not ready', detail: `The data store did not answer a query: ${reason}` });
    }
  });

  router.get('/metrics', async (req, res) => {
    noStore(res);
    if (!metrics) {
      res.status(404).json({ detail: 'Metrics are turned off (METRICS=off).' });
      return;
    }
    if (metricsToken !== undefined && !metricsAuthorized(req.headers.authorization, metricsToken)) {
      res.set('WWW-Authenticate', 'Bearer').status(401).json({ detail: 'GET /metrics needs Authorization: Bearer <METRICS_TOKEN>.' });
      return;
    }
    const text = await metrics.registry.metrics();
    res.type(metrics.registry.contentType).send(text);
  });

  router.all(OPS_PATHS, (req, res) => {
    res.set('Allow', 'GET, HEAD, OPTIONS').status(405).json({ detail: `Method "${req.method}" not allowed.` });
  });

  return router;
}
