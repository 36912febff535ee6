import { randomUUID } from 'node:crypto';
import type { Request, RequestHandler, Response } from 'express';
import type { AuthenticatedAccount } from './account.js';
import type { Logger } from '../logger.js';
import { notReadyReason } from './errors.js';

/** An incoming X-Request-Id is kept when it is short and plain (it is echoed and logged). */
const SANE_REQUEST_ID = /^[A-Za-z0-9._:@/+=-]{1,128}$/;

/** Query parameters whose values are never logged, should a client put a credential in the URL. */
const SECRET_PARAM = /pass|token|secret|key|auth|session|signature/i;

/** Probes and scrapes arrive every few seconds; at `debug` they do not drown the request log. */
const PROBE_PATHS = new Set(['/healthz', '/readyz', '/metrics']);

/**
 * The Express route pattern that answered (`/api/city/:id/`), not the raw URL, so that logs and
 * metrics group by endpoint; undefined when no route was reached (401 before routing, 404, redirects).
 */
export function routePattern(req: Request): string | undefined {
  const route = req.route as { path?: unknown } | undefined;
  return route?.path === undefined ? undefined : req.baseUrl + String(route.path);
}

/** The URL with the values of credential-like query parameters replaced. */
export function redactedUrl(url: string): string {
  const q = url.indexOf('?');
  if (q === -1) return url;
  const query = url.slice(q + 1);
  // No name can be credential-like if the raw text has no such word and nothing percent-encoded
  // (`%74oken` is `token`): most URLs are logged without parsing their query.
  if (!query.includes('%') && !SECRET_PARAM.test(query)) return url;
  const params = new URLSearchParams(query);
  let redacted = false;
  for (const name of new Set(params.keys())) {
    if (SECRET_PARAM.test(name)) {
      params.set(name, '[REDACTED]');
      redacted = true;
    }
  }
  return redacted ? `${url.slice(0, q)}?${params.toString()}` : url;
}

/**
 * Gives every request an id (the client's X-Request-Id when sane, else a UUID), returns it as
 * X-Request-Id, and writes one JSON line per request when it ends: id, method, route, URL, status,
 * duration and account (and `not_ready` for a not-ready 503). Headers and bodies are never logged, so neither a token nor a password
 * can reach the log. A 500's error (kept by the error handler in res.locals.error) goes with it.
 */
export function requestLog(logger: Logger): RequestHandler {
  const enabled = logger.level !== 'silent';
  return (req, res, next) => {
    const incoming = req.headers['x-request-id'];
    const id = typeof incoming === 'string' && SANE_REQUEST_ID.test(incoming) ? incoming : randomUUID();
    res.locals.requestId = id;
    res.setHeader('X-Request-Id', id);
    if (enabled) {
      const start = performance.now();
      let written = false;
      const write = () => {
        if (written) return;
        written = true;
        writeLine(logger, req, res, id, performance.now() - start);
      };
      res.once('finish', write);
      // 'close' without 'finish': the client went away before the response was sent.
      res.once('close', write);
    }
    next();
  };
}

/**
 * error for a fault (a 5xx other than a not-ready 503); otherwise debug for the probes and info for
 * the rest. A readiness probe polling through a first build, or clients told to come back when
 * their cell is built, are the service working as designed: as error lines they buried the faults.
 */
function writeLine(logger: Logger, req: Request, res: Response, id: string, ms: number) {
  const notReady = notReadyReason(res);
  const level = res.statusCode >= 500 && notReady === undefined ? 'error' : PROBE_PATHS.has(req.path) ? 'debug' : 'info';
  if (!logger.isLevelEnabled(level)) return;
  const account = res.locals.account as AuthenticatedAccount | undefined;
  const error = res.locals.error as unknown;
  const line = {
    req_id: id,
    method: req.method,
    route: routePattern(req) ?? null,
    url: redactedUrl(req.originalUrl),
    status: res.statusCode,
    duration_ms: Math.round(ms * 100) / 100,
    account_id: account?.id ?? null,
    ...(notReady === undefined ? {} : { not_ready: notReady }),
    ...(res.writableFinished ? {} : { aborted: true }),
    ...(error === undefined ? {} : { err: error }),
  };
  logger[level](line, level === 'error' ? 'request failed' : 'request');
}
