import type { RequestListener } from 'node:http';

/**
 * What the server answers in the seconds before it has a catalog to serve (a first start writing
 * the default data's catalog): /healthz is up, /readyz and everything else 503 with a sentence,
 * so that clients and probes get an answer instead of a refused connection.
 */
export function startingHandler(detail: () => string): RequestListener {
  return (req, res) => {
    const path = (req.url ?? '/').split('?')[0];
    const send = (status: number, body: object, headers: Record<string, string> = {}) => {
      res.writeHead(status, { 'Content-Type': 'application/json; charset=utf-8', 'Cache-Control': 'no-store', 'Access-Control-Allow-Origin': '*', ...headers });
      res.end(req.method === 'HEAD' ? undefined : JSON.stringify(body));
    };
    if (path === '/healthz') send(200, { status: 'ok' });
    else if (path === '/readyz') send(503, { status: 'starting', detail: detail() });
    else send(503, { detail: `${detail()} Try again in a few seconds.` }, { 'Retry-After': '5' });
  };
}
