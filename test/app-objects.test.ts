import http, { type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { once } from 'node:events';
import express, { type Express } from 'express';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AppObjects } from '../src/http/appObjects.js';

/**
 * The server's requests and responses are born with the served app's prototypes, so Express has
 * none to change (src/http/appObjects.ts), and they still behave as node:http's own.
 */

function namedApp(name: string): Express {
  const app = express();
  app.get('/who', (req, res) => {
    res.setHeader('X-Served-By', name);
    res.json({ app: req.app === app, ip: req.ip, query: req.query, url: req.originalUrl });
  });
  return app;
}

const objects = new AppObjects();
const births: { request: object | null; response: object | null }[] = [];
let current: Express | undefined;
let server: http.Server;
let base: string;

function listener(req: IncomingMessage, res: ServerResponse) {
  // Before Express sees them: what node:http made.
  births.push({ request: Object.getPrototypeOf(req) as object, response: Object.getPrototypeOf(res) as object });
  if (current) current(req, res);
  else res.end('plain');
}

beforeAll(async () => {
  server = http.createServer(objects.serverOptions, listener).listen(0, '127.0.0.1');
  await once(server, 'listening');
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});

afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

describe('AppObjects', () => {
  it('makes plain node:http objects until an app is served', async () => {
    births.length = 0;
    const res = await fetch(`${base}/anything`);
    expect(await res.text()).toBe('plain');
    expect(births[0]!.request).toBe(http.IncomingMessage.prototype);
    expect(births[0]!.response).toBe(http.ServerResponse.prototype);
  });

  it("gives each request and response the served app's prototypes at birth, and switches on serve", async () => {
    const first = namedApp('first');
    const second = namedApp('second');
    for (const app of [first, second]) {
      objects.serve(app);
      current = app;
      births.length = 0;
      for (let i = 0; i < 3; i++) {
        const res = await fetch(`${base}/who?i=${i}`);
        expect(res.status).toBe(200);
        expect(res.headers.get('x-served-by')).toBe(app === first ? 'first' : 'second');
        expect(await res.json()).toEqual({ app: true, ip: '127.0.0.1', query: { i: String(i) }, url: `/who?i=${i}` });
      }
      expect(births).toHaveLength(3);
      for (const b of births) {
        expect(b.request).toBe(app.request);
        expect(b.response).toBe(app.response);
      }
    }
  });

  it('keeps them node:http objects: instanceof, request bodies, keep-alive', async () => {
    const app = express();
    app.post('/echo', express.text(), (req, res) => {
      res.json({ body: req.body as unknown, incoming: req instanceof http.IncomingMessage, outgoing: res instanceof http.ServerResponse });
    });
    objects.serve(app);
    current = app;
    const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
    try {
      for (const text of ['one', 'two']) {
        const answer = await new Promise<string>((resolve, reject) => {
          const req = http.request(`${base}/echo`, { method: 'POST', agent, headers: { 'content-type': 'text/plain' } }, (res) => {
            let data = '';
            res.setEncoding('utf8').on('data', (c: string) => (data += c)).on('end', () => resolve(data));
          });
          req.on('error', reject).end(text);
        });
        expect(JSON.parse(answer)).toEqual({ body: text, incoming: true, outgoing: true });
      }
    } finally {
      agent.destroy();
    }
  });
});
