import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import request from 'supertest';
import { afterAll, describe, expect, inject, it } from 'vitest';
import { createApp } from '../src/app.js';
import { buildFile, CELL_TREES } from '../src/dataBuild/files.js';
import { ROOT } from '../src/config.js';
import { openDuckDB } from '../src/db/duckdb.js';
import { buildDataset } from '../src/ingest/build.js';
import { type BuildPlan } from '../src/ingest/buildPlan.js';
import { createLogger } from '../src/logger.js';
import { TEST_BUILD } from './global-setup.js';
import { testApp } from './helpers.js';
import { compiled } from './support/compiled.js';
import { expectSameRows } from './support/sameRows.js';

const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'climate-progressive-'));
const children: ChildProcess[] = [];
afterAll(() => {
  for (const c of children) if (c.exitCode === null) c.kill('SIGKILL');
  fs.rmSync(tmp, { recursive: true, force: true });
});

const readPlan = (dir: string) => JSON.parse(fs.readFileSync(buildFile.plan(dir), 'utf8')) as BuildPlan;
const builtCells = (dir: string) => readPlan(dir).cells.filter((c) => fs.existsSync(buildFile.builtCell(dir, c.dataset, c.cell_id)));

/** Every file of a cell, with its modification time. */
function cellFiles(dir: string, dataset: string, cellId: number): Map<string, number> {
  const files = new Map<string, number>();
  for (const tree of CELL_TREES) {
    for (const scenario of ['historical', 'RCP45', 'RCP85', 'ssp126', 'ssp245', 'ssp370', 'ssp585']) {
      const f = path.join(dir, tree, dataset, scenario, `${cellId}.parquet`);
      if (fs.existsSync(f)) files.set(f, fs.statSync(f).mtimeMs);
    }
  }
  return files;
}

describe('in-place build: interrupted and resumed', () => {
  const dir = path.join(tmp, 'in-place');
  // A build of TEST_BUILD swapped in at the end: the global setup's, read here only. Its New York
  // City boundary cells are extra; the cells of TEST_BUILD are written the same whatever cells are
  // beside them (build.test.ts checks so), and the comparison below reads those only.
  const fresh = inject('dataDir');

  it('orders the cells by population, marks each when complete, and resumes without redoing finished cells', async () => {
    const stop = new Error('interrupted');
    await expect(
      buildDataset({ outDir: dir, inPlace: true, ...TEST_BUILD, log: () => {}, afterCell: (done) => { if (done === 2) throw stop; } }),
    ).rejects.toBe(stop);

    // The catalog and plan are there, two cells are marked, and there is no manifest yet.
    expect(fs.existsSync(buildFile.manifest(dir))).toBe(false);
    const plan = readPlan(dir);
    // 6 CMIP5 cells (3 cities x 2 datasets), then New York City's 2 CMIP6 cells.
    expect(plan.cells).toHaveLength(8);
    expect(new Set(plan.cells.map((c) => `${c.dataset}:${c.cell_id}`)).size).toBe(8);
    // New York City's cells come first, NEX-GDDP then LOCA; the CMIP6 ones last.
    expect(plan.cells.slice(0, 2).map((c) => c.dataset)).toEqual(['NEX-GDDP', 'LOCA']);
    expect(plan.cells.slice(6).map((c) => c.dataset)).toEqual(['NEX-GDDP-CMIP6', 'LOCA2']);
    expect(plan.cells[0]).toMatchObject({ lat: 40.625, lon: -74.125 });
    expect(fs.readdirSync(path.join(dir, 'catalog')).length).toBe(10);
    const done = builtCells(dir);
    expect(done.length).toBeGreaterThanOrEqual(2);
    const before = new Map(done.map((c) => [`${c.dataset}:${c.cell_id}`, cellFiles(dir, c.dataset, c.cell_id)]));
    for (const files of before.values()) expect(files.size).toBe(12);

    // What a kill -9 leaves: a temporary file of a dead process and its lock.
    const stale = path.join(dir, 'climate', 'NEX-GDDP', 'RCP85', '1.parquet.tmp-999999999');
    fs.writeFileSync(stale, 'half');
    fs.writeFileSync(path.join(dir, 'build.lock'), '999999999');

    const log: string[] = [];
    const manifest = await buildDataset({ outDir: dir, inPlace: true, ...TEST_BUILD, log: (l) => log.push(l) });
    expect(log.some((l) => new RegExp(`resuming build ${manifest.build_id}: ${done.length} of 8 cells were built before`).test(l))).toBe(true);
    expect(log.filter((l) => / cell \d+\/8 /.test(l))).toHaveLength(8 - done.length);
    for (const [key, files] of before) {
      const [dataset, cellId] = key.split(':');
      expect(cellFiles(dir, dataset!, Number(cellId)), key).toEqual(files);
    }
    expect(builtCells(dir)).toHaveLength(8);
    expect(fs.existsSync(stale)).toBe(false);
    expect(fs.existsSync(path.join(dir, 'build.lock'))).toBe(false);
    expect(manifest.build_id).toBe(plan.build_id);

    // A complete in-place build is left as it is.
    const again: string[] = [];
    expect(await buildDataset({ outDir: dir, inPlace: true, ...TEST_BUILD, log: (l) => again.push(l) })).toEqual(manifest);
    expect(again.join('\n')).toMatch(/holds a complete build/);
  }, 120_000);

  it('writes the same data as a build swapped in at the end', async () => {
    const db = await openDuckDB({ threads: 1, memoryLimit: '512MB' });
    const conn = await db.connect();
    try {
      const files = readPlan(dir).cells.flatMap((c) => [...cellFiles(dir, c.dataset, c.cell_id).keys()]);
      await expectSameRows(conn, files.map((file) => [file, file.replace(dir, fresh)]));
    } finally {
      conn.closeSync();
      await db.close();
    }
  }, 120_000);

  it('refuses a second writer while the first runs', async () => {
    const busy = path.join(tmp, 'busy');
    fs.mkdirSync(busy);
    fs.writeFileSync(path.join(busy, 'build.lock'), String(process.pid));
    await expect(buildDataset({ outDir: busy, inPlace: true, ...TEST_BUILD, log: () => {} })).rejects.toThrow(/Another build \(process \d+\) is writing/);
  });
});

describe('serving a build while it is written', () => {
  it('answers reference data at once, 503 with Retry-After for cells not built yet, 200 the moment a cell is complete', async () => {
    const dir = path.join(tmp, 'serving');
    let release!: () => void;
    const paused = new Promise<void>((resolve) => (release = resolve));
    let reachedPause!: () => void;
    const atPause = new Promise<void>((resolve) => (reachedPause = resolve));
    const building = buildDataset({
      outDir: dir,
      inPlace: true,
      ...TEST_BUILD,
      log: () => {},
      // Every worker stops after its first cell, so that later cells wait.
      afterCell: async (done) => {
        if (done >= 1) {
          reachedPause();
          await paused;
        }
      },
    });
    await atPause;
    const t = await testApp({ THROTTLE_BURST_RATE: '3/min' }, dir);
    const { app, token } = t;
    const auth = { Authorization: `Token ${token}` };
    const [first] = builtCells(dir);
    const waiting = readPlan(dir).cells.filter((c) => !fs.existsSync(buildFile.builtCell(dir, c.dataset, c.cell_id)));
    expect(first).toMatchObject({ dataset: 'NEX-GDDP' });

    const ready = await request(app).get('/readyz');
    expect(ready.status).toBe(503);
    expect(ready.body).toMatchObject({ status: 'building', cells_total: 8 });
    expect(ready.body.cells_built).toBe(8 - waiting.length);
    expect(ready.body.detail).toMatch(/still being built: \d of 8 map cells are ready/);
    expect((await request(app).get('/healthz')).status).toBe(200);
    expect((await request(app).get('/api/city/?search=new york').set(auth)).status).toBe(200);

    // New York City's NEX-GDDP cell is built; its LOCA cell may still be waiting (the other worker).
    const nyc = await request(app).get('/api/climate-data/5128581/RCP85/indicator/frost_days/').set(auth);
    expect(nyc.status).toBe(200);
    const target = waiting.find((c) => c.dataset === 'NEX-GDDP')!;
    const point = `/api/climate-data/${target.lat}/${target.lon}/RCP85/`;
    const notYet = await request(app).get(`${point}indicator/frost_days/`).set(auth);
    expect(notYet.status).toBe(503);
    expect(Number(notYet.headers['retry-after'])).toBeGreaterThanOrEqual(1);
    expect(notYet.body.detail).toMatch(/still being built: \d of 8 map cells are ready.*not ready yet; it should be in about \d+ s/);
    expect(notYet.headers.etag).toBeUndefined();
    expect((await request(app).get(point).set(auth)).status).toBe(503);
    // 503s are not charged: after five of them, the burst of 3/min still has two requests left.
    for (let i = 0; i < 3; i++) expect((await request(app).get(point).set(auth)).status).toBe(503);

    // Polled through the build, /readyz and the cells not built yet are states, not faults: no
    // error line (level 50), and their own count in /metrics.
    const lines: string[] = [];
    const logged = createApp({ config: t.config, catalog: t.catalog, queries: t.queries, auth: t.auth, logger: createLogger('debug', { write: (l: string) => void lines.push(l) }) });
    for (let i = 0; i < 3; i++) expect((await request(logged).get('/readyz')).status).toBe(503);
    expect((await request(logged).get(`${point}indicator/frost_days/`).set(auth)).status).toBe(503);
    expect((await request(logged).get(point).set(auth)).status).toBe(503);
    const records = lines.map((l) => JSON.parse(l) as Record<string, unknown>);
    expect(records).toMatchObject([
      ...Array(3).fill({ level: 20, msg: 'request', route: '/readyz', status: 503, not_ready: 'building' }),
      { level: 30, msg: 'request', route: '/api/climate-data/:lat/:lon/:scenario/indicator/:name/', status: 503, not_ready: 'building' },
      { level: 30, msg: 'request', route: '/api/climate-data/:lat/:lon/:scenario/', status: 503, not_ready: 'building' },
    ]);
    const metrics = (await request(logged).get('/metrics')).text;
    expect(metrics).toContain('http_not_ready_responses_total{route="/readyz",reason="building"} 3\n');
    expect(metrics).toContain('http_not_ready_responses_total{route="/api/climate-data/:lat/:lon/:scenario/indicator/:name/",reason="building"} 1\n');
    expect(metrics).toContain('http_not_ready_responses_total{route="/api/climate-data/:lat/:lon/:scenario/",reason="building"} 1\n');
    // They remain 503s in the request histogram.
    expect(metrics).toContain('http_request_duration_seconds_count{method="GET",route="/readyz",status="503"} 3\n');

    release();
    await building;
    const now = await request(app).get(`${point}indicator/frost_days/`).set(auth);
    expect(now.status).toBe(200);
    expect(Object.keys(now.body.data).length).toBeGreaterThan(0);
    expect((await request(app).get(point).set(auth)).status).toBe(200);
    expect((await request(app).get(point).set(auth)).status).toBe(429);
    expect((await request(app).get('/readyz')).body).toEqual({ status: 'ready', build_id: expect.stringMatching(/^[0-9a-f]{16}$/) });
  }, 120_000);
});

/** The server as `make run` starts it, building into an empty folder; its JSON log lines. */
function startServer(env: Record<string, string>) {
  const child = spawn(process.execPath, [compiled('src/server.ts')], {
    cwd: ROOT,
    env: { ...process.env, HOST: '127.0.0.1', LOG_LEVEL: 'info', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  children.push(child);
  const lines: Record<string, unknown>[] = [];
  let buffered = '';
  child.stdout!.on('data', (d: Buffer) => {
    buffered += d.toString();
    const complete = buffered.split('\n');
    buffered = complete.pop()!;
    for (const line of complete) if (line.startsWith('{')) lines.push(JSON.parse(line) as Record<string, unknown>);
  });
  return { child, lines };
}

async function until<T>(what: string, probe: () => Promise<T | undefined>, seconds = 90): Promise<T> {
  const deadline = Date.now() + seconds * 1000;
  for (;;) {
    const value = await probe().catch(() => undefined);
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 250));
  }
}

describe('DATA_AUTOBUILD: a first start builds the default data while serving', () => {
  it('is healthy at once, serves the catalog in seconds, resumes after a stop, and reports ready when complete', async () => {
    const dir = path.join(tmp, 'autobuild');
    const port = 20000 + Math.floor(Math.random() * 20000);
    // DATA_AREA_CITIES=0, DATA_CMIP6_CITIES=0: the city's own CMIP5 cells only, as this test counts them.
    const env = { DATA_DIR: dir, DATA_AUTOBUILD: 'on', DATA_CITIES: '1', DATA_AREA_CITIES: '0', DATA_CMIP6_CITIES: '0', PORT: String(port), ACCOUNTS_DB: path.join(tmp, 'autobuild-accounts.duckdb') };
    const base = `http://127.0.0.1:${port}`;
    const first = startServer(env);
    const early = await until('the first answer', async () => {
      const r = await fetch(`${base}/readyz`);
      return { status: r.status, body: (await r.json()) as { status: string } };
    });
    expect(early.status).toBe(503);
    expect((await fetch(`${base}/healthz`)).status).toBe(200);
    // A reload signal while starting (or, if the catalog is loaded by then, while building) is
    // declined with a warning, not fatal.
    first.child.kill('SIGHUP');
    const declined = /^SIGHUP: (the server is still starting; ignored|the data build being served is not complete yet; reload refused)$/;
    await until('the SIGHUP warning', async () => (first.lines.some((l) => declined.test(String(l.msg))) ? true : undefined), 10);
    expect((await fetch(`${base}/healthz`)).status).toBe(200);
    // The catalog: the API answers (401 without a token) instead of 503.
    await until('the catalog', async () => ((await fetch(`${base}/api/city/`)).status === 401 ? true : undefined));
    // Stop the server (and its build) after the first cell, then start again.
    await until('a built cell', async () => (fs.existsSync(path.join(dir, 'built')) && builtCells(dir).length >= 1 ? true : undefined));
    first.child.kill('SIGTERM');
    await new Promise((r) => first.child.once('exit', r));
    expect(fs.existsSync(buildFile.manifest(dir))).toBe(false);
    // The server ends after its build process: a start right after it finds the build unlocked.
    const lock = path.join(dir, 'build.lock');
    const owner = fs.existsSync(lock) ? Number(fs.readFileSync(lock, 'utf8')) : undefined;
    if (owner !== undefined) expect(() => process.kill(owner, 0), `build process ${owner} outlived the server`).toThrow();

    const second = startServer(env);
    const ready = await until('ready', async () => {
      const r = await fetch(`${base}/readyz`);
      return r.status === 200 ? ((await r.json()) as { status: string }) : undefined;
    }, 120);
    expect(ready).toEqual({ status: 'ready', build_id: (JSON.parse(fs.readFileSync(buildFile.manifest(dir), 'utf8')) as { build_id: string }).build_id });
    expect(second.lines.some((l) => /resuming build \w+: [12] of 2 cells were built before/.test(String(l.msg)))).toBe(true);
    // The manifest comes last in the build; the build process ends just after it.
    await until('the build to end', async () => (second.lines.some((l) => l.msg === 'the default data is complete') ? true : undefined), 20);
    expect(builtCells(dir)).toHaveLength(2);
    second.child.kill('SIGTERM');
    await new Promise((r) => second.child.once('exit', r));
  }, 240_000);
});
