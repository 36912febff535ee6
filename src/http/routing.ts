import type { RequestHandler } from 'express';

/** Paths that take a POST with a JSON body instead of a GET. */
const POST_PATHS = /^\/api\/climate-data\/batch\//;

/** Paths whose last segment legitimately has no trailing slash. */
const SLASHLESS = [/^\/api\/region\/[^/]+\.[a-z]+$/];

/**
 * Every route ends in a slash; a request without one is redirected, query string kept
 * (301 for GET and HEAD like the original, 308 otherwise so that a POST keeps its body).
 */
export const trailingSlash: RequestHandler = (req, res, next) => {
  if (req.path.endsWith('/') || req.method === 'OPTIONS' || SLASHLESS.some((re) => re.test(req.path))) {
    next();
    return;
  }
  const [pathPart, query] = splitUrl(req.originalUrl);
  res.redirect(req.method === 'GET' || req.method === 'HEAD' ? 301 : 308, `${pathPart}/${query}`);
};

function splitUrl(url: string): [string, string] {
  const i = url.indexOf('?');
  return i === -1 ? [url, ''] : [url.slice(0, i), url.slice(i)];
}

/**
 * OPTIONS on any path answers 200 with the methods the path allows, before authentication, so
 * browsers' preflight requests succeed (the CORS headers are set by the cors middleware before it).
 */
export const options: RequestHandler = (req, res, next) => {
  if (req.method !== 'OPTIONS') {
    next();
    return;
  }
  const allow = req.path.startsWith('/api-token-auth') || POST_PATHS.test(req.path) ? 'POST, OPTIONS' : 'GET, HEAD, OPTIONS';
  res.set('Allow', allow).set('Access-Control-Allow-Methods', allow).status(200).set('Content-Length', '0').end();
};

/**
 * The API is read-only but for the batch paths (POST): any other method on an /api/ path is a 405 naming the allowed ones
 * (after authentication, like the original), and GET on the token endpoints likewise.
 */
export const methodNotAllowed: RequestHandler = (req, res, next) => {
  const postOnly = req.path.startsWith('/api-token-auth/') || POST_PATHS.test(req.path);
  const allowed = postOnly ? ['POST'] : ['GET', 'HEAD'];
  if ((postOnly || req.path.startsWith('/api/')) && !allowed.includes(req.method)) {
    const allow = postOnly ? 'POST, OPTIONS' : 'GET, HEAD, OPTIONS';
    res.set('Allow', allow).status(405).json({ detail: `Method "${req.method}" not allowed.` });
    return;
  }
  next();
};
