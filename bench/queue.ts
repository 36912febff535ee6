/**
 * `make bench-queue`: the ingest on the queue (src/ingest/queue/) with 1 and 2 workers, on
 * full-size NEX-GDDP-CMIP6 files of the scale model (tasmax and pr of ACCESS-CM2 ssp245, 2050 and
 * 2051: four 1440 x 600 x 365 files, a day per chunk, shuffle + deflate), a BBOX besides the
 * catalogue's city cells, into a fresh copy of a catalog-only build each run. Each run starts its
 * own redis-server (append-only file), enqueues the job, starts the workers as processes
 * (make ingest-worker, EXIT_WHEN_IDLE=1) and times enqueue to the last worker's end. Prints medians
 * (and ranges) of BENCH_QUEUE_RUNS runs (3) per worker count: values decoded and values stored per
 * second of the whole job, the map and reduce stages' wall seconds, and the load average.
 *   BENCH_QUEUE_WORKERS=1,2  BENCH_QUEUE_BBOX=west,south,east,north
 * Work files go to .tmp/bench-queue (the archive and the catalog-only build are kept).
 */
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { planArchive, writeArchive } from '../scripts/archiveModel/archive.js';
import { ROOT } from '../src/config.js';
import { buildDataset } from '../src/ingest/build.js';
import { parseBbox } from '../src/ingest/netcdf/cellSelection.js';
import { enqueueIngest } from '../src/ingest/queue/enqueue.js';
import { openQueue } from '../src/ingest/queue/ingestQueue.js';
import { jobStatus, type JobStatus } from '../src/ingest/queue/status.js';

const WORK = path.join(ROOT, '.tmp', 'bench-queue');
const RUNS = Number(process.env.BENCH_QUEUE_RUNS ?? 3);
const WORKERS = (process.env.BENCH_QUEUE_WORKERS ?? '1,2').split(',').map(Number);
const BBOX = parseBbox(process.env.BENCH_QUEUE_BBOX) ?? [-105, 39, -103, 41];
const catalogDir = path.join(WORK, 'catalog-build');
const archiveDir = path.join(WORK, 'archive');

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
const fmt = (xs: number[], scale = 1, digits = 1) => {
  const m = (median(xs) / scale).toFixed(digits);
  return xs.length > 1 ? `${m} (${(Math.min(...xs) / scale).toFixed(digits)}-${(Math.max(...xs) / scale).toFixed(digits)})` : m;
};

const freePort = () =>
  new Promise<number>((resolve) => {
    const s = net.createServer().listen(0, '127.0.0.1', () => {
      const { port } = s.address() as net.AddressInfo;
      s.close(() => resolve(port));
    });
  });
const answers = (port: number) =>
  new Promise<boolean>((resolve) => {
    const s = net.connect(port, '127.0.0.1');
    s.once('connect', () => s.end(() => resolve(true)));
    s.once('error', () => resolve(false));
  });

async function startRedis() {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'bench-queue-redis-'));
  const port = await freePort();
  const child = spawn('/usr/bin/redis-server', ['--port', String(port), '--bind', '127.0.0.1', '--dir', dir, '--save', '', '--appendonly', 'yes'], { stdio: 'ignore' });
  while (!(await answers(port))) await new Promise((r) => setTimeout(r, 50));
  return {
    url: `redis://127.0.0.1:${port}`,
    stop: async () => {
      const exited = new Promise((r) => child.once('exit', r));
      child.kill('SIGTERM');
      await exited;
      fs.rmSync(dir, { recursive: true, force: true });
    },
  };
}

function runWorker(url: string, dataDir: string): Promise<number | null> {
  const child = spawn(process.execPath, ['--import', 'tsx', path.join(ROOT, 'src', 'cli', 'ingestWorker.ts')], {
    cwd: ROOT,
    env: { ...process.env, QUEUE_URL: url, DATA_DIR: dataDir, EXIT_WHEN_IDLE: '1' },
    stdio: ['ignore', 'ignore', 'inherit'],
  });
  return new Promise((r) => child.once('exit', (code) => r(code)));
}

interface Run {
  seconds: number;
  status: JobStatus;
  load: [number, number];
  /** Bytes the job's cells take in the new build: their days, and their summaries. */
  bytes: { days: number; summaries: number };
}

function dirBytes(dir: string): number {
  if (!fs.existsSync(dir)) return 0;
  let n = 0;
  for (const e of fs.readdirSync(dir, { withFileTypes: true })) n += e.isDirectory() ? dirBytes(path.join(dir, e.name)) : fs.statSync(path.join(dir, e.name)).size;
  return n;
}

async function run(workers: number, sources: string[]): Promise<Run> {
  const builds = path.join(WORK, 'builds');
  fs.rmSync(builds, { recursive: true, force: true });
  fs.rmSync(path.join(WORK, 'ingest-jobs'), { recursive: true, force: true });
  fs.cpSync(catalogDir, path.join(builds, 'base'), { recursive: true });
  const link = path.join(WORK, 'current');
  fs.rmSync(link, { force: true });
  fs.symlinkSync(path.join(builds, 'base'), link);
  const redis = await startRedis();
  const queue = openQueue(redis.url);
  try {
    const load0 = os.loadavg()[0]!;
    const t0 = Date.now();
    const { job } = await enqueueIngest({ queueUrl: redis.url, dataDir: link, dataset: 'NEX-GDDP-CMIP6', sources, bbox: BBOX });
    const codes = await Promise.all(Array.from({ length: workers }, () => runWorker(redis.url, link)));
    const seconds = (Date.now() - t0) / 1000;
    if (codes.some((c) => c !== 0)) throw new Error(`a worker ended with status ${codes.join(', ')}`);
    const status = (await jobStatus(queue, job))!;
    if (status.state !== 'published') throw new Error(`job ${job} ended ${status.state}: ${status.failedReason ?? ''}`);
    const build = status.publish!.build;
    const bytes = {
      days: dirBytes(path.join(build, 'climate', 'NEX-GDDP-CMIP6')),
      summaries: ['monthly', 'ensemble', 'ensemble_json'].reduce((n, t) => n + dirBytes(path.join(build, t, 'NEX-GDDP-CMIP6')), 0),
    };
    return { seconds, status, load: [load0, os.loadavg()[0]!], bytes };
  } finally {
    await queue.close();
    await redis.stop();
  }
}

async function main() {
  if (!fs.existsSync(path.join(catalogDir, 'manifest.json'))) {
    console.log('building a catalog-only data build (no climate data) ...');
    await buildDataset({ outDir: catalogDir, climateCities: 0, seed: 1, log: () => {} });
  }
  const files = planArchive({ dataset: 'NEX-GDDP-CMIP6', models: ['ACCESS-CM2'], scenarios: ['ssp245'], years: [2050, 2051], variables: ['tasmax', 'pr'] });
  const t0 = Date.now();
  const { written } = await writeArchive(archiveDir, files, (line) => console.log(`  wrote ${line}`));
  if (written.length > 0) console.log(`  wrote ${written.length} files in ${((Date.now() - t0) / 1000).toFixed(0)} s`);
  const sources = files.map((f) => path.join(archiveDir, f.path));
  const bytes = sources.reduce((n, p) => n + fs.statSync(p).size, 0);
  console.log(`${sources.length} files, ${(bytes / 1e6).toFixed(0)} MB; BBOX ${BBOX.join(',')} and the catalogue's city cells; ${os.availableParallelism()} cores`);

  const results = new Map<number, Run[]>();
  // Interleaved (1, 2, 1, 2, ...), so that a change in the machine's load touches both counts alike.
  for (let r = 0; r < RUNS; r++) {
    for (const n of WORKERS) {
      const x = await run(n, sources);
      results.set(n, [...(results.get(n) ?? []), x]);
      console.log(
        `  run ${r + 1}, ${n} worker${n > 1 ? 's' : ''}: ${x.seconds.toFixed(1)} s (map ${x.status.mapSeconds.toFixed(1)} s, reduce ${x.status.reduceSeconds.toFixed(1)} s), ` +
          `${x.status.publish!.partitions} partitions, load ${x.load[0].toFixed(1)} -> ${x.load[1].toFixed(1)}`,
      );
    }
  }
  const s0 = results.get(WORKERS[0]!)![0]!.status;
  console.log(`\n${s0.valuesDecoded.toLocaleString('en-US')} values decoded, ${s0.valuesStored.toLocaleString('en-US')} stored, ${s0.publish!.partitions} partitions; medians (range) of ${RUNS} runs:`);
  const rows: [string, (x: Run) => number, number, number][] = [
    ['whole job, wall s', (x) => x.seconds, 1, 1],
    ['values decoded per second (M)', (x) => x.status.valuesDecoded / x.seconds, 1e6, 2],
    ['values stored per second (M)', (x) => x.status.valuesStored / x.seconds, 1e6, 3],
    ['map stage, wall s', (x) => x.status.mapSeconds, 1, 1],
    ['map stage: values decoded per second (M)', (x) => x.status.valuesDecoded / x.status.mapSeconds, 1e6, 1],
    ['reduce stage, wall s', (x) => x.status.reduceSeconds, 1, 1],
    ['reduce stage: partitions per second', (x) => x.status.publish!.partitions / x.status.reduceSeconds, 1, 1],
    ['bytes stored per value: days', (x) => x.bytes.days / x.status.valuesStored, 1, 2],
    ['bytes stored per value: days and summaries', (x) => (x.bytes.days + x.bytes.summaries) / x.status.valuesStored, 1, 2],
    ['load average (1 min) at start', (x) => x.load[0], 1, 1],
  ];
  console.log(`| measure | ${WORKERS.map((n) => `${n} worker${n > 1 ? 's' : ''}`).join(' | ')} |${WORKERS.length > 1 ? ' growth |' : ''}`);
  console.log(`|---|${WORKERS.map(() => '---|').join('')}${WORKERS.length > 1 ? '---|' : ''}`);
  for (const [name, f, scale, digits] of rows) {
    const cols = WORKERS.map((n) => results.get(n)!.map(f));
    const growth = WORKERS.length > 1 ? ` ${(median(cols.at(-1)!) / median(cols[0]!)).toFixed(2)}x |` : '';
    console.log(`| ${name} | ${cols.map((c) => fmt(c, scale, digits)).join(' | ')} |${growth}`);
  }
  fs.writeFileSync(path.join(WORK, 'results.json'), JSON.stringify(Object.fromEntries([...results].map(([n, xs]) => [n, xs.map((x) => ({ seconds: x.seconds, load: x.load, bytes: x.bytes, status: x.status }))])), null, 2));
}

main().then(
  () => process.exit(0),
  (err: unknown) => {
    console.error(err);
    process.exit(1);
  },
);
