/**
 * `make bench-export`: the export rate (src/export/) at the size analysts ask for: New York City's
 * boundary (`"area": {"city": 5128581}`, 10 NEX-GDDP cells) in the default build, every model (21),
 * RCP45 and RCP85 2006-2100, tasmax, tasmin and pr: 43.8 M values per export (BENCH_EXPORT_SCENARIOS=RCP85
 * for half). The compiled server runs as `make run` starts it (SERVER_NODE_OPTIONS, its 256 MB heap),
 * in a process of its own; this process is the client. Per format, a first export with requests
 * beside it (below), then BENCH_EXPORT_RUNS timed ones with nothing else asked (default 1,
 * interleaved by format and server), POST to done, with:
 * - values per second of wall clock, and CPU seconds of the server and its children (the export runner);
 * - the peak RSS of the server and of the whole process tree, sampled every 100 ms, and the file's bytes;
 * - the longest the job's `progress` stood still while it ran, polled every 100 ms (issue 48: it
 *   moves at least every few seconds);
 * - frost_days' century request for a city (a path never asked before, so no cache answers),
 *   15 times while each format's first export runs, against 15 times idle: the medians. That
 *   first export is not timed: the requests take a core from it.
 * BENCH_BASELINE=<a checkout of an earlier commit, built: npm ci && make build> runs that server on
 * the same data beside this one, each format on both, so that before and after are one run.
 * BENCH_EXPORT_QUEUE=1 also runs the queue path (redis-server, make export-worker): two Parquet exports
 * on 1 and on 2 workers.
 * BENCH_EXPORT_LARGE=1 also exports near EXPORT_MAX_VALUES (2 G): the maps bench's state-sized box
 * (1,120 NEX-GDDP-CMIP6 cells, a region build of the default build kept under
 * .tmp/bench-export-region), ssp585 2050-2099, 32 models, 3 variables, 1.96 G values, as Parquet and
 * NetCDF, with /healthz asked every 500 ms beside it (about 5 minutes a server, 8 GB of disk at most).
 *   BENCH_EXPORT_FORMATS=netcdf,parquet,csv
 */
import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { ROOT } from '../src/config.js';
import { startRedis } from '../scripts/localServers/redis.js';
import { writeRegionBuild } from '../scripts/largeCatalog/regionBuild.js';
import { boxBbox, MAP_REGIONS } from './mapRegions.js';

const RUNS = Number(process.env.BENCH_EXPORT_RUNS ?? 1);
const FORMATS = (process.env.BENCH_EXPORT_FORMATS ?? 'netcdf,parquet,csv').split(',');
const SCENARIOS = (process.env.BENCH_EXPORT_SCENARIOS ?? 'RCP45,RCP85').split(',');
const DATA_DIR = path.resolve(process.env.DATA_DIR ?? path.join(ROOT, 'data', 'build'));
const BODY = { dataset: 'NEX-GDDP', scenarios: SCENARIOS, variables: ['tasmax', 'tasmin', 'pr'], area: { city: 5128581 } };
const LATENCY_REQUESTS = 15;

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

async function freePort(): Promise<number> {
  return new Promise((resolve) => {
    const s = net.createServer().listen(0, '127.0.0.1', () => {
      const { port } = s.address() as net.AddressInfo;
      s.close(() => resolve(port));
    });
  });
}

/** A process and its descendants, from /proc (the export runner is the server's child). */
function tree(pid: number): number[] {
  const out = [pid];
  for (let i = 0; i < out.length; i++) {
    const p = out[i]!;
    try {
      for (const task of fs.readdirSync(`/proc/${p}/task`)) {
        const children = fs.readFileSync(`/proc/${p}/task/${task}/children`, 'utf8').trim();
        if (children) out.push(...children.split(/\s+/).map(Number));
      }
    } catch {
      // Ended meanwhile.
    }
  }
  return out;
}

const rssMb = (pid: number) => {
  try {
    return Number(/VmRSS:\s+(\d+)/.exec(fs.readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1] ?? 0) / 1024;
  } catch {
    return 0;
  }
};

/** CPU seconds of a live process (user + system), its children that ended included (clock ticks of 1/100 s). */
const cpuSeconds = (pid: number) => {
  try {
    const f = fs.readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ').map(Number);
    return (f[11]! + f[12]! + f[13]! + f[14]!) / 100;
  } catch {
    return 0;
  }
};

interface Server {
  name: string;
  url: string;
  token: string;
  pid: number;
  root: string;
  exportDir: string;
  stop(): Promise<void>;
}

async function startServer(name: string, root: string, extraEnv: NodeJS.ProcessEnv = {}): Promise<Server> {
  const tmp = fs.mkdtempSync(path.join(os.tmpdir(), `bench-export-${name}-`));
  const env = { ...process.env, LOG_LEVEL: 'warn', DATA_DIR, ACCOUNTS_DB: path.join(tmp, 'accounts.duckdb'), EXPORT_DIR: path.join(tmp, 'exports'), THROTTLE_BURST_RATE: '100000/min', THROTTLE_SUSTAINED_RATE: '10000000/day', ...extraEnv };
  const created = execFileSync(process.execPath, [path.join(root, 'dist', 'cli', 'user.js'), '--email', 'bench@example.com', '--password', 'bench-password'], { cwd: root, env, encoding: 'utf8' });
  const token = created.trim().split('\n').pop()!;
  const port = await freePort();
  const nodeOptions = (process.env.SERVER_NODE_OPTIONS ?? '--max-old-space-size=256').split(' ').filter(Boolean);
  const child: ChildProcess = spawn(process.execPath, [...nodeOptions, path.join(root, 'dist', 'server.js')], { cwd: root, env: { ...env, PORT: String(port), HOST: '127.0.0.1' }, stdio: ['ignore', 'ignore', 'inherit'] });
  const url = `http://127.0.0.1:${port}`;
  for (let i = 0; ; i++) {
    try {
      if ((await fetch(`${url}/api/dataset/`, { headers: { authorization: `Token ${token}` } })).ok) break;
    } catch {
      /* not listening yet */
    }
    if (child.exitCode !== null || i > 600) throw new Error(`The ${name} server did not start; run make run in ${root} to see why.`);
    await sleep(100);
  }
  return {
    name,
    url,
    token,
    pid: child.pid!,
    root,
    exportDir: env.EXPORT_DIR,
    stop: async () => {
      if (child.exitCode === null) await new Promise((r) => (child.once('exit', r), child.kill('SIGTERM')));
      fs.rmSync(tmp, { recursive: true, force: true });
    },
  };
}

async function api(server: Server, method: string, url: string, body?: object) {
  const res = await fetch(`${server.url}${url}`, {
    method,
    headers: { authorization: `Token ${server.token}`, 'content-type': 'application/json', 'accept-encoding': 'gzip, deflate, br' },
    ...(body ? { body: JSON.stringify(body) } : {}),
  });
  const text = await res.text();
  return { status: res.status, body: text ? (JSON.parse(text) as Record<string, unknown>) : {} };
}

/** Cities of the default build with data, for requests whose paths never repeat. */
async function citiesWithData(server: Server): Promise<number[]> {
  const res = await api(server, 'GET', '/api/city/?page_size=100');
  return ((res.body.features ?? res.body.results ?? []) as { id: number; properties?: { datasets?: string[] } }[]).filter((c) => c.properties?.datasets?.includes('NEX-GDDP')).map((c) => c.id);
}

/** frost_days' century (yearly, RCP85) at each city, starting in 2006 to 2017: paths that never repeat. */
const centuryPaths = (cities: number[]) => Array.from({ length: 12 }, (_, k) => String(2006 + k)).flatMap((start) => cities.map((city) => `/api/climate-data/${city}/RCP85/indicator/frost_days/?years=${start}:2100`));

/** ms of each request, one after another. */
async function frostDays(server: Server, paths: string[]): Promise<number[]> {
  const out: number[] = [];
  for (const p of paths) {
    const t0 = performance.now();
    const res = await api(server, 'GET', p);
    if (res.status !== 200) throw new Error(`frost_days answered ${res.status}`);
    out.push(performance.now() - t0);
  }
  return out;
}

interface Run {
  server: string;
  format: string;
  ok: boolean;
  error?: string;
  seconds: number;
  values: number;
  cpu: number;
  peakServerMb: number;
  peakTreeMb: number;
  bytes: number;
  /** The longest time, in seconds, the job's `progress` stood still while it ran (polled every 100 ms). */
  stillSeconds: number;
}

async function exportOnce(server: Server, format: string, during?: () => Promise<void>, body: object = BODY): Promise<Run> {
  const cpu0 = tree(server.pid).reduce((n, p) => n + cpuSeconds(p), 0);
  const t0 = performance.now();
  const posted = await api(server, 'POST', '/api/export/', { ...body, format });
  if (posted.status !== 202) throw new Error(`POST answered ${posted.status}: ${JSON.stringify(posted.body)}`);
  let peakServerMb = 0;
  let peakTreeMb = 0;
  let cpu = 0;
  let job: Record<string, unknown> = {};
  let sideline: Promise<void> | undefined;
  // When the progress last changed (from the first poll that saw the job running), and the longest wait for a change.
  let moved: { at: number; progress: unknown } | undefined;
  let stillSeconds = 0;
  for (;;) {
    if (tree(server.pid).length === 0 || !fs.existsSync(`/proc/${server.pid}`)) {
      return { server: server.name, format, ok: false, error: 'the server died', seconds: (performance.now() - t0) / 1000, values: 0, cpu, peakServerMb, peakTreeMb, bytes: 0, stillSeconds };
    }
    const pids = tree(server.pid);
    peakServerMb = Math.max(peakServerMb, rssMb(server.pid));
    peakTreeMb = Math.max(peakTreeMb, pids.reduce((n, p) => n + rssMb(p), 0));
    cpu = Math.max(cpu, pids.reduce((n, p) => n + cpuSeconds(p), 0) - cpu0);
    let res;
    try {
      res = await api(server, 'GET', posted.body.url as string);
    } catch (err) {
      return { server: server.name, format, ok: false, error: `the server stopped answering (${(err as Error).message})`, seconds: (performance.now() - t0) / 1000, values: 0, cpu, peakServerMb, peakTreeMb, bytes: 0, stillSeconds };
    }
    job = res.body;
    const now = performance.now();
    if (job.status === 'running' && moved?.progress !== job.progress) moved = { at: now, progress: job.progress };
    if (moved) stillSeconds = Math.max(stillSeconds, (now - moved.at) / 1000);
    if (job.status === 'running' && during && !sideline) sideline = during();
    if (job.status !== 'queued' && job.status !== 'running') break;
    await sleep(100);
  }
  const seconds = (performance.now() - t0) / 1000;
  await sideline;
  const files = (job.files ?? []) as { bytes: number }[];
  await api(server, 'DELETE', posted.body.url as string);
  return { server: server.name, format, ok: job.status === 'done', ...(job.status === 'done' ? {} : { error: String(job.error) }), seconds, values: Number(job.values), cpu, peakServerMb, peakTreeMb, bytes: files.reduce((n, f) => n + f.bytes, 0), stillSeconds };
}

/** Two Parquet exports at once on the queue, with 1 and with 2 export workers. */
async function queueRound(): Promise<string[]> {
  const redis = await startRedis();
  const lines: string[] = [];
  try {
    for (const count of [1, 2]) {
      const server = await startServer(`queue-${count}`, ROOT, { QUEUE_URL: redis.url });
      const workers = Array.from({ length: count }, () =>
        spawn(process.execPath, [path.join(ROOT, 'dist', 'cli', 'exportWorker.js')], { cwd: ROOT, env: { ...process.env, QUEUE_URL: redis.url, DATA_DIR, EXPORT_DIR: server.exportDir }, stdio: 'ignore' }),
      );
      try {
        await sleep(1000);
        const t0 = performance.now();
        const ids: string[] = [];
        for (let k = 0; k < 2; k++) {
          const posted = await api(server, 'POST', '/api/export/', { ...BODY, format: 'parquet' });
          if (posted.status !== 202) throw new Error(`POST answered ${posted.status}: ${JSON.stringify(posted.body)}`);
          ids.push(posted.body.url as string);
        }
        let values = 0;
        for (const url of ids) {
          for (;;) {
            const job = (await api(server, 'GET', url)).body;
            if (job.status === 'done') {
              values += Number(job.values);
              break;
            }
            if (job.status !== 'queued' && job.status !== 'running') throw new Error(`a queued export ended ${String(job.status)}: ${String(job.error)}`);
            await sleep(100);
          }
        }
        const seconds = (performance.now() - t0) / 1000;
        const cpu = workers.reduce((n, w) => n + tree(w.pid!).reduce((m, p) => m + cpuSeconds(p), 0), 0);
        lines.push(`queue, ${count} worker${count > 1 ? 's' : ''}: two Parquet exports (${(values / 1e6).toFixed(1)} M values) in ${seconds.toFixed(1)} s, ${(values / seconds / 1e6).toFixed(2)} M values/s, workers' CPU ${cpu.toFixed(1)} s`);
      } finally {
        for (const w of workers) w.kill('SIGKILL');
        await server.stop();
      }
    }
  } finally {
    await redis.close();
  }
  return lines;
}

/** The large export's build: the default build with the maps bench's state-sized box given data (kept while both are the same). */
async function largeBuild(): Promise<string> {
  const dir = path.join(ROOT, '.tmp', 'bench-export-region');
  const baseId = (JSON.parse(fs.readFileSync(path.join(DATA_DIR, 'manifest.json'), 'utf8')) as { build_id: string }).build_id;
  const key = `${baseId} ${fs.statSync(new URL('../scripts/largeCatalog/regionBuild.ts', import.meta.url)).mtimeMs}`;
  const stamp = `${dir}.key`;
  if (fs.existsSync(stamp) && fs.readFileSync(stamp, 'utf8') === key) return dir;
  console.log(`writing the large export's region build into ${dir} (links to the default build's files)...`);
  fs.rmSync(dir, { recursive: true, force: true });
  await writeRegionBuild(DATA_DIR, dir, [MAP_REGIONS[0]!.box], ['ssp585'], `bench-export-${baseId}`);
  fs.writeFileSync(stamp, key);
  return dir;
}

/** Exports of about 2 G values as Parquet and NetCDF, /healthz asked every 500 ms beside each. */
async function largeRound(roots: { name: string; root: string }[]): Promise<string[]> {
  const dir = await largeBuild();
  const box = MAP_REGIONS[0]!.box;
  const bbox = boxBbox(box);
  const body = { dataset: box.dataset, scenarios: ['ssp585'], years: '2050:2099', variables: ['tasmax', 'tasmin', 'pr'], area: { bbox } };
  const lines = [`\nNear EXPORT_MAX_VALUES: ${box.count} ${box.dataset} cells (bbox ${bbox}), ssp585 2050-2099, every model, tasmax, tasmin and pr`, '| server | format | seconds, POST to done | M values/s | CPU s | peak RSS server / all MB | file MB | longest s without progress | /healthz: answered, slowest ms |', '|---|---|---|---|---|---|---|---|---|'];
  for (const { name, root } of roots) {
    const server = await startServer(name, root, { DATA_DIR: dir });
    try {
      for (const format of ['parquet', 'netcdf']) {
        let running = true;
        const health = { ok: 0, all: 0, slowest: 0 };
        const poll = (async () => {
          while (running) {
            const t0 = performance.now();
            health.all++;
            try {
              if ((await fetch(`${server.url}/healthz`)).ok) health.ok++;
            } catch {
              /* counted as not answered */
            }
            health.slowest = Math.max(health.slowest, performance.now() - t0);
            await sleep(500);
          }
        })();
        const r = await exportOnce(server, format, undefined, body).finally(() => (running = false));
        await poll;
        console.log(`${name} ${format} (large): ${r.ok ? 'done' : `FAILED (${r.error})`} in ${r.seconds.toFixed(1)} s`);
        lines.push(`| ${r.server} | ${r.format} | ${r.ok ? r.seconds.toFixed(1) : `failed: ${r.error}`} | ${r.ok ? (r.values / r.seconds / 1e6).toFixed(2) : '-'} | ${r.cpu.toFixed(1)} | ${r.peakServerMb.toFixed(0)} / ${r.peakTreeMb.toFixed(0)} | ${(r.bytes / 1e6).toFixed(1)} | ${r.stillSeconds.toFixed(1)} | ${health.ok}/${health.all}, ${health.slowest.toFixed(0)} |`);
      }
    } finally {
      await server.stop();
    }
  }
  return lines;
}

async function main() {
  if (!fs.existsSync(path.join(DATA_DIR, 'manifest.json'))) throw new Error(`No data build in ${DATA_DIR}: run make setup first.`);
  const servers = [await startServer('this', ROOT)];
  if (process.env.BENCH_BASELINE) servers.unshift(await startServer('baseline', path.resolve(process.env.BENCH_BASELINE)));
  const runs: Run[] = [];
  const latency: string[] = [];
  try {
    const paths = centuryPaths(await citiesWithData(servers[0]!));
    const needed = 2 * LATENCY_REQUESTS * FORMATS.length * servers.length;
    if (paths.length < needed) throw new Error(`The build has ${paths.length / 12} cities with NEX-GDDP data; the latency rounds need ${Math.ceil(needed / 12)}.`);
    let next = 0;
    const fresh = () => paths.slice(next, (next += LATENCY_REQUESTS));
    // Round 0 measures the requests during an export (and starts each server's export runner);
    // rounds 1..RUNS time exports with nothing else asked of the server.
    for (let r = 0; r <= RUNS; r++) {
      for (const format of FORMATS) {
        for (let k = 0; k < servers.length; k++) {
          // A server an export killed starts again on an EXPORT_DIR of its own: on the same
          // folder an earlier commit takes the job up again and dies again.
          if (!fs.existsSync(`/proc/${servers[k]!.pid}`)) servers[k] = await startServer(servers[k]!.name, servers[k]!.root);
          const server = servers[k]!;
          const measureLatency = r === 0;
          const idle = measureLatency ? await frostDays(server, fresh()) : [];
          let busy: number[] = [];
          const run = await exportOnce(server, format, measureLatency ? async () => void (busy = await frostDays(server, fresh())) : undefined);
          if (!measureLatency || !run.ok) runs.push(run);
          console.log(`${server.name} ${format}${measureLatency ? ' (with requests)' : ''}: ${run.ok ? 'done' : `FAILED (${run.error})`} in ${run.seconds.toFixed(1)} s, ${(run.values / run.seconds / 1e6).toFixed(2)} M values/s, CPU ${run.cpu.toFixed(1)} s, peak RSS server ${run.peakServerMb.toFixed(0)} MB, all ${run.peakTreeMb.toFixed(0)} MB, ${(run.bytes / 1e6).toFixed(1)} MB`);
          if (measureLatency && busy.length > 0) latency.push(`${server.name}: frost_days century ${median(idle).toFixed(1)} ms idle, ${median(busy).toFixed(1)} ms during the ${format} export (${(median(busy) / median(idle)).toFixed(2)}x; target <= 2)`);
        }
      }
    }
  } finally {
    for (const s of servers) await s.stop();
  }
  console.log(`\nNew York City's boundary (10 NEX-GDDP cells), 21 models, ${SCENARIOS.join(' and ')} 2006-2100, tasmax, tasmin and pr; ${os.availableParallelism()} cores, load average ${os.loadavg().map((l) => l.toFixed(2)).join(' ')}`);
  console.log('| server | format | seconds, POST to done | M values/s | CPU s | peak RSS server / all MB | file MB | longest s without progress |');
  console.log('|---|---|---|---|---|---|---|---|');
  for (const r of runs) {
    console.log(`| ${r.server} | ${r.format} | ${r.ok ? r.seconds.toFixed(1) : `failed: ${r.error}`} | ${r.ok ? (r.values / r.seconds / 1e6).toFixed(2) : '-'} | ${r.cpu.toFixed(1)} | ${r.peakServerMb.toFixed(0)} / ${r.peakTreeMb.toFixed(0)} | ${(r.bytes / 1e6).toFixed(1)} | ${r.stillSeconds.toFixed(1)} |`);
  }
  for (const l of latency) console.log(l);
  if (process.env.BENCH_EXPORT_QUEUE === '1') for (const l of await queueRound()) console.log(l);
  if (process.env.BENCH_EXPORT_LARGE === '1') {
    const roots = [...(process.env.BENCH_BASELINE ? [{ name: 'baseline', root: path.resolve(process.env.BENCH_BASELINE) }] : []), { name: 'this', root: ROOT }];
    for (const l of await largeRound(roots)) console.log(l);
  }
}

main().catch((err: unknown) => {
  console.error(err);
  process.exit(1);
});
