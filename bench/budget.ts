/**
 * `make bench-budget`: where the time of one request goes, for one indicator request (frost_days
 * yearly, every NEX-GDDP model, RCP85) and one raw request (the century's daily data, 3 variables,
 * agg=avg, every model). In one process, over DATA_DIR, each step timed alone over the cells with
 * data (distinct requests: the years vary), medians of BENCH_BUDGET_ROUNDS rounds (default 200):
 *
 * - the whole request over HTTP (loopback, the app as served), plain and compressed;
 * - a trivial request (/api/scenario/): Node's HTTP, Express, the middleware and the token check;
 * - the token check alone (signature and account state);
 * - the DuckDB query as the route runs it (queue, session variables, bind, execute, read), and
 *   its bind (prepare) and execute parts on one connection;
 * - building the JSON text from the query's rows; compressing it (br quality 1, gzip level 1).
 *
 * What is left (the whole request less the parts) is validation, routing to the cell, headers
 * and writing the response.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import zlib from 'node:zlib';
import { createApp } from '../src/app.js';
import { createAuth } from '../src/auth/index.js';
import { AppObjects } from '../src/http/appObjects.js';
import { hashPassword } from '../src/auth/passwords.js';
import { loadConfig, ROOT } from '../src/config.js';
import { openDuckDB } from '../src/db/duckdb.js';
import { QueryPool } from '../src/db/queryPool.js';
import { sqlFile } from '../src/db/sqlFiles.js';
import { climateFile, summaryFile } from '../src/dataBuild/files.js';
import { queryEnsembleJson } from '../src/climate/rawData.js';
import { queryIndicator, servedStatement, type IndicatorRequest } from '../src/indicators/query.js';
import { dataJson } from '../src/indicators/indicatorData.js';
import { loadCatalog } from '../src/reference/catalog.js';
import { createLogger } from '../src/logger.js';
import { climateWorkloads } from './workloads.js';

const DATA_DIR = path.resolve(process.env.DATA_DIR ?? path.join(ROOT, 'data', 'build'));
const ROUNDS = Number(process.env.BENCH_BUDGET_ROUNDS ?? 200);
const ENCODING = 'gzip, deflate, br';

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
/** Median time of `step`; a step that returns a number reports its own time (the part it measures). */
async function timed(n: number, step: (i: number) => Promise<unknown> | unknown): Promise<number> {
  for (let i = 0; i < Math.min(20, n); i++) await step(i); // warm-up
  const times: number[] = [];
  for (let i = 0; i < n; i++) {
    const t0 = performance.now();
    const own = await step(i);
    times.push(typeof own === 'number' ? own : performance.now() - t0);
  }
  return median(times);
}

async function main() {
  const config = loadConfig({ ...process.env, DATA_DIR, LOG_LEVEL: 'silent', ACCOUNTS_DB: path.join(os.tmpdir(), `budget-${process.pid}.duckdb`), THROTTLE_BURST_RATE: '1000000/min', THROTTLE_SUSTAINED_RATE: '100000000/day' });
  const db = await openDuckDB({ threads: config.DUCKDB_THREADS, memoryLimit: config.DUCKDB_MEMORY_LIMIT });
  const catalog = await loadCatalog(await db.connect(), DATA_DIR);
  const queries = await QueryPool.open(db, config.QUERY_CONCURRENCY, config.QUERY_TIMEOUT_MS, sqlFile('indicators/macros.sql'));
  const auth = await createAuth(config);
  const account = await auth.accounts.create('budget@example.com', await hashPassword('budget-password'));
  const token = await auth.tokens.issue(account.id, account.tokenVersion);
  const app = createApp({ config, catalog, queries, auth, logger: createLogger('silent') });
  // As server.ts serves it: requests born with the app's prototypes.
  const objects = new AppObjects();
  objects.serve(app);
  const server = http.createServer(objects.serverOptions, app).listen(0, '127.0.0.1');
  await new Promise((r) => server.once('listening', r));
  const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
  const get = (p: string, encoding?: string) =>
    new Promise<Buffer>((resolve, reject) => {
      http
        .get(`${base}${p}`, { agent, headers: { authorization: `Token ${token}`, ...(encoding ? { 'accept-encoding': encoding } : {}) } }, (res) => {
          const chunks: Buffer[] = [];
          res.on('data', (c: Buffer) => chunks.push(c));
          res.on('end', () => (res.statusCode === 200 ? resolve(Buffer.concat(chunks)) : reject(new Error(`${p}: ${res.statusCode}`))));
        })
        .on('error', reject);
    });

  const paths = (name: string) => climateWorkloads(catalog).find((w) => w.name.startsWith(name))!.paths;
  const cellOf = (p: string) => {
    const city = Number(/climate-data\/(\d+)\//.exec(p)![1]);
    return catalog.cityCells.get(city)!.get('NEX-GDDP')!;
  };
  const yearsOf = (p: string) => {
    const [a, b] = /years=(\d+):(\d+)/.exec(p)!.slice(1).map(Number) as [number, number];
    return Array.from({ length: b - a + 1 }, (_, i) => a + i);
  };
  const nex = catalog.datasets.find((d) => d.name === 'NEX-GDDP')!;
  const rows: [string, string, number][] = [];
  const add = (request: string, step: string, ms: number) => {
    rows.push([request, step, ms]);
    process.stderr.write(`budget: ${request}: ${step} ${ms.toFixed(2)} ms\n`);
  };

  add('both', 'trivial request (/api/scenario/): HTTP, Express, middleware, token check', await timed(ROUNDS, () => get('/api/scenario/')));
  add('both', 'token check alone (signature and account state)', await timed(ROUNDS, async () => {
    const claims = await auth.tokens.read(token);
    if (claims && claims !== 'expired') await auth.accounts.tokenState(claims.accountId, claims.version);
  }));

  // The indicator request.
  const frost = paths('frost_days yearly').filter((p) => !p.includes('relative_to'));
  const request = (p: string): IndicatorRequest => {
    const cell = cellOf(p);
    return {
      name: 'frost_days',
      cells: [{ file: climateFile(DATA_DIR, 'NEX-GDDP', 'RCP85', cell)!, monthlyFile: summaryFile(DATA_DIR, 'monthly', 'NEX-GDDP', 'RCP85', cell) }],
      years: yearsOf(p),
      timeAggregation: 'yearly',
      spans: [],
      aggs: ['min', 'max', 'avg'],
      units: 'days',
    };
  };
  add('frost_days', 'whole request, plain', await timed(ROUNDS, (i) => get(frost[i % frost.length]!)));
  add('frost_days', `whole request, Accept-Encoding: ${ENCODING}`, await timed(ROUNDS, (i) => get(frost[(i + 7) % frost.length]!, ENCODING)));
  add('frost_days', 'DuckDB query as the route runs it', await timed(ROUNDS, (i) => queryIndicator(queries, request(frost[(i + 11) % frost.length]!))));
  // Bind and execute apart, on one connection whose session variables a query of this cell set.
  const sample = request(frost[0]!);
  await queryIndicator(queries, sample);
  // The statement the route runs for a yearly request (whole months).
  const template = servedStatement('frost_days', 'period_values', true);
  add('frost_days', '  of which bind (prepare the statement)', await timed(ROUNDS, () => queries.run(async (c) => (await c.prepare(template)).destroySync())));
  add('frost_days', '  of which execute and read', await timed(ROUNDS, () => queries.run(async (c) => {
    const s = await c.prepare(template);
    const t0 = performance.now();
    await s.runAndReadAll();
    const ms = performance.now() - t0;
    s.destroySync();
    return ms;
  })));
  // The same with relative_to=1971 (issue 14: at most 1.5x the plain request).
  const relativeTo = (p: string): IndicatorRequest => {
    const cell = cellOf(p);
    const plain = request(p);
    return {
      ...plain,
      cells: [{ ...plain.cells[0]!, baselineFile: climateFile(DATA_DIR, 'NEX-GDDP', 'historical', cell)!, baselineMonthlyFile: summaryFile(DATA_DIR, 'monthly', 'NEX-GDDP', 'historical', cell) }],
      baseline: { years: Array.from({ length: 30 }, (_, i) => 1971 + i), change: 'absolute' },
    };
  };
  const relative = paths('frost_days yearly relative_to=1971');
  add('frost_days relative_to=1971', 'whole request, plain', await timed(ROUNDS, (i) => get(relative[i % relative.length]!)));
  add('frost_days relative_to=1971', 'DuckDB query as the route runs it', await timed(ROUNDS, (i) => {
    return queryIndicator(queries, relativeTo(relative[(i + 11) % relative.length]!));
  }));
  const [frostRows = []] = await queryIndicator(queries, sample);
  const frostBody = Buffer.from(dataJson(frostRows));
  add('frost_days', 'JSON text of the rows', await timed(ROUNDS, () => dataJson(frostRows)));
  add('frost_days', `br quality 1 of the answer (${(frostBody.length / 1024).toFixed(1)} KB of data)`, await timed(ROUNDS, () => zlib.brotliCompressSync(frostBody, { params: { [zlib.constants.BROTLI_PARAM_QUALITY]: 1 } })));

  // The raw request.
  const raw = paths('raw century');
  const rawQuery = (p: string) => ({ file: summaryFile(DATA_DIR, 'ensemble_json', 'NEX-GDDP', 'RCP85', cellOf(p)), years: yearsOf(p), variables: ['tasmax', 'tasmin', 'pr'] as const, agg: 'avg' as const });
  const rounds = Math.max(20, Math.floor(ROUNDS / 4));
  add('raw century', 'whole request, plain', await timed(rounds, (i) => get(raw[i % raw.length]!)));
  add('raw century', `whole request, Accept-Encoding: ${ENCODING}`, await timed(rounds, (i) => get(raw[(i + 7) % raw.length]!, ENCODING)));
  add('raw century', 'DuckDB query (the ensemble_json text)', await timed(rounds, (i) => queryEnsembleJson(queries, { ...rawQuery(raw[(i + 11) % raw.length]!), variables: ['tasmax', 'tasmin', 'pr'] })));
  const rawBody = await get(raw[0]!);
  add('raw century', `br quality 1 of the answer (${(rawBody.length / 1024).toFixed(0)} KB)`, await timed(rounds, () => zlib.brotliCompressSync(rawBody, { params: { [zlib.constants.BROTLI_PARAM_QUALITY]: 1 } })));
  add('raw century', `gzip level 1 of the answer`, await timed(rounds, () => zlib.gzipSync(rawBody, { level: 1 })));

  console.log(`\nlatency budget (one process, 1 client, keep-alive, medians of ${ROUNDS} requests; raw: ${rounds}); ${nex.models.length} models; data build ${catalog.manifest.build_id}\n`);
  console.log('| request | step | ms |');
  console.log('|---|---|---|');
  for (const [r, step, ms] of rows) console.log(`| ${r} | ${step} | ${ms.toFixed(2)} |`);
  server.close();
  agent.destroy();
  await auth.close();
  queries.close();
}

main().catch((err: unknown) => {
  console.error(err instanceof Error ? err.message : err);
  process.exit(1);
});
