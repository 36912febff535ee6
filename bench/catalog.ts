/**
 * `make bench-catalog`: the serving side as the catalog grows, on builds with 2,000, 20,000 and
 * 200,000 added map cells with data (bench/catalogBuilds.ts says what it fakes and why that does
 * not change what is measured). For each size, the compiled server (dist/) in its own process:
 * - start-up: seconds from spawning `node dist/server.js` to the first 200 of /readyz, and its RSS
 *   then (medians of BENCH_CATALOG_RUNS starts, default 3);
 * - lookups: median and p95 latency of distinct lat/lon requests inside the added cells, with
 *   Accept-Encoding gzip, from a load generator in its own process (bench/latencyLoad.ts, 2
 *   connections, BENCH_CATALOG_REQUESTS measured after a fifth as many for warm-up): the map cell
 *   at a point, the map cells within 10 km, one model-year of raw data at a point, and the
 *   frost days of a 0.3 degree box (an area, clipped to the cells);
 * - reload: seconds from SIGHUP (serving the small base build) until the large build is served,
 *   which checks every cell file (src/dataBuild/buildCheck.ts), and the server's peak RSS.
 * BENCH_CATALOG_SIZES=2000,20000,200000 picks the sizes. Prints a table and writes JSON to bench/results/.
 */
import { execFile, execFileSync, spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { ROOT } from '../src/config.js';
import { boxesOf, boxExtent, largeBuild, SCENARIO, WORK } from './catalogBuilds.js';

const SIZES = (process.env.BENCH_CATALOG_SIZES ?? '2000,20000,200000').split(',').map(Number);
const RUNS = Number(process.env.BENCH_CATALOG_RUNS ?? 3);
const REQUESTS = Number(process.env.BENCH_CATALOG_REQUESTS ?? 2000);
const CONNECTIONS = 2;
const TSX = path.join(ROOT, 'node_modules', '.bin', 'tsx');
const log = (line: string) => process.stderr.write(line + '\n');
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;

async function freePort(): Promise<number> {
  return new Promise((resolve) => {
    const s = net.createServer().listen(0, '127.0.0.1', () => {
      const { port } = s.address() as net.AddressInfo;
      s.close(() => resolve(port));
    });
  });
}

/** The compiled server as `make run` starts it, with its Node options; its log lines go to `onLine`. */
function startServer(env: NodeJS.ProcessEnv, onLine: (line: string) => void = () => {}): ChildProcess {
  const nodeOptions = (process.env.SERVER_NODE_OPTIONS ?? '--max-old-space-size=256').split(' ').filter(Boolean);
  const child = spawn(process.execPath, [...nodeOptions, path.join(ROOT, 'dist', 'server.js')], { cwd: ROOT, env, stdio: ['ignore', 'pipe', 'inherit'] });
  let rest = '';
  child.stdout!.on('data', (chunk: Buffer) => {
    const lines = (rest + chunk.toString('utf8')).split('\n');
    rest = lines.pop()!;
    for (const line of lines) onLine(line);
  });
  return child;
}

async function stopServer(child: ChildProcess) {
  if (child.exitCode !== null) return;
  const exited = new Promise((resolve) => child.once('exit', resolve));
  child.kill('SIGTERM');
  await exited;
}

async function waitReady(url: string, child: ChildProcess): Promise<void> {
  for (;;) {
    if (child.exitCode !== null) throw new Error(`The server exited (${child.exitCode}) before it was ready.`);
    try {
      if ((await fetch(`${url}/readyz`)).status === 200) return;
    } catch {
      /* not listening yet */
    }
    await new Promise((r) => setTimeout(r, 10));
  }
}

function memoryMb(pid: number, field: 'VmRSS' | 'VmHWM'): number {
  const status = fs.readFileSync(`/proc/${pid}/status`, 'utf8');
  return Number(new RegExp(`${field}:\\s+(\\d+)`).exec(status)?.[1] ?? 0) / 1024;
}

/** Deterministic pseudo-random numbers, so that runs ask for the same points. */
function rng(seed: number) {
  let s = seed >>> 0;
  return () => {
    s = (Math.imul(s ^ (s >>> 15), 0x2c1b3c6d) + 0x9e3779b9) >>> 0;
    return s / 2 ** 32;
  };
}

/** Distinct paths of `make(lat, lon)` at points inside the box. */
function pathsIn(box: [number, number, number, number], count: number, seed: number, make: (lat: string, lon: string) => string): string[] {
  const r = rng(seed);
  const seen = new Set<string>();
  while (seen.size < count) {
    const lat = (box[1] + r() * (box[3] - box[1])).toFixed(5);
    const lon = (box[0] + r() * (box[2] - box[0])).toFixed(5);
    seen.add(make(lat, lon));
  }
  return [...seen];
}

interface LoadResult {
  requests: number;
  median: number;
  p95: number;
  non2xx: number;
  errors: number;
  bytes: number;
  firstFailures: string[];
}

async function runLoad(url: string, token: string, paths: string[]): Promise<LoadResult> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'bench-catalog-'));
  const spec = path.join(dir, 'spec.json');
  fs.writeFileSync(spec, JSON.stringify({ url, token, paths, connections: CONNECTIONS, acceptEncoding: 'gzip' }));
  try {
    const { stdout } = await promisify(execFile)(process.execPath, ['--import', 'tsx', path.join(ROOT, 'bench', 'latencyLoad.ts'), spec], { cwd: ROOT, encoding: 'utf8', maxBuffer: 1 << 24 });
    return JSON.parse(stdout.trim().split('\n').pop()!) as LoadResult;
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

interface SizeResult {
  cells: number;
  cellsWithData: number;
  readySeconds: number[];
  rssMb: number[];
  lookups: Record<string, LoadResult>;
  reloadSeconds: number;
  reloadPeakRssMb: number;
  cellFiles: number;
}

/** Seconds from SIGHUP until the server serves the build named `buildId` (the log says so), or throws with the refusal. */
async function timeReload(env: NodeJS.ProcessEnv, link: string, from: string, to: string, buildId: string): Promise<{ seconds: number; peakRssMb: number }> {
  fs.rmSync(link, { force: true });
  fs.symlinkSync(from, link);
  let done: ((line: string) => void) | undefined;
  const server = startServer({ ...env, DATA_DIR: link, LOG_LEVEL: 'info' }, (line) => {
    if (line.includes(buildId) || line.includes('SIGHUP')) done?.(line);
  });
  try {
    await waitReady(env.BENCH_URL!, server);
    fs.rmSync(link);
    fs.symlinkSync(to, link);
    const served = new Promise<string>((resolve) => (done = resolve));
    const t0 = performance.now();
    server.kill('SIGHUP');
    const line = await served;
    const seconds = (performance.now() - t0) / 1000;
    if (!line.includes('serving the data build')) throw new Error(`The reload was refused: ${line}`);
    return { seconds, peakRssMb: memoryMb(server.pid!, 'VmHWM') };
  } finally {
    await stopServer(server);
  }
}

async function benchSize(cells: number, env: NodeJS.ProcessEnv, token: string, base: string): Promise<SizeResult> {
  const dir = await largeBuild(cells, log);
  const manifest = JSON.parse(fs.readFileSync(path.join(dir, 'manifest.json'), 'utf8')) as { build_id: string; datasets: Record<string, { cells_with_data: number }>; files: Record<string, number> };
  const url = env.BENCH_URL!;
  const serverEnv = { ...env, DATA_DIR: dir };
  const readySeconds: number[] = [];
  const rssMb: number[] = [];
  const lookups: Record<string, LoadResult> = {};
  for (let run = 0; run < RUNS; run++) {
    const t0 = performance.now();
    const server = startServer(serverEnv);
    try {
      await waitReady(url, server);
      readySeconds.push((performance.now() - t0) / 1000);
      rssMb.push(memoryMb(server.pid!, 'VmRSS'));
      if (run < RUNS - 1) continue;
      const [loca2] = boxesOf(cells);
      const box = boxExtent(loca2!);
      const n = REQUESTS + Math.ceil(REQUESTS / 5);
      const workloads: Record<string, string[]> = {
        'map cell at a point': pathsIn(box, n, 1, (lat, lon) => `/api/map-cell/${lat}/${lon}/`),
        'map cells within 10 km': pathsIn(box, n, 2, (lat, lon) => `/api/map-cell/${lat}/${lon}/?distance=10000`),
        'raw data at a point (1 model-year)': pathsIn(box, n, 3, (lat, lon) => `/api/climate-data/${lat}/${lon}/${SCENARIO}/?dataset=LOCA2&models=ACCESS-CM2&years=2050&variables=tasmax`),
        'area: frost days of a 0.3 degree box': pathsIn([box[0], box[1], box[2] - 0.3, box[3] - 0.3], Math.ceil(n / 4), 4, (lat, lon) =>
          `/api/climate-data/area/${SCENARIO}/indicator/frost_days/?dataset=LOCA2&bbox=${lon},${lat},${(Number(lon) + 0.3).toFixed(5)},${(Number(lat) + 0.3).toFixed(5)}`),
      };
      for (const [name, paths] of Object.entries(workloads)) {
        const warm = Math.ceil(paths.length / 6);
        log(`bench-catalog: ${cells} cells: ${name} (${paths.length - warm} requests after ${warm} for warm-up)`);
        await runLoad(url, token, paths.slice(0, warm));
        const r = await runLoad(url, token, paths.slice(warm));
        if (r.non2xx > 0 || r.errors > 0) log(`  warning: ${r.non2xx} non-2xx responses, ${r.errors} errors (${r.firstFailures.join('; ')})`);
        lookups[name] = r;
      }
    } finally {
      await stopServer(server);
    }
  }
  log(`bench-catalog: ${cells} cells: reload from the base build`);
  const reload = await timeReload(env, path.join(WORK, 'current'), base, dir, manifest.build_id);
  return {
    cells,
    cellsWithData: Object.values(manifest.datasets).reduce((n, d) => n + d.cells_with_data, 0),
    readySeconds,
    rssMb,
    lookups,
    reloadSeconds: reload.seconds,
    reloadPeakRssMb: reload.peakRssMb,
    cellFiles: Object.values(manifest.files).reduce((n, c) => n + c, 0),
  };
}

async function main() {
  if (!fs.existsSync(path.join(ROOT, 'dist', 'server.js'))) throw new Error('No dist/server.js: run `make build` first (make bench-catalog does).');
  const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'bench-catalog-accounts-'));
  const port = await freePort();
  const env: NodeJS.ProcessEnv = {
    ...process.env,
    ACCOUNTS_DB: path.join(tmp, 'accounts.duckdb'),
    PORT: String(port),
    HOST: '127.0.0.1',
    LOG_LEVEL: 'warn',
    DATA_AUTOBUILD: 'off',
    THROTTLE_BURST_RATE: '1000000/min',
    THROTTLE_SUSTAINED_RATE: '100000000/day',
    BENCH_URL: `http://127.0.0.1:${port}`,
  };
  const created = execFileSync(TSX, ['src/cli/user.ts', '--email', 'bench@example.com', '--password', 'bench-password'], { cwd: ROOT, env, encoding: 'utf8' });
  const token = created.trim().split('\n').pop()!;
  const results: SizeResult[] = [];
  try {
    // The base build is what a reload starts from; the first large build makes it.
    await largeBuild(SIZES[0]!, log);
    const base = path.join(WORK, 'base');
    for (const cells of SIZES) results.push(await benchSize(cells, env, token, base));
  } finally {
    fs.rmSync(tmp, { recursive: true, force: true });
  }
  const names = Object.keys(results[0]!.lookups);
  console.log(`\nserver: node dist/server.js, Node options '${process.env.SERVER_NODE_OPTIONS ?? '--max-old-space-size=256'}'; ${os.cpus().length} cores; load generator in its own process, ${CONNECTIONS} connections, Accept-Encoding: gzip`);
  console.log(`start-up and RSS: medians of ${RUNS} starts; latency: median / p95 ms of ${REQUESTS} distinct requests (areas: a quarter as many)\n`);
  console.log(`| cells with data | start-up s | RSS after ready MB | ${names.map((n) => `${n} ms`).join(' | ')} | reload s (cell files) | reload peak RSS MB |`);
  console.log(`|---|---|---|${names.map(() => '---|').join('')}---|---|`);
  for (const r of results) {
    const lat = names.map((n) => {
      const l = r.lookups[n]!;
      return `${l.median.toFixed(1)} / ${l.p95.toFixed(1)}${l.non2xx + l.errors > 0 ? ` (${l.non2xx + l.errors} failed)` : ''}`;
    });
    console.log(`| ${r.cellsWithData.toLocaleString('en-US')} | ${median(r.readySeconds).toFixed(2)} | ${median(r.rssMb).toFixed(0)} | ${lat.join(' | ')} | ${r.reloadSeconds.toFixed(1)} (${r.cellFiles.toLocaleString('en-US')}) | ${r.reloadPeakRssMb.toFixed(0)} |`);
  }
  fs.mkdirSync(path.join(ROOT, 'bench', 'results'), { recursive: true });
  const file = path.join(ROOT, 'bench', 'results', `catalog-${new Date().toISOString().replace(/[:.]/g, '-')}.json`);
  fs.writeFileSync(file, JSON.stringify({ date: new Date().toISOString(), cores: os.cpus().length, connections: CONNECTIONS, results }, null, 2));
  console.log(`\nresults: ${path.relative(ROOT, file)}`);
}

main().catch((err: unknown) => {
  console.error(err instanceof Error ? err.stack : err);
  process.exit(1);
});
