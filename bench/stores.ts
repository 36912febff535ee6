/**
 * The cost of the shared stores of several replicas, for `make bench` (called from bench/run.ts;
 * BENCH_ONLY=stores runs only this): three servers on the same data, with the embedded stores
 * (DuckDB accounts, throttle counts in memory), with accounts in PostgreSQL (ACCOUNTS_URL: the
 * token check reads the account at most once a second), and with PostgreSQL and the throttle in
 * Redis (THROTTLE_URL: two Redis calls per climate request, burst and sustained). PostgreSQL and
 * Redis are Debian's, started on loopback for the run (test/support). Driven in turn, interleaved,
 * `ROUNDS` times; reports medians of p50 and requests/s and the server's CPU time per request.
 */
import { execFileSync, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { ROOT } from '../src/config.js';
import type { Catalog } from '../src/reference/catalog.js';
import { startPostgres } from '../scripts/localServers/postgres.js';
import { startRedis } from '../scripts/localServers/redis.js';
import type { BenchHarness, LoadResult } from './ops.js';
import { climateWorkloads, referenceWorkloads, type Workload } from './workloads.js';

const ROUNDS = 3;
const SECRET = 'bench-shared-token-secret-0123456789-abcdef';

export interface StoresRow {
  workload: string;
  connections: number;
  modes: Record<string, { rps: number; p50: number; cpuUs: number }>;
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
const cpuSeconds = (pid: number) => {
  const fields = fs.readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ');
  return (Number(fields[11]) + Number(fields[12])) / 100;
};

function workloads(catalog: Catalog): Workload[] {
  const frost = climateWorkloads(catalog).find((w) => w.name === 'frost_days yearly' && w.connections === 16)!;
  const page = referenceWorkloads(catalog).find((w) => w.name === 'city list page')!;
  return [frost, page];
}

export async function measureSharedStores(h: BenchHarness, catalog: Catalog): Promise<StoresRow[]> {
  const [pg, redis] = await Promise.all([startPostgres(), startRedis()]);
  const servers: { mode: string; url: string; token: string; child: ChildProcess }[] = [];
  try {
    const shared = { TOKEN_SECRET: SECRET, ACCOUNTS_URL: pg.url };
    // One account in PostgreSQL for both shared modes, with the bench's unlimited rates.
    const pgToken = execFileSync(path.join(ROOT, 'node_modules', '.bin', 'tsx'), ['src/cli/user.ts', '--email', 'bench@example.com', '--password', 'bench-password', '--burst-rate', '1000000/min', '--sustained-rate', '100000000/day'], {
      cwd: ROOT,
      env: { ...h.env, ...shared },
      encoding: 'utf8',
    })
      .trim()
      .split('\n')
      .pop()!;
    const modes: [string, NodeJS.ProcessEnv, string][] = [
      ['embedded', {}, h.token],
      ['PostgreSQL', shared, pgToken],
      ['PostgreSQL + Redis', { ...shared, THROTTLE_URL: redis.url }, pgToken],
    ];
    for (const [mode, extra, token] of modes) {
      const port = await h.freePort();
      const child = h.startServer({ ...h.env, ...extra, PORT: String(port), HOST: '127.0.0.1', LOG_LEVEL: 'silent' });
      servers.push({ mode, url: `http://127.0.0.1:${port}`, token, child });
    }
    for (const s of servers) await h.waitReady(s.url, s.token);
    const rows: StoresRow[] = [];
    for (const w of workloads(catalog)) {
      const results = new Map<string, (LoadResult & { cpuUs: number })[]>();
      for (let round = 0; round < ROUNDS; round++) {
        for (const s of round % 2 === 0 ? servers : [...servers].reverse()) {
          process.stderr.write(`bench stores: ${w.name}, ${s.mode}, round ${round + 1}/${ROUNDS} (warm-up 2 s, ${h.duration} s)...\n`);
          await h.runLoad(s.url, s.token, w, 2);
          const before = cpuSeconds(s.child.pid!);
          const r = await h.runLoad(s.url, s.token, w, h.duration);
          if (r.non2xx > 0 || r.errors > 0) process.stderr.write(`  warning: ${r.non2xx} non-2xx responses, ${r.errors} errors\n`);
          results.set(s.mode, [...(results.get(s.mode) ?? []), { ...r, cpuUs: ((cpuSeconds(s.child.pid!) - before) / r.requests) * 1e6 }]);
        }
      }
      rows.push({
        workload: w.name,
        connections: w.connections,
        modes: Object.fromEntries(
          [...results].map(([mode, rs]) => [mode, { rps: median(rs.map((r) => r.rps)), p50: median(rs.map((r) => r.p50)), cpuUs: median(rs.map((r) => r.cpuUs)) }]),
        ),
      });
    }
    return rows;
  } finally {
    for (const s of servers) s.child.kill('SIGTERM');
    await Promise.all([pg.close(), redis.close()]);
  }
}

export function printSharedStores(rows: StoresRow[]) {
  console.log(`\ncost of the shared stores (medians of ${ROUNDS} interleaved runs; the account's state read from PostgreSQL at most once a second per replica, two Redis calls per climate request):`);
  console.log('\n| workload | clients | stores | req/s | p50 ms | server CPU us/request | req/s vs embedded |');
  console.log('|---|---|---|---|---|---|---|');
  for (const r of rows) {
    const base = r.modes.embedded!;
    for (const [mode, m] of Object.entries(r.modes)) {
      console.log(`| ${r.workload} | ${r.connections} | ${mode} | ${Math.round(m.rps)} | ${m.p50} | ${m.cpuUs.toFixed(0)} | ${(m.rps / base.rps).toFixed(2)} |`);
    }
  }
}
