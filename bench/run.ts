/**
 * `make bench`: starts the server on the default data (DATA_DIR), drives it from a second process
 * (wrk, or autocannon), and prints requests/s, p50, p99 per workload and the server's peak RSS.
 * Every workload runs as clients ask: with `Accept-Encoding: gzip, deflate, br` (what Python's
 * requests and browsers send), and, for comparison, without. BENCH_DURATION (seconds per
 * workload, default 10), BENCH_ONLY (substring of workload names), BENCH_ENCODING (`both`,
 * default; `compressed` or `plain` for one of them).
 */
import { spawn, execFile, execFileSync, type ChildProcess } from 'node:child_process';
import { promisify } from 'node:util';
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { ROOT } from '../src/config.js';
import { openDuckDB } from '../src/db/duckdb.js';
import { loadCatalog } from '../src/reference/catalog.js';
import { climateFiles, climateWorkloads, referenceWorkloads, WARMUP_SHARE, type Workload } from './workloads.js';
import { measureOpsOverhead, printOpsOverhead } from './ops.js';
import { measureSharedStores, printSharedStores } from './stores.js';
import { formatsBench, printFormats } from './formats.js';
import { batchBench, printBatch } from './batch.js';
import { printReturnLevels, returnLevelBench, RETURN_LEVELS_BENCH } from './returnLevels.js';
import { baselineServer, centuryBench, CENTURY_BENCH, printCentury } from './century.js';
import { mapBench, MAP_BENCH, mapExactness, printMapExactness, printMaps } from './maps.js';
import { mapRegionBench, printMapRegions } from './mapRegions.js';
import { readRows } from '../src/db/duckdb.js';

const DATA_DIR = path.resolve(process.env.DATA_DIR ?? path.join(ROOT, 'data', 'build'));
const DURATION = Number(process.env.BENCH_DURATION ?? 10);
const ONLY = process.env.BENCH_ONLY;
/** What each workload is run with: the header clients send, and none. */
const ENCODINGS: Record<string, string | undefined> = { compressed: 'gzip, deflate, br', plain: undefined };
const ENCODING_RUNS = (() => {
  const choice = process.env.BENCH_ENCODING ?? 'both';
  if (choice === 'both') return Object.keys(ENCODINGS);
  if (choice in ENCODINGS) return [choice];
  throw new Error(`BENCH_ENCODING must be both, compressed or plain; got '${choice}'.`);
})();
const TSX = path.join(ROOT, 'node_modules', '.bin', 'tsx');

async function freePort(): Promise<number> {
  return new Promise((resolve) => {
    const s = net.createServer().listen(0, '127.0.0.1', () => {
      const { port } = s.address() as net.AddressInfo;
      s.close(() => resolve(port));
    });
  });
}

function startServer(env: NodeJS.ProcessEnv): ChildProcess {
  // The compiled server as `make run` starts it (make bench builds it first), with the Node options
  // it gives the server (SERVER_NODE_OPTIONS in the Makefile); node directly, so that the child's
  // pid is the server's own.
  const nodeOptions = (process.env.SERVER_NODE_OPTIONS ?? '').split(' ').filter(Boolean);
  const child = spawn(process.execPath, [...nodeOptions, path.join(ROOT, 'dist', 'server.js')], {
    cwd: ROOT,
    env,
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  child.stdout!.on('data', () => {});
  return child;
}

async function waitReady(url: string, token: string) {
  for (let i = 0; i < 300; i++) {
    try {
      const res = await fetch(`${url}/api/dataset/`, { headers: { authorization: `Token ${token}` } });
      if (res.ok) return;
    } catch {
      /* not listening yet */
    }
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error('The server did not become ready in 30 s; run `make run` to see why.');
}

function peakRssMb(pid: number): number {
  const status = fs.readFileSync(`/proc/${pid}/status`, 'utf8');
  const kb = Number(/VmHWM:\s+(\d+)/.exec(status)?.[1] ?? 0);
  return kb / 1024;
}

/**
 * Asynchronous, so that this process keeps reading the servers' log pipes while the load runs: a
 * server writes its log synchronously, and a full pipe would stall it.
 */
async function runLoad(url: string, token: string, w: Workload, duration: number, acceptEncoding?: string) {
  // The spec goes through a file: thousands of distinct paths exceed what one argument may hold.
  const spec = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'bench-load-')), 'spec.json');
  fs.writeFileSync(spec, JSON.stringify({ url, token, paths: w.paths, connections: w.connections, duration, acceptEncoding }));
  const { stdout: out } = await promisify(execFile)(process.execPath, ['--import', 'tsx', path.join(ROOT, 'bench', 'load.ts'), spec], {
    cwd: ROOT,
    encoding: 'utf8',
    maxBuffer: 1 << 24,
  }).finally(() => fs.rmSync(path.dirname(spec), { recursive: true, force: true }));
  return JSON.parse(out.trim().split('\n').pop()!) as { tool: string; requests: number; rps: number; p50: number; p99: number; non2xx: number; errors: number; bytes: number };
}

async function main() {
  if (!fs.existsSync(path.join(DATA_DIR, 'manifest.json'))) throw new Error(`No data at ${DATA_DIR}; run \`make data\` first.`);
  const db = await openDuckDB({ threads: os.availableParallelism(), memoryLimit: '1GB' });
  const conn = await db.connect();
  const catalog = await loadCatalog(conn, DATA_DIR);
  // The scan floor: DuckDB reading the three variables of one cell and scenario, nothing else.
  const floorTimes: number[] = [];
  for (const file of climateFiles(catalog)) {
    const t0 = performance.now();
    await readRows(conn, `SELECT sum(tasmax), sum(tasmin), sum(pr) FROM read_parquet('${file}')`);
    floorTimes.push(performance.now() - t0);
  }
  const floor = floorTimes.sort((a, b) => a - b)[Math.floor(floorTimes.length / 2)]!;
  conn.closeSync();
  await db.close();

  const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'bench-'));
  const accounts = path.join(tmp, 'accounts.duckdb');
  const env = { ...process.env, DATA_DIR, ACCOUNTS_DB: accounts, THROTTLE_BURST_RATE: '1000000/min', THROTTLE_SUSTAINED_RATE: '100000000/day' };
  const created = execFileSync(TSX, ['src/cli/user.ts', '--email', 'bench@example.com', '--password', 'bench-password'], { cwd: ROOT, env, encoding: 'utf8' });
  const token = created.trim().split('\n').pop()!;

  const port = await freePort();
  const url = `http://127.0.0.1:${port}`;
  const server = startServer({ ...env, PORT: String(port), HOST: '127.0.0.1' });
  try {
    await waitReady(url, token);
    const workloads = [...referenceWorkloads(catalog), ...climateWorkloads(catalog)].filter((w) => !ONLY || w.name.includes(ONLY));
    const rows = [];
    for (const w of workloads) {
      const warm = Math.floor(w.paths.length * WARMUP_SHARE);
      for (const encoding of ENCODING_RUNS) {
        process.stderr.write(`bench: ${w.name} (${w.connections} connections, ${encoding}, warm-up 2 s, ${DURATION} s)...\n`);
        await runLoad(url, token, { ...w, paths: w.paths.slice(0, warm) }, 2, ENCODINGS[encoding]);
        const r = await runLoad(url, token, { ...w, paths: w.paths.slice(warm) }, DURATION, ENCODINGS[encoding]);
        if (r.non2xx > 0 || r.errors > 0) process.stderr.write(`  warning: ${r.non2xx} non-2xx responses, ${r.errors} errors\n`);
        // More requests than distinct paths: some were repeats, which a response cache could serve.
        const repeats = Math.max(0, r.requests - (w.paths.length - warm));
        if (repeats > 0) process.stderr.write(`  warning: ${repeats} requests repeated a path (more requests than distinct paths)\n`);
        rows.push({ workload: w.name, encoding, connections: w.connections, ...r, repeats });
      }
    }
    const formats = !ONLY || 'formats: raw century as JSON, CSV and Arrow'.includes(ONLY) ? await formatsBench(url, token, catalog) : [];
    const batch = !ONLY || 'batch: 50 cities in one request vs 50 in a row'.includes(ONLY) ? await batchBench(url, token, catalog) : undefined;
    const returnLevels = !ONLY || RETURN_LEVELS_BENCH.includes(ONLY) ? await returnLevelBench(url, token, catalog) : undefined;
    const maps = !ONLY || MAP_BENCH.includes(ONLY) ? await mapBench(url, token, catalog) : [];
    const mapsExact = !ONLY || MAP_BENCH.includes(ONLY) ? await mapExactness(url, token, catalog) : [];
    // Large boxes on region builds of this one, each with a server of its own (BENCH_MAP_REGIONS=0 leaves them out).
    const mapRegions = (!ONLY || MAP_BENCH.includes(ONLY)) && process.env.BENCH_MAP_REGIONS !== '0' ? await mapRegionBench(DATA_DIR, { env, token, freePort, startServer, waitReady }) : [];
    // Every indicator's century against frost_days (bench/century.ts); BENCH_BASELINE: another checkout's server beside this one.
    let century;
    if (!ONLY || CENTURY_BENCH.includes(ONLY)) {
      const baseline = process.env.BENCH_BASELINE ? await baselineServer(process.env.BENCH_BASELINE, env, freePort, waitReady) : undefined;
      try {
        century = await centuryBench([...(baseline ? [baseline] : []), { name: 'this', url, token }]);
      } finally {
        baseline?.stop();
      }
    }
    const rss = peakRssMb(server.pid!);
    console.log(`\nload generator: ${rows[0]?.tool ?? '-'} in its own process${rows[0]?.tool === 'autocannon' ? " (install Debian's wrk for a lighter one)" : ''}`);
    console.log(`\nencodings: compressed = Accept-Encoding: ${ENCODINGS.compressed}; plain = none. Every measured path distinct (${rows.some((r) => r.repeats > 0) ? 'except the repeats warned about above' : 'no repeats'}).`);
    console.log('\n| workload | encoding | clients | req/s | p50 ms | p99 ms | KB/response | p50 / scan floor | non-2xx |');
    console.log('|---|---|---|---|---|---|---|---|---|');
    for (const r of rows) {
      const ratio = r.workload.startsWith('city') ? '' : (r.p50 / floor).toFixed(1);
      const kb = r.requests > 0 ? (r.bytes / r.requests / 1024).toFixed(1) : '-';
      console.log(`| ${r.workload} | ${r.encoding} | ${r.connections} | ${Math.round(r.rps)} | ${r.p50} | ${r.p99} | ${kb} | ${ratio} | ${r.non2xx + r.errors} |`);
    }
    if (formats.length > 0) printFormats(formats);
    if (batch) printBatch(batch);
    if (returnLevels) printReturnLevels(returnLevels);
    if (maps.length > 0) printMaps(maps);
    if (mapsExact.length > 0) printMapExactness(mapsExact);
    if (mapRegions.length > 0) printMapRegions(mapRegions);
    if (century) printCentury(century);
    console.log(`\nscan floor (bare DuckDB scan of one cell's RCP85 file, 3 variables, median over cells): ${floor.toFixed(1)} ms`);
    console.log(`\nserver peak RSS: ${rss.toFixed(0)} MB; ${os.cpus().length} cores; data build ${catalog.manifest.build_id}`);
    const setting = (name: string) => process.env[name] ?? 'default';
    console.log(`server settings: DUCKDB_THREADS ${setting('DUCKDB_THREADS')}, QUERY_CONCURRENCY ${setting('QUERY_CONCURRENCY')}, Node options '${process.env.SERVER_NODE_OPTIONS ?? ''}', MALLOC_ARENA_MAX ${setting('MALLOC_ARENA_MAX')}`);
    // The cost of the request log and metrics (bench/ops.ts); BENCH_ONLY=ops runs only this.
    const opsOverhead = !ONLY || ONLY === 'ops' ? await measureOpsOverhead({ env, token, duration: DURATION, freePort, startServer, waitReady, runLoad }, catalog) : [];
    if (opsOverhead.length > 0) printOpsOverhead(opsOverhead);
    // The cost of PostgreSQL accounts and Redis throttles (bench/stores.ts); BENCH_ONLY=stores runs only this.
    const sharedStores = !ONLY || ONLY === 'stores' ? await measureSharedStores({ env, token, duration: DURATION, freePort, startServer, waitReady, runLoad }, catalog) : [];
    if (sharedStores.length > 0) printSharedStores(sharedStores);
    fs.mkdirSync(path.join(ROOT, 'bench', 'results'), { recursive: true });
    const file = path.join(ROOT, 'bench', 'results', `bench-${new Date().toISOString().replace(/[:.]/g, '-')}.json`);
    fs.writeFileSync(file, JSON.stringify({ date: new Date().toISOString(), cores: os.cpus().length, peakRssMb: rss, scanFloorMs: floor, rows, formats, batch, returnLevels, century, opsOverhead, sharedStores }, null, 2));
    console.log(`results: ${path.relative(ROOT, file)}`);
  } finally {
    server.kill('SIGTERM');
    fs.rmSync(tmp, { recursive: true, force: true });
  }
}

main().catch((err: unknown) => {
  console.error(err instanceof Error ? err.message : err);
  process.exit(1);
});
