import { once } from 'node:events';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import zlib from 'node:zlib';
import request from 'supertest';
import { beforeAll, describe, expect, it } from 'vitest';
import { createApp } from '../src/app.js';
import type { QueryPool } from '../src/db/queryPool.js';
import type { Lifecycle } from '../src/http/opsRoutes.js';
import { redactedUrl } from '../src/http/requestLog.js';
import { createLogger } from '../src/logger.js';
import { testApp, type TestApp } from './helpers.js';

const NYC = 5128581;
const RAW = `/api/climate-data/${NYC}/RCP85/`;
const PASSWORD = 'test-password';

/** The test app's pieces behind a fresh app whose log lines are kept in memory. */
function loggedApp(t: TestApp, lifecycle: Lifecycle = { shuttingDown: false }, level: 'info' | 'debug' = 'info', queries: QueryPool = t.queries) {
  const lines: string[] = [];
  const logger = createLogger(level, { write: (line: string) => void lines.push(line) });
  const app = createApp({ config: t.config, catalog: t.catalog, queries, auth: t.auth, logger, lifecycle });
  return { app, lines, records: () => lines.map((l) => JSON.parse(l) as Record<string, unknown>) };
}

/** The value of an unlabelled or labelled sample in Prometheus text, or undefined. */
function sample(text: string, name: string, labels = ''): number | undefined {
  const line = text.split('\n').find((l) => l.startsWith(`${name}${labels ? `{${labels}}` : ''} `));
  return line === undefined ? undefined : Number(line.slice(line.lastIndexOf(' ') + 1));
}

let t: TestApp;
// supertest listens on a new port for every request; a client keeps one origin (and the ETag covers it).
const get = (url: string, app = t.app) => request(app).get(url).set('Authorization', `Token ${t.token}`).set('Host', 'api.test');

beforeAll(async () => {
  t = await testApp({ THROTTLE_BURST_RATE: '100000/min', THROTTLE_SUSTAINED_RATE: '1000000/day' });
});

describe('GET /healthz and /readyz', () => {
  it('answer without a token, uncached', async () => {
    const health = await request(t.app).get('/healthz');
    expect(health.status).toBe(200);
    expect(health.body).toEqual({ status: 'ok' });
    expect(health.headers['cache-control']).toBe('no-store');
    const ready = await request(t.app).get('/readyz');
    expect(ready.status).toBe(200);
    expect(ready.body).toEqual({ status: 'ready', build_id: t.catalog.manifest.build_id });
  });

  it('readyz answers 503 JSON once a shutdown has started, logged as a probe (not an error) and counted as not ready', async () => {
    const lifecycle = { shuttingDown: false };
    const { app, records } = loggedApp(t, lifecycle, 'debug');
    expect((await request(app).get('/readyz')).status).toBe(200);
    lifecycle.shuttingDown = true;
    const res = await request(app).get('/readyz');
    expect(res.status).toBe(503);
    expect(res.body.detail).toMatch(/shutting down/);
    expect((await request(app).get('/healthz')).status).toBe(200);
    expect(records().slice(0, 2)).toMatchObject([
      { level: 20, route: '/readyz', status: 200 },
      { level: 20, msg: 'request', route: '/readyz', status: 503, not_ready: 'shutting_down' },
    ]);
    const metrics = (await request(app).get('/metrics')).text;
    expect(sample(metrics, 'http_not_ready_responses_total', 'route="/readyz",reason="shutting_down"')).toBe(1);
  });

  it('a fault is still an error line (level 50) and no not-ready answer: a store that fails its queries', async () => {
    // The pool as it is, except that every query fails as a broken disk or a DuckDB bug would.
    const failing = new Proxy(t.queries, {
      get: (target, key) => (key === 'run' ? () => Promise.reject(new Error('simulated I/O failure')) : Reflect.get(target, key, target)),
    });
    const { app, records } = loggedApp(t, undefined, 'info', failing);
    const ready = await request(app).get('/readyz');
    expect(ready.status).toBe(503);
    expect(ready.body).toMatchObject({ status: 'not ready', detail: expect.stringMatching(/simulated I\/O failure/) });
    expect((await get(`${RAW}?years=2050`, app)).status).toBe(500);
    expect(records()).toMatchObject([
      { level: 50, msg: 'request failed', route: '/readyz', status: 503 },
      { level: 50, msg: 'request failed', route: '/api/climate-data/:city/:scenario/', status: 500, err: { message: 'simulated I/O failure' } },
    ]);
    for (const r of records()) expect(r).not.toHaveProperty('not_ready');
    const metrics = (await request(app).get('/metrics')).text;
    expect(metrics).not.toMatch(/^http_not_ready_responses_total\{/m);
    expect(sample(metrics, 'http_request_duration_seconds_count', 'method="GET",route="/readyz",status="503"')).toBe(1);
  });

  it('readyz answers 503 when the data store no longer answers', async () => {
    const own = await testApp();
    own.queries.close();
    const res = await request(own.app).get('/readyz');
    expect(res.status).toBe(503);
    expect(res.body.status).toBe('not ready');
    expect(res.body.detail).toMatch(/closed/);
  });

  it('allow only GET and HEAD', async () => {
    const res = await request(t.app).post('/healthz');
    expect(res.status).toBe(405);
    expect(res.headers.allow).toBe('GET, HEAD, OPTIONS');
  });
});

describe('GET /metrics', () => {
  it('serves Prometheus text: requests by route and status, DuckDB queries, queue, process', async () => {
    const { app } = loggedApp(t);
    await get('/api/scenario/', app).expect(200);
    await get('/api/scenario/', app).expect(200);
    await get('/api/scenario/nope/', app).expect(404);
    await get(`${RAW}?years=2050`, app).expect(200);
    const res = await request(app).get('/metrics');
    expect(res.status).toBe(200);
    expect(res.headers['content-type']).toMatch(/^text\/plain; version=0\.0\.4/);
    const text = res.text;
    expect(sample(text, 'http_request_duration_seconds_count', 'method="GET",route="/api/scenario/",status="200"')).toBe(2);
    expect(sample(text, 'http_request_duration_seconds_count', 'method="GET",route="/api/scenario/:name/",status="404"')).toBe(1);
    expect(sample(text, 'http_request_duration_seconds_bucket', 'le="+Inf",method="GET",route="/api/climate-data/:city/:scenario/",status="200"')).toBe(1);
    // The pool is shared with the suite's other app, so at least this app's one query.
    expect(sample(text, 'duckdb_query_duration_seconds_count', 'outcome="ok"')).toBeGreaterThanOrEqual(1);
    expect(sample(text, 'duckdb_query_wait_seconds_count')).toBeGreaterThanOrEqual(1);
    expect(sample(text, 'duckdb_queries_in_flight')).toBe(0);
    expect(sample(text, 'duckdb_queries_queued')).toBe(0);
    expect(sample(text, 'http_throttled_requests_total')).toBe(0);
    expect(sample(text, 'process_resident_memory_bytes')).toBeGreaterThan(0);
    expect(text).toContain('nodejs_eventloop_lag_seconds');
  });

  it('keeps one registry per app', async () => {
    const a = loggedApp(t);
    const b = loggedApp(t);
    await get('/api/dataset/', a.app).expect(200);
    const text = (await request(b.app).get('/metrics')).text;
    expect(text).not.toContain('route="/api/dataset/"');
  });

  it('counts the 429s of the account throttle', async () => {
    const limited = await testApp({ THROTTLE_BURST_RATE: '1/min' });
    await request(limited.app).get(`${RAW}?years=2050`).set('Authorization', `Token ${limited.token}`).expect(200);
    await request(limited.app).get(`${RAW}?years=2050`).set('Authorization', `Token ${limited.token}`).expect(429);
    await request(limited.app).get(`${RAW}?years=2051`).set('Authorization', `Token ${limited.token}`).expect(429);
    const text = (await request(limited.app).get('/metrics')).text;
    expect(sample(text, 'http_throttled_requests_total')).toBe(2);
    expect(sample(text, 'http_request_duration_seconds_count', 'method="GET",route="/api/climate-data/:city/:scenario/",status="429"')).toBe(2);
  });

  it('needs METRICS_TOKEN as a Bearer or Token credential when it is set', async () => {
    const secret = 'metrics-secret-0123456789';
    const own = await testApp({ METRICS_TOKEN: secret });
    const none = await request(own.app).get('/metrics');
    expect(none.status).toBe(401);
    expect(none.body.detail).toMatch(/METRICS_TOKEN/);
    expect(none.headers['www-authenticate']).toBe('Bearer');
    expect((await request(own.app).get('/metrics').set('Authorization', `Bearer ${secret}x`)).status).toBe(401);
    expect((await request(own.app).get('/metrics').set('Authorization', `Token ${own.token}`)).status).toBe(401);
    expect((await request(own.app).get('/metrics').set('Authorization', `Bearer ${secret}`)).status).toBe(200);
    expect((await request(own.app).get('/metrics').set('Authorization', `Token ${secret}`)).status).toBe(200);
  });

  it('is gone with METRICS=off, and the API still answers', async () => {
    const own = await testApp({ METRICS: 'off' });
    const res = await request(own.app).get('/metrics');
    expect(res.status).toBe(404);
    expect(res.body.detail).toMatch(/METRICS=off/);
    await request(own.app).get('/api/scenario/').set('Authorization', `Token ${own.token}`).expect(200);
  });
});

describe('ETag, Cache-Control and 304', () => {
  it('tags data answers with validators derived from the build and the request', async () => {
    const res = await get('/api/scenario/?name=RCP85&ordering=name').expect(200);
    expect(res.headers.etag).toMatch(/^W\/"[A-Za-z0-9_-]+"$/);
    expect(res.headers['cache-control']).toBe(`private, max-age=${t.config.CACHE_MAX_AGE}`);
    expect(res.headers.vary).toMatch(/Authorization/);
    expect(res.headers.vary).toMatch(/Accept(,|$)/);
    expect(res.headers.vary).toMatch(/Accept-Encoding/);
    // Same request with the query in another order: same tag; another query or Accept: another.
    const reordered = await get('/api/scenario/?ordering=name&name=RCP85').expect(200);
    expect(reordered.headers.etag).toBe(res.headers.etag);
    const other = await get('/api/scenario/?name=RCP45&ordering=name').expect(200);
    expect(other.headers.etag).not.toBe(res.headers.etag);
    const accept = await get('/api/scenario/?name=RCP85&ordering=name').set('Accept', 'text/csv').expect(200);
    expect(accept.headers.etag).not.toBe(res.headers.etag);
    // Pagination links are absolute, so the origin is part of the answer.
    const host = await get('/api/scenario/?name=RCP85&ordering=name').set('Host', 'api.example.org').expect(200);
    expect(host.headers.etag).not.toBe(res.headers.etag);
    const head = await request(t.app).head('/api/scenario/?name=RCP85&ordering=name').set('Authorization', `Token ${t.token}`).set('Host', 'api.test').expect(200);
    expect(head.headers.etag).toBe(res.headers.etag);
  });

  it('answers 304 with no body to a matching If-None-Match, and 200 to another', async () => {
    const first = await get('/api/city/?page=2').expect(200);
    const etag = first.headers.etag!;
    const again = await get('/api/city/?page=2').set('If-None-Match', etag);
    expect(again.status).toBe(304);
    expect(again.text ?? '').toBe('');
    expect(again.headers.etag).toBe(etag);
    expect(again.headers['cache-control']).toBe(first.headers['cache-control']);
    // A strong form of the same tag and a list containing it match too (weak comparison).
    expect((await get('/api/city/?page=2').set('If-None-Match', `"x", ${etag.slice(2)}`)).status).toBe(304);
    expect((await get('/api/city/?page=2').set('If-None-Match', 'W/"another"')).status).toBe(200);
  });

  it('still needs a valid token for a 304', async () => {
    const etag = (await get('/api/dataset/').expect(200)).headers.etag!;
    const res = await request(t.app).get('/api/dataset/').set('If-None-Match', etag);
    expect(res.status).toBe(401);
  });

  it('puts no validators on errors', async () => {
    const res = await get('/api/scenario/nope/').expect(404);
    expect(res.headers.etag).toBeUndefined();
    expect(res.headers['cache-control']).toBeUndefined();
    const bad = await get(`${RAW}?years=abc`).expect(400);
    expect(bad.headers.etag).toBeUndefined();
  });

  it('answers 304 on climate data without running the query, counted by the throttle', async () => {
    const limited = await testApp({ THROTTLE_BURST_RATE: '3/min' });
    let queries = 0;
    limited.queries.observe(() => queries++);
    const url = `${RAW}?years=2050:2051&variables=tasmax`;
    const send = (etag?: string) => {
      const r = request(limited.app).get(url).set('Authorization', `Token ${limited.token}`).set('Host', 'api.test');
      return etag ? r.set('If-None-Match', etag) : r;
    };
    const first = await send().expect(200);
    expect(first.headers['cache-control']).toBe(`private, max-age=${limited.config.CACHE_MAX_AGE}`);
    expect(queries).toBe(1);
    const etag = first.headers.etag!;
    expect((await send(etag)).status).toBe(304);
    expect((await send(etag)).status).toBe(304);
    expect(queries).toBe(1);
    // The two 304s used the burst of 3: the next request is refused, validators or not.
    const refused = await send(etag);
    expect(refused.status).toBe(429);
    expect(refused.headers.etag).toBeUndefined();
  });
});

describe('compression', () => {
  /** Raw bytes and headers over real HTTP, so that nothing decodes the body on the way. */
  async function rawGet(url: string, acceptEncoding: string) {
    const server = t.app.listen(0, '127.0.0.1');
    await once(server, 'listening');
    try {
      const { port } = server.address() as AddressInfo;
      const headers = { authorization: `Token ${t.token}`, 'accept-encoding': acceptEncoding };
      const res = await new Promise<http.IncomingMessage>((resolve, reject) => http.get({ host: '127.0.0.1', port, path: url, headers }, resolve).on('error', reject));
      const chunks: Buffer[] = [];
      for await (const chunk of res) chunks.push(chunk as Buffer);
      return { status: res.statusCode, headers: res.headers, bytes: Buffer.concat(chunks) };
    } finally {
      server.close();
    }
  }

  it('compresses with br or gzip as Accept-Encoding asks, and not at all otherwise', async () => {
    const url = '/api/city/?page_size=200';
    const plain = await rawGet(url, 'identity');
    expect(plain.status).toBe(200);
    expect(plain.headers['content-encoding']).toBeUndefined();
    const features = (b: Buffer) => (JSON.parse(b.toString('utf8')) as { features: unknown[] }).features;
    for (const [encoding, decode] of [
      ['gzip', zlib.gunzipSync],
      ['br', zlib.brotliDecompressSync],
    ] as const) {
      const res = await rawGet(url, `${encoding}, identity`);
      expect(res.headers['content-encoding']).toBe(encoding);
      expect(res.headers.vary).toMatch(/Accept-Encoding/);
      expect(res.bytes.length).toBeLessThan(plain.bytes.length / 3);
      expect(features(decode(res.bytes))).toEqual(features(plain.bytes));
    }
  });

  it('answers every-model raw data gzipped from kept segments when gzip is allowed, with the plain bytes', async () => {
    const url = '/api/climate-data/5128581/RCP85/?years=2050:2052';
    const plain = await rawGet(url, 'identity');
    expect(plain.status).toBe(200);
    for (let i = 0; i < 2; i++) {
      // Browsers and Python's requests: gzip is taken, and it costs no compression of the whole.
      const res = await rawGet(url, 'gzip, deflate, br');
      expect(res.headers['content-encoding']).toBe('gzip');
      expect(res.headers.vary).toMatch(/Accept-Encoding/);
      expect(Number(res.headers['content-length'])).toBe(res.bytes.length);
      expect(zlib.gunzipSync(res.bytes).equals(plain.bytes)).toBe(true);
    }
    const br = await rawGet(url, 'br');
    expect(br.headers['content-encoding']).toBe('br');
    expect(zlib.brotliDecompressSync(br.bytes).equals(plain.bytes)).toBe(true);
    // A model subset is not kept: compressed as a whole.
    const subset = await rawGet(`${url}&models=ACCESS1-0`, 'gzip, deflate, br');
    expect(subset.headers['content-encoding']).toBe('br');
  });
});

describe('request ids and the request log', () => {
  it('returns a generated X-Request-Id, or the caller’s when it is sane', async () => {
    const generated = await request(t.app).get('/healthz');
    expect(generated.headers['x-request-id']).toMatch(/^[0-9a-f-]{36}$/);
    const kept = await request(t.app).get('/healthz').set('X-Request-Id', 'lb-1234.abc');
    expect(kept.headers['x-request-id']).toBe('lb-1234.abc');
    for (const bad of ['has spaces', 'x'.repeat(200), '<script>']) {
      const replaced = await request(t.app).get('/healthz').set('X-Request-Id', bad);
      expect(replaced.headers['x-request-id']).toMatch(/^[0-9a-f-]{36}$/);
    }
  });

  it('writes one JSON line per request: id, method, route, URL, status, duration, account', async () => {
    const { app, records } = loggedApp(t);
    const account = await t.auth.accounts.findByEmail('tester@example.com');
    const res = await get('/api/city/?page=2&page_size=5', app).set('X-Request-Id', 'trace-42').expect(200);
    await request(app).get('/api/city/').expect(401);
    // Probes only at debug.
    await request(app).get('/healthz').expect(200);
    const [ok, unauthorized] = records();
    expect(records()).toHaveLength(2);
    expect(ok).toMatchObject({
      level: 30,
      msg: 'request',
      req_id: 'trace-42',
      method: 'GET',
      route: '/api/city/',
      url: '/api/city/?page=2&page_size=5',
      status: 200,
      account_id: account!.id,
    });
    expect(res.headers['x-request-id']).toBe('trace-42');
    expect(typeof ok!.duration_ms).toBe('number');
    expect(typeof ok!.time).toBe('string');
    expect(unauthorized).toMatchObject({ route: null, status: 401, account_id: null });
    const debug = loggedApp(t, undefined, 'debug');
    await request(debug.app).get('/healthz').expect(200);
    expect(debug.records()).toMatchObject([{ level: 20, route: '/healthz', status: 200 }]);
  });

  it('redacts credential-like query parameters however they are written', () => {
    expect(redactedUrl('/api/city/?page=2&page_size=25')).toBe('/api/city/?page=2&page_size=25');
    // A value with such a word is not a credential's name.
    expect(redactedUrl('/api/city/?search=keystone')).toBe('/api/city/?search=keystone');
    expect(redactedUrl('/api/city/?Password=hunter2&page=2')).toBe('/api/city/?Password=%5BREDACTED%5D&page=2');
    // Percent-encoded names are what the server reads: %74oken is token.
    expect(redactedUrl('/api/city/?%74oken=abc123&page=2')).toBe('/api/city/?token=%5BREDACTED%5D&page=2');
    expect(redactedUrl('/api/city/?name=S%C3%A3o&session_id=x')).toBe('/api/city/?name=S%C3%A3o&session_id=%5BREDACTED%5D');
  });

  it('never logs the token or the password', async () => {
    const { app, lines, records } = loggedApp(t);
    await get(`/api/dataset/?token=${t.token}&api_key=abc123secret`, app).expect(200);
    await get(`${RAW}?years=2050`, app).expect(200);
    const login = await request(app).post('/api-token-auth/').send({ email: 'tester@example.com', password: PASSWORD }).expect(200);
    await request(app).post('/api-token-auth/').type('form').send({ email: 'tester@example.com', password: `${PASSWORD}-wrong` }).expect(400);
    expect(records()).toHaveLength(4);
    expect(records()[0]!.url).toBe('/api/dataset/?token=%5BREDACTED%5D&api_key=%5BREDACTED%5D');
    expect(records()[2]).toMatchObject({ method: 'POST', route: '/api-token-auth/', status: 200 });
    const text = lines.join('');
    for (const secret of [t.token, login.body.token as string, PASSWORD, 'abc123secret']) expect(text).not.toContain(secret);
  });
});
