import type { RequestHandler } from 'express';
import { collectDefaultMetrics, Counter, Gauge, Histogram, Registry } from 'prom-client';
import type { QueryPool } from '../db/queryPool.js';
import type { ThrottleStores } from './throttleStore.js';
import { notReadyReason } from './errors.js';
import { routePattern } from './requestLog.js';

export interface Metrics {
  /** This app's own registry: several apps in one process (the tests) do not share counters. */
  registry: Registry;
  /** Observes every request's duration by method, route pattern and status. */
  requests: RequestHandler;
  /** Counts a 429 of the per-account throttle. */
  throttled: () => void;
}

/** Seconds; from a cached reference page (~1 ms) to a climate query near its timeout. */
const REQUEST_BUCKETS = [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30];
const QUERY_BUCKETS = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30];

/** Prometheus metrics of one app: requests, DuckDB queries of `queries`, throttling, the process. */
export function createMetrics(queries: QueryPool, throttleStores: Pick<ThrottleStores, 'errors'>): Metrics {
  const registry = new Registry();
  const registers = [registry];
  collectDefaultMetrics({ register: registry });

  const requestSeconds = new Histogram({
    name: 'http_request_duration_seconds',
    help: 'Time from receiving a request to the end of its response. route is the Express route pattern, "none" when no route was reached (401 before routing, 404, redirects).',
    labelNames: ['method', 'route', 'status'] as const,
    buckets: REQUEST_BUCKETS,
    registers,
  });
  const querySeconds = new Histogram({
    name: 'duckdb_query_duration_seconds',
    help: 'Time a climate query held a pooled DuckDB connection, by outcome (ok, error, timeout).',
    labelNames: ['outcome'] as const,
    buckets: QUERY_BUCKETS,
    registers,
  });
  const queryWaitSeconds = new Histogram({
    name: 'duckdb_query_wait_seconds',
    help: 'Time a climate query waited in the queue for a pooled DuckDB connection (QUERY_CONCURRENCY).',
    buckets: [0, ...QUERY_BUCKETS],
    registers,
  });
  let storeErrorsSeen = 0;
  new Counter({
    name: 'throttle_store_errors_total',
    help: 'Failures of the shared throttle store (THROTTLE_URL): each let a request through uncounted.',
    registers,
    collect() {
      this.inc(throttleStores.errors - storeErrorsSeen);
      storeErrorsSeen = throttleStores.errors;
    },
  });
  new Gauge({
    name: 'duckdb_queries_in_flight',
    help: 'Climate queries running now.',
    registers,
    collect() {
      this.set(queries.inFlight);
    },
  });
  new Gauge({
    name: 'duckdb_queries_queued',
    help: 'Climate queries waiting for a pooled connection now.',
    registers,
    collect() {
      this.set(queries.queued);
    },
  });
  const throttled = new Counter({
    name: 'http_throttled_requests_total',
    help: 'Requests refused with 429 by the per-account throttle of the climate data endpoints.',
    registers,
  });

  const notReady = new Counter({
    name: 'http_not_ready_responses_total',
    help: 'Answers 503 for a state, not a fault: reason="building" (the default data is still being built: /readyz, or a map cell not built yet, with Retry-After) or "shutting_down" (/readyz). They are also in http_request_duration_seconds with status 503; subtract these to alert on faults.',
    labelNames: ['route', 'reason'] as const,
    registers,
  });

  queries.observe(({ waitMs, runMs, outcome }) => {
    queryWaitSeconds.observe(waitMs / 1000);
    querySeconds.observe({ outcome }, runMs / 1000);
  });

  const requests: RequestHandler = (req, res, next) => {
    const start = performance.now();
    res.once('finish', () => {
      const labels = { method: req.method, route: routePattern(req) ?? 'none', status: String(res.statusCode) };
      requestSeconds.observe(labels, (performance.now() - start) / 1000);
      const reason = notReadyReason(res);
      if (reason) notReady.inc({ route: labels.route, reason });
    });
    next();
  };

  return { registry, requests, throttled: () => throttled.inc() };
}
