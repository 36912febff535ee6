import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import express, { Router } from 'express';
import { ROOT } from '../config.js';
import { notFound } from '../errors.js';
import { HttpError } from '../http/errors.js';

/**
 * Where the bundled page is: beside this module in dist/ (scripts/build-dist.ts writes it there),
 * else, run from src/ under tsx, where tests and `tsx scripts/build-explorer.ts` write it.
 */
export function explorerAssetsDir(): string {
  const beside = path.join(path.dirname(fileURLToPath(import.meta.url)), 'assets');
  return fs.existsSync(path.join(beside, 'index.html')) ? beside : path.join(ROOT, '.tmp', 'explorer-assets');
}

/** The bundler's names: [name]-[hash].js|css. Only these are served, with a year's caching. */
const HASHED_ASSET = /^\/[\w-]+-[A-Z0-9]{8}\.(js|css)$/;

/**
 * GET /explore/, the web explorer (no token: the page signs in itself), and its assets. The page is
 * revalidated on every load; the assets it names have content-hashed names, so they are immutable.
 * Mount before the trailing-slash redirect, with the docs page: the assets have no trailing slash.
 */
export function explorerRoutes(dir: string = explorerAssetsDir()): Router {
  const router = Router({ strict: true });
  const assets = express.static(dir, { index: false, redirect: false, immutable: true, maxAge: '365d', etag: false, lastModified: false });

  router.get('/explore/', (_req, res, next) => {
    const page = path.join(dir, 'index.html');
    if (!fs.existsSync(page)) {
      next(new HttpError(503, 'The explorer page is not built: run make build, or tsx scripts/build-explorer.ts when serving from src/.'));
      return;
    }
    // dotfiles: the tests' copy is under .tmp/.
    res.type('text/html').set('Cache-Control', 'no-cache').sendFile(page, { cacheControl: false, dotfiles: 'allow' });
  });
  // Middleware, not a route, like the docs page's files: the assets are not API operations.
  router.use('/explore/assets', (req, res, next) => {
    if (req.method !== 'GET' && req.method !== 'HEAD') {
      next();
      return;
    }
    if (!HASHED_ASSET.test(req.path)) {
      next(notFound());
      return;
    }
    // A name of an older build is gone: 404 here, not the trailing-slash redirect.
    assets(req, res, () => next(notFound()));
  });
  return router;
}
