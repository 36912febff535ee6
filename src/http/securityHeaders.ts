import helmet from 'helmet';
import type { RequestHandler } from 'express';

/**
 * The security headers of every response (helmet: a maintained set, updated as browsers change,
 * rather than a hand-kept list). The Content-Security-Policy allows this server's own scripts,
 * styles, images and fetches only: the docs page (Swagger UI from swagger-ui-dist, its script a
 * file, not inline) works under it with no inline script or style, and nothing is loaded from
 * other hosts (test/docs-e2e.test.ts fails on any violation). No upgrade-insecure-requests:
 * the server often runs on plain HTTP (locally, behind a TLS-terminating proxy), where it would
 * send the page's requests to an https:// that is not there. Cross-Origin-Resource-Policy is
 * cross-origin: the API is meant to be called from other origins' pages (CORS is open).
 */
export function securityHeaders(): RequestHandler {
  return helmet({
    contentSecurityPolicy: {
      useDefaults: false,
      directives: {
        'default-src': ["'self'"],
        'base-uri': ["'self'"],
        'connect-src': ["'self'"],
        'font-src': ["'self'", 'data:'],
        'form-action': ["'self'"],
        'frame-ancestors': ["'self'"],
        'img-src': ["'self'", 'data:'],
        'object-src': ["'none'"],
        'script-src': ["'self'"],
        'script-src-attr': ["'none'"],
        'style-src': ["'self'"],
      },
    },
    crossOriginResourcePolicy: { policy: 'cross-origin' },
  });
}
