import { createRequire } from 'node:module';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import express, { Router, type RequestHandler } from 'express';

/** Swagger UI's files, from the installed swagger-ui-dist package (no CDN). */
const SWAGGER_UI_DIR = path.dirname(createRequire(import.meta.url).resolve('swagger-ui-dist/package.json'));
/** The page's own script: a file, not inline, so a CSP with script-src 'self' allows it. */
const PAGE_DIR = path.join(path.dirname(fileURLToPath(import.meta.url)), 'docsPage');
/** What the page loads from swagger-ui-dist; the package's other files are not served. */
const SWAGGER_UI_FILES = new Set(['/swagger-ui.css', '/swagger-ui-bundle.js', '/favicon-32x32.png', '/favicon-16x16.png']);

const PAGE = `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<title>Climate projection service API</title>
<link rel="stylesheet" href="./swagger-ui.css">
<link rel="icon" type="image/png" href="./favicon-32x32.png" sizes="32x32">
</head>
<body>
<div id="swagger-ui"></div>
<script src="./swagger-ui-bundle.js"></script>
<script src="./init.js"></script>
</body>
</html>
`;

/** Static files of one directory, limited to the names given. */
function files(dir: string, names: Set<string>): RequestHandler {
  const serve = express.static(dir, { index: false, redirect: false, maxAge: '1h' });
  return (req, res, next) => (names.has(req.path) ? serve(req, res, next) : next());
}

/**
 * GET /openapi.json and the Swagger UI page at GET /docs/, both without a token. Mount before the
 * trailing-slash redirect: /openapi.json and the page's assets have no trailing slash.
 */
export function docsRoutes(openApiDocument: () => unknown): Router {
  // Strict: /docs must redirect to /docs/ (by trailingSlash), or the page's relative URLs break.
  const router = Router({ strict: true });
  let document: string | undefined;

  router.get('/openapi.json', (_req, res) => {
    // Built on first use: the document is fixed for the life of the app (it describes one data build).
    document ??= JSON.stringify(openApiDocument());
    res.type('application/json').send(document);
  });
  router.get('/docs/', (_req, res) => {
    res.type('text/html').set('Cache-Control', 'no-cache').send(PAGE);
  });
  router.use('/docs', files(PAGE_DIR, new Set(['/init.js'])), files(SWAGGER_UI_DIR, SWAGGER_UI_FILES));
  return router;
}
