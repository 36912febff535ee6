import { createHash } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Request, RequestHandler } from 'express';
import { ROOT } from '../config.js';

export interface CachingOptions {
  /** catalog.manifest.build_id: every answer is a function of the build, the code and the request. */
  buildId: string;
  /** Seconds a client may reuse a response without asking again (CACHE_MAX_AGE). */
  maxAge: number;
}

let fingerprint: string | undefined;

/**
 * The fingerprint of the code that computes the answers: a fix in an indicator changes answers
 * without a new data build, so it must change the ETags too. `make build` writes it beside the
 * compiled server (dist/build-info.json, from the compiled code, sql/ and package-lock.json), the
 * same on every replica running that build. Run from src/ under tsx (tests, development) there is
 * no build: the sources are hashed instead, once per process.
 */
export function codeFingerprint(): string {
  if (fingerprint === undefined) {
    const info = path.join(path.dirname(fileURLToPath(import.meta.url)), '..', 'build-info.json');
    fingerprint = fs.existsSync(info) ? (JSON.parse(fs.readFileSync(info, 'utf8')) as { code_id: string }).code_id : sourceFingerprint();
  }
  return fingerprint;
}

function sourceFingerprint(): string {
  const hash = createHash('sha1');
  const files = ['src', 'sql'].flatMap((dir) =>
    (fs.readdirSync(path.join(ROOT, dir), { recursive: true }) as string[]).map((f) => path.join(dir, f)).filter((f) => fs.statSync(path.join(ROOT, f)).isFile()),
  );
  for (const f of [...files.sort(), 'package-lock.json']) hash.update(f).update('\0').update(fs.readFileSync(path.join(ROOT, f))).update('\0');
  return hash.digest('base64url');
}

/**
 * Validators for an answer that depends only on the data build and the request: the origin (the
 * pagination links are absolute), the path, the query string (sorted by name, repeated names kept
 * in order) and the representation asked for (Accept; format=... is in the query). GET and HEAD
 * share it; no other method gets one. Weak, because compression changes the bytes, not the content.
 */
export function requestETag(version: string, req: Request): string {
  const url = req.originalUrl;
  const q = url.indexOf('?');
  const params = new URLSearchParams(q === -1 ? '' : url.slice(q + 1));
  params.sort();
  const hash = createHash('sha1')
    .update(`${version}\n${req.protocol}://${req.get('host') ?? ''}${q === -1 ? url : url.slice(0, q)}\n${params.toString()}\n${req.headers.accept ?? ''}`)
    .digest('base64url');
  return `W/"${hash}"`;
}

/** If-None-Match names this tag (weak comparison, as RFC 9110 prescribes for it). */
function matches(ifNoneMatch: string | undefined, etag: string): boolean {
  if (!ifNoneMatch) return false;
  const opaque = etag.slice(2);
  return ifNoneMatch.split(',').some((tag) => {
    const t = tag.trim();
    return (t.startsWith('W/') ? t.slice(2) : t) === opaque;
  });
}

/**
 * Sets ETag, Cache-Control and Vary on GET and HEAD, and answers 304 to a matching If-None-Match
 * before the handler runs: no query, no formatting. Runs after authentication, so a 304 needs a
 * valid token like any answer. `private`: every answer needs a token, so shared caches must not
 * keep it for others (they would skip authentication and the throttle); the browser's or the
 * client's own cache may. Vary: the answer (or 401) depends on Authorization, the representation on
 * Accept, the bytes on Accept-Encoding. The error handler removes the validators from errors.
 * `If-None-Match: *` is not honoured: whether the answer exists is known only after the handler.
 */
export function conditionalGet({ buildId, maxAge }: CachingOptions): RequestHandler {
  const cacheControl = `private, max-age=${maxAge}`;
  const version = `${buildId}\n${codeFingerprint()}`;
  return (req, res, next) => {
    if (req.method !== 'GET' && req.method !== 'HEAD') {
      next();
      return;
    }
    const etag = requestETag(version, req);
    res.setHeader('ETag', etag);
    res.setHeader('Cache-Control', cacheControl);
    res.vary('Authorization');
    res.vary('Accept');
    res.vary('Accept-Encoding');
    if (matches(req.headers['if-none-match'], etag)) {
      res.status(304).end();
      return;
    }
    next();
  };
}

const CLIMATE_DATA = '/api/climate-data/';

/**
 * Where the check runs. Reference endpoints: app-level, after authentication. Climate data
 * endpoints: after their per-account throttle, so that a 304 still counts against the limit, as
 * the original's cache hits did (its throttle ran before its response cache), and polling with
 * If-None-Match cannot get around the limit.
 */
export function dataCaching(options: CachingOptions) {
  const check = conditionalGet(options);
  const reference: RequestHandler = (req, res, next) => {
    if (req.path.startsWith('/api/') && !req.path.startsWith(CLIMATE_DATA)) check(req, res, next);
    else next();
  };
  const afterThrottle =
    (throttle: RequestHandler): RequestHandler =>
    (req, res, next) =>
      throttle(req, res, (err?: unknown) => (err ? next(err) : check(req, res, next)));
  return { reference, afterThrottle };
}
