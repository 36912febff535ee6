/**
 * `make bench-soak`: a long run of mixed traffic against the compiled server on DATA_DIR, as many
 * clients send it: reference pages, nearest cities, every indicator with each time aggregation,
 * raw data, and a tenth bad requests (400, 404), all with `Accept-Encoding: gzip, deflate, br`,
 * every path distinct. BENCH_SOAK_SECONDS (default 600) at BENCH_SOAK_CLIENTS (default 32).
 *
 * Reports the 5xx answers (from the server's /metrics), socket errors, whether the server still
 * answers at the end, p50/p99, and its resident memory: sampled every 5 s, the mean of the last
 * third against the first (growth past 10% points at a leak).
 */
import { execFile, execFileSync, spawn } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { ROOT } from '../src/config.js';
import { openDuckDB } from '../src/db/duckdb.js';
import { INDICATORS } from '../src/indicators/metadata.js';
import { loadCatalog } from '../src/reference/catalog.js';
import { climateWorkloads, referenceWorkloads } from './workloads.js';

const DATA_DIR = path.resolve(process.env.DATA_DIR ?? path.join(ROOT, 'data', 'build'));
const SECONDS = Number(process.env.BENCH_SOAK_SECONDS ?? 600);
const CLIENTS = Number(process.env.BENCH_SOAK_CLIENTS ?? 32);
const TSX = path.join(ROOT, 'node_modules', '.bin', 'tsx');

function rng(seed: number) {
  let s = seed >>> 0;
  return () => {
    s = (Math.imul(s ^ (s >>> 15), 0x2c1b3c6d) + 0x9e3779b9) >>> 0;
    return s / 2 ** 32;
  };
}

/** What each indicator needs besides the defaults. */
function ownParams(name: string): string {
  const meta = INDICATORS.find((i) => i.name === name)!;
  const has = (p: string) => meta.parameters.some((x) => x.name === p);
  const q: string[] = [];
  if (has('threshold')) q.push(meta.variables[0] === 'pr' ? 'threshold=1&threshold_units=mm/day&threshold_comparator=gt' : 'threshold=90&threshold_units=F&threshold_comparator=gte');
  if (has('historic_range')) q.push('historic_range=1971');
  return q.length ? `&${q.join('&')}` : '';
}

async function main() {
  if (!fs.existsSync(path.join(DATA_DIR, 'manifest.json'))) throw new Error(`No data at ${DATA_DIR}; run \`make data\` first.`);
  const db = await openDuckDB({ threads: 1, memoryLimit: '512MB' });
  const catalog = await loadCatalog(await db.connect(), DATA_DIR);
  await db.close();

  // The mix: a third reference, half indicators, a tenth raw, a tenth bad; shuffled, distinct.
  const r = rng(11);
  const pick = <T>(xs: T[]) => xs[Math.floor(r() * xs.length)]!;
  const reference = referenceWorkloads(catalog).flatMap((w) => w.paths);
  const climate = climateWorkloads(catalog);
  const raw = climate.find((w) => w.name.startsWith('raw century'))!.paths;
  const cells = [...new Set(raw.map((p) => /climate-data\/(\d+)\//.exec(p)![1]!))];
  const aggs = ['yearly', 'quarterly', 'monthly', 'offset_yearly', 'decadal'];
  const paths = new Set<string>();
  while (paths.size < 60_000) {
    const x = r();
    if (x < 0.3) paths.add(pick(reference));
    else if (x < 0.8) {
      const name = pick(INDICATORS).name;
      const y0 = 2006 + Math.floor(r() * 60);
      paths.add(`/api/climate-data/${pick(cells)}/${pick(['RCP45', 'RCP85'])}/indicator/${name}/?time_aggregation=${pick(aggs)}&years=${y0}:${y0 + 5 + Math.floor(r() * 30)}${ownParams(name)}`);
    } else if (x < 0.9) paths.add(pick(raw));
    else paths.add(pick([`/api/climate-data/${pick(cells)}/RCP85/indicator/frost_days/?years=${Math.floor(r() * 9000)}`, `/api/city/${Math.floor(r() * 1e9)}/`, `/api/climate-data/${pick(cells)}/RCP99/`, `/api/city/?page=${100000 + Math.floor(r() * 1e6)}`]));
  }

  const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'soak-'));
  const env = { ...process.env, DATA_DIR, ACCOUNTS_DB: path.join(tmp, 'accounts.duckdb'), THROTTLE_BURST_RATE: '1000000/min', THROTTLE_SUSTAINED_RATE: '100000000/day', LOG_LEVEL: 'silent' };
  const token = execFileSync(TSX, ['src/cli/user.ts', '--email', 'soak@example.com', '--password', 'soak-password'], { cwd: ROOT, env, encoding: 'utf8' }).trim().split('\n').pop()!;
  const port = await new Promise<number>((resolve) => {
    const s = net.createServer().listen(0, '127.0.0.1', () => {
      const p = (s.address() as net.AddressInfo).port;
      s.close(() => resolve(p));
    });
  });
  const nodeOptions = (process.env.SERVER_NODE_OPTIONS ?? '').split(' ').filter(Boolean);
  const server = spawn(process.execPath, [...nodeOptions, path.join(ROOT, 'dist', 'server.js')], { cwd: ROOT, env: { ...env, PORT: String(port), HOST: '127.0.0.1' }, stdio: 'ignore' });
  const url = `http://127.0.0.1:${port}`;
  const rssMb = () => Number(/VmRSS:\s+(\d+)/.exec(fs.readFileSync(`/proc/${server.pid}/status`, 'utf8'))![1]) / 1024;
  try {
    for (let i = 0; ; i++) {
      if ((await fetch(`${url}/readyz`).catch(() => undefined))?.status === 200) break;
      if (i > 300) throw new Error('The server did not become ready in 30 s.');
      await new Promise((res) => setTimeout(res, 100));
    }
    const samples: number[] = [];
    const sampler = setInterval(() => samples.push(rssMb()), 5000);
    process.stderr.write(`soak: ${SECONDS} s at ${CLIENTS} clients, ${paths.size} distinct paths, server RSS ${rssMb().toFixed(0)} MB at start...\n`);
    const spec = path.join(tmp, 'spec.json');
    fs.writeFileSync(spec, JSON.stringify({ url, token, paths: [...paths], connections: CLIENTS, duration: SECONDS, acceptEncoding: 'gzip, deflate, br' }));
    const { stdout } = await promisify(execFile)(process.execPath, ['--import', 'tsx', path.join(ROOT, 'bench', 'load.ts'), spec], { cwd: ROOT, encoding: 'utf8', maxBuffer: 1 << 24 });
    clearInterval(sampler);
    const load = JSON.parse(stdout.trim().split('\n').pop()!) as { tool: string; requests: number; rps: number; p50: number; p99: number; non2xx: number; errors: number };
    const alive = (await fetch(`${url}/readyz`).catch(() => undefined))?.status === 200;
    const metrics = await (await fetch(`${url}/metrics`)).text();
    const byStatus = new Map<string, number>();
    for (const m of metrics.matchAll(/^http_request_duration_seconds_count\{[^}]*status="(\d+)"[^}]*\} (\d+)/gm)) byStatus.set(m[1]!, (byStatus.get(m[1]!) ?? 0) + Number(m[2]));
    const fivexx = [...byStatus].filter(([s]) => s.startsWith('5')).reduce((n, [, c]) => n + c, 0);
    const third = Math.max(1, Math.floor(samples.length / 3));
    const mean = (xs: number[]) => xs.reduce((a, b) => a + b, 0) / xs.length;
    const first = mean(samples.slice(0, third));
    const last = mean(samples.slice(-third));
    console.log(`\nsoak: ${SECONDS} s, ${CLIENTS} clients (${load.tool}), Accept-Encoding: gzip, deflate, br; ${paths.size} distinct paths (${load.requests > paths.size ? 'some repeated' : 'none repeated'})`);
    console.log(`| requests | req/s | p50 ms | p99 ms | 5xx | socket errors | answers by status | still answering | RSS first third -> last third |`);
    console.log('|---|---|---|---|---|---|---|---|---|');
    console.log(
      `| ${load.requests} | ${Math.round(load.rps)} | ${load.p50} | ${load.p99} | ${fivexx} | ${load.errors} | ${[...byStatus].sort().map(([s, c]) => `${s}: ${c}`).join(', ')} | ${alive ? 'yes' : 'NO'} | ` +
        `${first.toFixed(0)} -> ${last.toFixed(0)} MB (${(((last - first) / first) * 100).toFixed(1)}%) |`,
    );
    if (fivexx > 0 || load.errors > 0 || !alive || last > first * 1.1) process.exitCode = 1;
  } finally {
    server.kill('SIGTERM');
    fs.rmSync(tmp, { recursive: true, force: true });
  }
}

main().catch((err: unknown) => {
  console.error(err instanceof Error ? err.message : err);
  process.exit(1);
});
