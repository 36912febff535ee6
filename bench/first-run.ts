/**
 * `make bench-first-run`: what a new user waits for. Clones this repository (its committed HEAD)
 * into a temporary folder, runs `make run` there as a person would (npm ci included, no data), and
 * reports, from the start of `make run`: the first answer of /healthz, the first token-authenticated
 * /api/city/ answer, the first 200 of a New York City climate request (frost_days, RCP85), and
 * /readyz reporting ready; and, from the build's log, how long the build took and its catalog
 * step before the first cell. BENCH_FIRST_RUNS sets how many times (default 1). Needs nothing on
 * port BENCH_PORT (default 18181).
 */
import { execFileSync, spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { ROOT } from '../src/config.js';

const RUNS = Number(process.env.BENCH_FIRST_RUNS ?? 1);
const PORT = Number(process.env.BENCH_PORT ?? 18181);
const BASE = `http://127.0.0.1:${PORT}`;
const NYC = 5128581;
const EMAIL = 'first-run@example.com';
const PASSWORD = 'first-run-password';

const status = async (url: string, token?: string) => {
  try {
    const res = await fetch(url, { headers: token ? { authorization: `Token ${token}` } : {} });
    await res.arrayBuffer();
    return res.status;
  } catch {
    return 0;
  }
};

async function oneRun(run: number) {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'climate-first-run-'));
  execFileSync('git', ['clone', '--quiet', ROOT, dir]);
  console.log(`run ${run}: fresh clone in ${dir}; make run ...`);
  const started = Date.now();
  const since = () => (Date.now() - started) / 1000;
  const server = spawn('make', ['run', `PORT=${PORT}`, 'HOST=127.0.0.1'], { cwd: dir, stdio: ['ignore', 'pipe', 'pipe'], detached: true });
  let stderr = '';
  server.stderr!.on('data', (d: Buffer) => (stderr += d.toString()));
  // The build's own clock, from its log lines ("[  7.9s] climate: ...", "[101.2s] done: ... in 101.2s"):
  // where the catalog ended and the cells began, and the whole build.
  const build: { catalog?: number; total?: number } = {};
  let stdout = '';
  server.stdout!.on('data', (d: Buffer) => {
    stdout += d.toString();
    const lines = stdout.split('\n');
    stdout = lines.pop()!;
    for (const line of lines) {
      build.catalog ??= Number(/\[\s*([\d.]+)s\] climate: /.exec(line)?.[1] ?? NaN) || undefined;
      build.total ??= Number(/\] done: .* in ([\d.]+)s/.exec(line)?.[1] ?? NaN) || undefined;
    }
  });
  const times: Record<string, number> = {};
  let token: string | undefined;
  try {
    while (times.ready === undefined) {
      if (server.exitCode !== null) throw new Error(`make run exited with ${server.exitCode}: ${stderr.slice(-2000)}`);
      if (since() > 600) throw new Error('not ready after 10 minutes');
      const mark = (name: string) => {
        times[name] = since();
        console.log(`  ${name} at ${times[name]!.toFixed(1)} s`);
      };
      if (times.healthz === undefined && (await status(`${BASE}/healthz`)) === 200) mark('healthz');
      if (times.healthz !== undefined && token === undefined) {
        // The account is made as a user would, once make run has installed the packages.
        const out = execFileSync('make', ['-s', 'user', `EMAIL=${EMAIL}`, `PASSWORD=${PASSWORD}`], { cwd: dir, encoding: 'utf8' });
        token = out.trim().split('\n').pop();
      }
      if (token && times.city === undefined && (await status(`${BASE}/api/city/?search=new`, token)) === 200) mark('city');
      if (token && times.nyc === undefined && (await status(`${BASE}/api/climate-data/${NYC}/RCP85/indicator/frost_days/`, token)) === 200) mark('nyc');
      if ((await status(`${BASE}/readyz`)) === 200) mark('ready');
      await new Promise((r) => setTimeout(r, 250));
    }
    console.log(
      `run ${run}: /healthz ${times.healthz?.toFixed(1)} s, /api/city/ ${times.city?.toFixed(1)} s, ` +
        `New York City frost_days ${times.nyc?.toFixed(1)} s, /readyz ready ${times.ready.toFixed(1)} s; ` +
        `the build ${build.total?.toFixed(1)} s (catalog ${build.catalog?.toFixed(1)} s) at load average ${os.loadavg()[0]!.toFixed(1)}`,
    );
    return { ...times, build: build.total ?? NaN, catalog: build.catalog ?? NaN };
  } finally {
    try {
      process.kill(-server.pid!, 'SIGTERM');
    } catch {
      /* already gone */
    }
    await new Promise((r) => setTimeout(r, 1000));
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

const results: Record<string, number>[] = [];
for (let i = 1; i <= RUNS; i++) results.push(await oneRun(i));
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
if (results.length > 1) {
  const m = (k: string) => median(results.map((r) => r[k]!)).toFixed(1);
  console.log(`median of ${results.length}: /healthz ${m('healthz')} s, /api/city/ ${m('city')} s, New York City ${m('nyc')} s, ready ${m('ready')} s; the build ${m('build')} s (catalog ${m('catalog')} s)`);
}
