import { execFile, spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { Queue } from 'bullmq';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { planArchive, writeArchive, type ArchiveRequest } from '../scripts/archiveModel/archive.js';
import { ROOT } from '../src/config.js';
import { boxCells, type Bbox } from '../src/ingest/netcdf/cellSelection.js';
import { ingestNetcdf } from '../src/ingest/netcdf/ingest.js';
import { connectionOf, QUEUE_NAME, type MapResult, type ReduceResult } from '../src/ingest/queue/ingestQueue.js';
import { cellCentre, GRIDS } from '../src/reference/grids.js';
import { testApp, type TestApp } from './helpers.js';
import { copyOfTestData, get, NYC, THROTTLE } from './ingest-support.js';
import { freePort, until } from '../scripts/localServers/ports.js';
import { startRedis, type RedisServer } from '../scripts/localServers/redis.js';
import { compiled } from './support/compiled.js';

/**
 * The ingest on a queue (BullMQ on a real redis-server, workers as real processes): a box ingested
 * by two workers, one of them killed mid-task and started again, gives the same served values as a
 * single-process ingest of the same files (a gregorian, a 365_day and a 360_day model; LOCA2's
 * 30-year file, with Redis killed and restarted mid-job); the new build is published by repointing
 * DATA_DIR and a running server takes it on SIGHUP without a failed request; each reduce task reads
 * only its range's staged parts, every staged byte once; a publish removes the builds older than the
 * one it replaces; a corrupt file stops its job, naming the file.
 */
const tmpRoot = fs.mkdtempSync(path.join(os.tmpdir(), 'climate-ingest-queue-'));
const FILES_BOX: Bbox = [-64.5, 44.0, -62.5, 45.5];
const BOX: Bbox = [-63.9, 44.3, -63.15, 44.95];
const LOCA2_FILES_BOX: Bbox = [-63.75, 44.5, -63.3, 44.85];
const LOCA2_BOX: Bbox = [-63.65, 44.6, -63.4, 44.75];
/** Short leases: a killed worker's task goes to another in seconds (the default is a minute). */
const LOCK_MS = '4000';
const SECRET = 'queue-test-token-secret-of-32-chars-or-more';

let redis: RedisServer;
let queue: Queue;
let current: string;
let single: TestApp;
let server: ChildProcess | undefined;
const workers: ChildProcess[] = [];
const files: Record<string, string> = {};

const archive = (req: Omit<ArchiveRequest, 'bbox'>, bbox = FILES_BOX) =>
  writeArchive(path.join(tmpRoot, 'archive'), planArchive({ ...req, bbox })).then((r) => r.written.concat(r.kept));

type MapCellFeature = { properties: { datasets: string[] } };
const buildId = (dir: string) => (JSON.parse(fs.readFileSync(path.join(dir, 'manifest.json'), 'utf8')) as { build_id: string }).build_id;

beforeAll(async () => {
  redis = await startRedis({ persist: true });
  queue = new Queue(QUEUE_NAME, { connection: connectionOf(redis.url) });
  const nex = (model: string, variable: 'tasmax' | 'pr', year: number) =>
    archive({ dataset: 'NEX-GDDP-CMIP6', models: [model], scenarios: ['ssp245'], years: [year, year], variables: [variable] }).then((f) => f[0]!);
  // A gregorian model (two variables), a 365_day and a 360_day one, in 2052 (a leap year).
  files.access = await nex('ACCESS-CM2', 'tasmax', 2052);
  files.accessPr = await nex('ACCESS-CM2', 'pr', 2052);
  files.canesm = await nex('CanESM5', 'tasmax', 2052);
  files.ukesm = await nex('UKESM1-0-LL', 'tasmax', 2052);
  files.canesm2051 = await nex('CanESM5', 'tasmax', 2051);
  files.loca2 = (await archive({ dataset: 'LOCA2', models: ['ACCESS-CM2'], scenarios: ['ssp245'], years: [2015, 2044], variables: ['tasmax'] }, LOCA2_FILES_BOX))[0]!;

  // The served build: DATA_DIR is a symlink (tmp/current -> builds/base), as the queue publishes by repointing it.
  const base = copyOfTestData(path.join(tmpRoot, 'builds'), 'base');
  current = path.join(tmpRoot, 'current');
  fs.symlinkSync(base, current);
  // The same files in one process, into a copy of the same build.
  const one = copyOfTestData(tmpRoot, 'single');
  await ingestNetcdf({ dataDir: one, dataset: 'NEX-GDDP-CMIP6', sources: [files.access, files.accessPr, files.canesm, files.ukesm], bbox: BOX, log: () => {} });
  await ingestNetcdf({ dataDir: one, dataset: 'LOCA2', sources: [files.loca2!], bbox: LOCA2_BOX, log: () => {} });
  single = await testApp(THROTTLE, one);
}, 600_000);

afterAll(async () => {
  for (const w of workers) if (w.exitCode === null && w.signalCode === null) w.kill('SIGKILL');
  server?.kill('SIGKILL');
  await queue?.close();
  await redis?.close();
  fs.rmSync(tmpRoot, { recursive: true, force: true });
});

interface WorkerProcess {
  child: ChildProcess;
  lines: string[];
  exited: Promise<number | null>;
}

function startWorker(): WorkerProcess {
  const child = spawn(process.execPath, [compiled('src/cli/ingestWorker.ts')], {
    cwd: ROOT,
    env: { ...process.env, QUEUE_URL: redis.url, DATA_DIR: current, EXIT_WHEN_IDLE: '1', INGEST_LOCK_MS: LOCK_MS },
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  workers.push(child);
  const lines: string[] = [];
  let buffered = '';
  child.stderr!.on('data', (d: Buffer) => {
    buffered += d.toString();
    const parts = buffered.split('\n');
    buffered = parts.pop()!;
    lines.push(...parts);
  });
  const exited = new Promise<number | null>((r) => child.once('exit', (code) => r(code)));
  return { child, lines, exited };
}

async function enqueue(dataset: string, src: string[], bbox: Bbox, rangeCells = ''): Promise<string> {
  const { stdout } = await promisify(execFile)(process.execPath, [compiled('src/cli/ingestEnqueue.ts'), `--dataset=${dataset}`, `--src=${src.join(',')}`, `--bbox=${bbox.join(',')}`, '--points=', `--range-cells=${rangeCells}`], {
    cwd: ROOT,
    env: { ...process.env, QUEUE_URL: redis.url, DATA_DIR: current },
  });
  const job = stdout.trim();
  expect(job).toMatch(/^ingest-[0-9a-z]+-[0-9a-f]{6}$/);
  return job;
}

async function status(job: string): Promise<{ code: number; out: string }> {
  return new Promise((resolve) => {
    execFile(process.execPath, [compiled('src/cli/ingestStatus.ts'), `--job=${job}`], { cwd: ROOT, env: { ...process.env, QUEUE_URL: redis.url } }, (err, stdout, stderr) => {
      resolve({ code: err ? ((err as { code?: number }).code ?? 1) : 0, out: stdout + stderr });
    });
  });
}

/**
 * Kills the worker in the middle of a task: each time it logs the start of one, it is stopped
 * there (SIGSTOP) and the task looked at in the queue; if it is still running, the worker gets
 * SIGKILL. Returns the task's id.
 */
async function killMidTask(w: WorkerProcess): Promise<string> {
  let seen = 0;
  for (;;) {
    let exited = false;
    void w.exited.then(() => (exited = true));
    await until('the worker to start a task', async () => exited || w.lines.filter((l) => / started /.test(l)).length > seen, 120_000);
    if (exited) throw new Error(`the worker ended before it was caught in a task:\n${w.lines.join('\n')}`);
    w.child.kill('SIGSTOP');
    const started = w.lines.filter((l) => / started /.test(l));
    seen = started.length;
    const id = / started \S+ (\S+)/.exec(started.at(-1)!)![1]!;
    const task = await queue.getJob(id);
    if ((await task?.getState()) === 'active' && !w.lines.some((l) => l.includes(` done `) && l.includes(` ${id} `) && w.lines.indexOf(l) > w.lines.indexOf(started.at(-1)!))) {
      w.child.kill('SIGKILL');
      await w.exited;
      return id;
    }
    w.child.kill('SIGCONT');
  }
}

/** Every cell of the box, as both builds serve it: the same status and the same daily values, and the same frost days. */
async function expectSameServed(queued: TestApp, dataset: string, box: Bbox, cases: { model: string; year: number; variable: string }[]): Promise<number> {
  const grid = GRIDS[dataset]!;
  let land = 0;
  for (const cell of boxCells(grid, box)) {
    const c = cellCentre(grid, cell);
    for (const k of cases) {
      const url = `/api/climate-data/${c.lat}/${c.lon}/ssp245/?dataset=${dataset}&models=${k.model}&years=${k.year}&variables=${k.variable}`;
      const [a, b] = [await get(single, url), await get(queued, url)];
      expect(b.status, url).toBe(a.status);
      if (a.status !== 200) continue;
      expect(b.body.data, url).toEqual(a.body.data);
      if ((a.body.data[String(k.year)][k.variable] as (number | null)[]).some((v) => v !== null)) land++;
    }
    const frost = `/api/climate-data/${c.lat}/${c.lon}/ssp245/indicator/frost_days/?dataset=${dataset}&years=${cases[0]!.year}`;
    const [a, b] = [await get(single, frost), await get(queued, frost)];
    expect(b.status, frost).toBe(a.status);
    if (a.status === 200) expect(b.body.data, frost).toEqual(a.body.data);
  }
  return land;
}

describe('make ingest-enqueue / ingest-worker / ingest-status: the ingest on BullMQ', () => {
  it('two workers, one killed mid-task and restarted, publish the single-process values as a new build, which a running server swaps in on SIGHUP without a failed request', async () => {
    const base = fs.realpathSync(current);
    const { base: url, token, readyId } = await serve();
    expect(await readyId()).toBe(buildId(base));

    // Ranges of 4 target cells: the box's cells fall in several reduce tasks.
    const job = await enqueue('NEX-GDDP-CMIP6', [files.access!, files.accessPr!, files.canesm!, files.ukesm!], BOX, '4');
    expect((await status(job)).code).toBe(3);
    // The second worker starts once the first has a task: started together, the quicker one could
    // take every task before the other was caught in one (and its job publish after the next test's began).
    const a = startWorker();
    await until('the first worker to start a task', async () => a.lines.some((l) => / started /.test(l)), 120_000);
    const b = startWorker();
    const killed = await killMidTask(a);
    const again = startWorker();
    expect(await b.exited).toBe(0);
    expect(await again.exited).toBe(0);

    // The task killed mid-way was run again, and the job published a new build.
    const task = (await queue.getJob(killed))!;
    expect(await task.getState()).toBe('completed');
    expect(task.attemptsStarted).toBeGreaterThanOrEqual(2);
    const st = await status(job);
    expect(st.out).toContain(`job ${job} (NEX-GDDP-CMIP6): published`);
    expect(st.out).toMatch(/map \(read and stage each file\): 4\/4 done; [\d,]+ values decoded \([\d,]+\/s\)/);
    expect(st.out).toMatch(/reduce \(write each range of cells\): (\d+)\/\1 done/);
    expect(st.out).toContain('slowest tasks:');
    expect(st.code).toBe(0);
    const published = fs.realpathSync(current);
    expect(published).not.toBe(base);
    expect(buildId(published)).not.toBe(buildId(base));

    // The shuffle: each reduce task read its own range's parts (one per file) and nothing else, so
    // that the reduce stage read every byte the map stage staged exactly once (before, every reduce
    // task read every staged file's cell index).
    const results = Object.values(await (await queue.getJob(job))!.getChildrenValues<MapResult | ReduceResult>());
    const maps = results.filter((r): r is MapResult => r.kind === 'map');
    const reduces = results.filter((r): r is ReduceResult => r.kind === 'reduce');
    expect(maps).toHaveLength(4);
    expect(reduces.filter((r) => r.cells > 0).length).toBeGreaterThanOrEqual(3);
    for (const r of reduces) expect(r.parts).toBe(4);
    const staged = maps.reduce((n, r) => n + r.stagedBytes, 0);
    expect(staged).toBeGreaterThan(0);
    expect(reduces.reduce((n, r) => n + r.stagedBytesRead, 0)).toBe(staged);

    // The running server swaps the new build in on SIGHUP while clients keep asking.
    const answers: number[] = [];
    const failures: string[] = [];
    let running = true;
    const client = async () => {
      while (running) {
        try {
          const r = await fetch(`${url}/api/climate-data/${NYC}/ssp245/?dataset=NEX-GDDP-CMIP6&years=2050`, { headers: { authorization: `Token ${token}` } });
          await r.arrayBuffer();
          answers.push(r.status);
        } catch (err) {
          failures.push(String(err));
        }
      }
    };
    const clients = Array.from({ length: 8 }, client);
    await until('some answers', async () => answers.length > 16, 30_000);
    process.kill(server!.pid!, 'SIGHUP');
    await until('the published build', async () => (await readyId()) === buildId(published), 30_000);
    const switched = answers.length;
    await until('answers from the new build', async () => answers.length > switched + 16, 30_000);
    running = false;
    await Promise.all(clients);
    expect(failures).toEqual([]);
    expect(answers.filter((s) => s !== 200)).toEqual([]);
    // A cell of the box the job gave data is a map cell of the server now.
    const had = new Set(fs.readdirSync(path.join(base, 'climate', 'NEX-GDDP-CMIP6', 'ssp245')));
    const gained = fs.readdirSync(path.join(published, 'climate', 'NEX-GDDP-CMIP6', 'ssp245')).filter((f) => !had.has(f));
    expect(gained.length).toBeGreaterThan(5);
    const centre = cellCentre(GRIDS['NEX-GDDP-CMIP6']!, Number.parseInt(gained[0]!, 10));
    const cellAnswer = await fetch(`${url}/api/map-cell/${centre.lat}/${centre.lon}/`, { headers: { authorization: `Token ${token}` } });
    expect(cellAnswer.status).toBe(200);
    expect(((await cellAnswer.json()) as MapCellFeature[]).some((f) => f.properties.datasets.includes('NEX-GDDP-CMIP6'))).toBe(true);

    // Day for day what one process wrote, for each calendar.
    const queued = await testApp(THROTTLE, published);
    const land = await expectSameServed(queued, 'NEX-GDDP-CMIP6', BOX, [
      { model: 'ACCESS-CM2', year: 2052, variable: 'tasmax' },
      { model: 'ACCESS-CM2', year: 2052, variable: 'pr' },
      { model: 'CanESM5', year: 2052, variable: 'tasmax' },
      { model: 'UKESM1-0-LL', year: 2052, variable: 'tasmax' },
    ]);
    expect(land).toBeGreaterThan(20);
    const manifest = (dir: string) => JSON.parse(fs.readFileSync(path.join(dir, 'manifest.json'), 'utf8')) as { datasets: Record<string, unknown>; dataset_years: unknown; files: unknown };
    expect(manifest(published).datasets['NEX-GDDP-CMIP6']).toEqual(manifest(path.join(tmpRoot, 'single')).datasets['NEX-GDDP-CMIP6']);
  }, 600_000);

  it('LOCA2\'s 30-year file, with a worker killed mid-task and Redis killed and restarted mid-job: the single-process values', async () => {
    const before = fs.realpathSync(current);
    // Beside the served build: one served before the previous one (to be removed at publish), and
    // the build of a job that has not published (kept).
    const builds = path.dirname(before);
    const older = path.join(builds, 'build-older');
    fs.mkdirSync(path.join(older, 'catalog'), { recursive: true });
    fs.writeFileSync(path.join(older, 'manifest.json'), '{}');
    const unfinished = path.join(builds, 'build-ingest-unfinished');
    fs.mkdirSync(unfinished);
    fs.mkdirSync(path.join(tmpRoot, 'ingest-jobs', 'ingest-unfinished'), { recursive: true });
    fs.writeFileSync(path.join(tmpRoot, 'ingest-jobs', 'ingest-unfinished', 'plan.json'), '{}');
    const job = await enqueue('LOCA2', [files.loca2!], LOCA2_BOX);
    // One worker first, killed in its first task (the map of the 30-year file: with a second worker
    // beside it, it could be left only a range of no value, done before it is caught).
    const a = startWorker();
    await killMidTask(a);
    // Redis goes away while the job is under way (its append-only file keeps the queue), then comes back.
    expect(await (await queue.getJob(job))!.getState()).not.toBe('completed');
    await redis.stop();
    await new Promise((r) => setTimeout(r, 1500));
    await redis.start();
    const b = startWorker();
    const again = startWorker();
    expect(await b.exited).toBe(0);
    expect(await again.exited).toBe(0);
    const st = await status(job);
    expect(st.out).toContain(`job ${job} (LOCA2): published`);
    expect(st.code).toBe(0);
    const published = fs.realpathSync(current);
    expect(published).not.toBe(before);
    // The publish removed the build older than the previous one, and said so; the previous build
    // (servers not reloaded yet serve it), the first one (not a build-* folder) and the unfinished job's stay.
    expect(fs.existsSync(older)).toBe(false);
    expect([...b.lines, ...again.lines].some((l) => l.includes(`removed ${older}, a build older than the one served before (${before})`))).toBe(true);
    for (const kept of [before, published, unfinished, path.join(builds, 'base')]) expect(fs.existsSync(kept), kept).toBe(true);
    const queued = await testApp(THROTTLE, published);
    let land = 0;
    for (const year of [2015, 2030, 2044]) land += await expectSameServed(queued, 'LOCA2', LOCA2_BOX, [{ model: 'ACCESS-CM2', year, variable: 'tasmax' }]);
    expect(land).toBeGreaterThan(9);
    // The NEX-GDDP-CMIP6 cells of the first job are still there: each job adds to the build it started from.
    expect(await expectSameServed(queued, 'NEX-GDDP-CMIP6', BOX, [{ model: 'CanESM5', year: 2052, variable: 'tasmax' }])).toBeGreaterThan(5);
  }, 600_000);

  it('refuses a RANGE_CELLS that is not a whole number of cells, saying what it takes', async () => {
    for (const bad of ['0', '-5', '2.5', 'many']) {
      const run = await new Promise<{ code: number; err: string }>((resolve) => {
        execFile(process.execPath, [compiled('src/cli/ingestEnqueue.ts'), '--dataset=NEX-GDDP-CMIP6', `--src=${files.access}`, `--range-cells=${bad}`], {
          cwd: ROOT,
          env: { ...process.env, QUEUE_URL: redis.url, DATA_DIR: current },
        }, (e, _out, stderr) => resolve({ code: e ? ((e as { code?: number }).code ?? 1) : 0, err: stderr }));
      });
      expect(run.code, bad).toBe(2);
      expect(run.err).toContain(`RANGE_CELLS takes a whole number of cells, 1 or more (the default is 512); got '${bad}'`);
    }
  }, 120_000);

  it('a corrupt file fails its task 3 times and stops the job naming it; nothing is published', async () => {
    const before = fs.realpathSync(current);
    const dir = path.join(tmpRoot, 'corrupt');
    fs.mkdirSync(dir);
    const bad = path.join(dir, path.basename(files.canesm2051!));
    // Cut short, as a download that broke off.
    fs.writeFileSync(bad, fs.readFileSync(files.canesm2051!).subarray(0, Math.floor(fs.statSync(files.canesm2051!).size / 2)));
    fs.copyFileSync(files.access!, path.join(dir, path.basename(files.access!)));
    const job = await enqueue('NEX-GDDP-CMIP6', [dir], BOX);
    const w = startWorker();
    expect(await w.exited).toBe(0);
    const st = await status(job);
    expect(st.code).toBe(1);
    expect(st.out).toContain(`job ${job} (NEX-GDDP-CMIP6): failed`);
    expect(st.out).toContain(`FAILED: map ${bad} (3 attempts): ${bad}: `);
    expect(st.out).toContain(`The job stopped: ${bad}: `);
    expect(st.out).toContain('Nothing was published');
    expect(fs.realpathSync(current)).toBe(before);
  }, 300_000);
});

/** A server on DATA_DIR (the symlink) as make run starts it, with an account no throttle stops. */
async function serve() {
  const port = await freePort();
  const env = { ...process.env, DATA_DIR: current, ACCOUNTS_DB: path.join(tmpRoot, 'accounts.duckdb'), TOKEN_SECRET: SECRET, PID_FILE: path.join(tmpRoot, 'server.pid') };
  const { stdout } = await promisify(execFile)(process.execPath, [compiled('src/cli/user.ts'), '--email', 'queue@example.com', '--password', 'queue-password', '--burst-rate', '1000000/min', '--sustained-rate', '100000000/day'], { cwd: ROOT, env });
  const token = stdout.trim().split('\n').pop()!;
  server = spawn(process.execPath, [compiled('src/server.ts')], {
    cwd: ROOT,
    env: { ...env, PORT: String(port), HOST: '127.0.0.1', LOG_LEVEL: 'warn' },
    stdio: ['ignore', 'ignore', 'inherit'],
  });
  const base = `http://127.0.0.1:${port}`;
  const readyId = async () => {
    const r = await fetch(`${base}/readyz`).catch(() => undefined);
    return r?.status === 200 ? ((await r.json()) as { build_id: string }).build_id : undefined;
  };
  await until('the server', async () => (await readyId()) !== undefined, 60_000);
  return { base, token, readyId };
}
