/**
 * The cost of the request log and the metrics, for `make bench` (called from bench/run.ts): two
 * servers on the same data, one as deployed (LOG_LEVEL=info, METRICS=on; the log goes to a pipe
 * that the bench drains) and one with both off (LOG_LEVEL=silent, METRICS=off), driven in turn
 * with the same reference workloads, `ROUNDS` times each, interleaved so that the machine's drift
 * hits both alike. Reports medians of p50, requests/s and the server's CPU time per request, and
 * their ratios (on / off). CPU time per request (from /proc) is the steadiest of the three on a
 * shared machine: other processes change how long a request waits, much less what it costs.
 * What stays on in both: request ids, compression negotiation and ETags (not part of this cost).
 */
import type { ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import type { Catalog } from '../src/reference/catalog.js';
import { referenceWorkloads, type Workload } from './workloads.js';

export interface LoadResult {
  requests: number;
  rps: number;
  p50: number;
  p99: number;
  non2xx: number;
  errors: number;
}

/** What bench/run.ts already has: starting a server, waiting for it, driving it. */
export interface BenchHarness {
  env: NodeJS.ProcessEnv;
  token: string;
  duration: number;
  freePort(): Promise<number>;
  startServer(env: NodeJS.ProcessEnv): ChildProcess;
  waitReady(url: string, token: string): Promise<void>;
  runLoad(url: string, token: string, w: Workload, duration: number): Promise<LoadResult>;
}

export interface OpsOverheadRow {
  workload: string;
  connections: number;
  on: { rps: number; p50: number; p99: number; cpuUs: number };
  off: { rps: number; p50: number; p99: number; cpuUs: number };
  /** p50 on / p50 off: above 1 is the cost. */
  p50Ratio: number;
  /** req/s on / req/s off: below 1 is the cost. */
  rpsRatio: number;
  /** server CPU time per request on / off: above 1 is the cost. */
  cpuRatio: number;
}

const ROUNDS = 3;
const MODES = {
  on: { LOG_LEVEL: 'info', METRICS: 'on' },
  off: { LOG_LEVEL: 'silent', METRICS: 'off' },
} as const;

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;

/** User + system CPU seconds of a process so far (Linux /proc; clock ticks of 1/100 s). */
function cpuSeconds(pid: number): number {
  const fields = fs.readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ');
  return (Number(fields[11]) + Number(fields[12])) / 100;
}

/** The smallest reference answer (the scenario list: the log and metrics are the largest share of it) and the city list page. */
function opsWorkloads(catalog: Catalog): Workload[] {
  const cityList = referenceWorkloads(catalog).find((w) => w.name === 'city list page')!;
  return [
    { name: 'scenario list', paths: ['/api/scenario/'], connections: 32 },
    { ...cityList, name: 'city list page' },
  ];
}

export async function measureOpsOverhead(h: BenchHarness, catalog: Catalog): Promise<OpsOverheadRow[]> {
  const servers: { mode: keyof typeof MODES; url: string; child: ChildProcess }[] = [];
  try {
    for (const mode of ['on', 'off'] as const) {
      const port = await h.freePort();
      const child = h.startServer({ ...h.env, ...MODES[mode], PORT: String(port), HOST: '127.0.0.1' });
      servers.push({ mode, url: `http://127.0.0.1:${port}`, child });
    }
    for (const s of servers) await h.waitReady(s.url, h.token);

    const rows: OpsOverheadRow[] = [];
    for (const w of opsWorkloads(catalog)) {
      const results = { on: [] as (LoadResult & { cpuUs: number })[], off: [] as (LoadResult & { cpuUs: number })[] };
      for (let round = 0; round < ROUNDS; round++) {
        for (const s of round % 2 === 0 ? servers : [...servers].reverse()) {
          process.stderr.write(`bench ops: ${w.name}, logging+metrics ${s.mode}, round ${round + 1}/${ROUNDS} (warm-up 2 s, ${h.duration} s)...\n`);
          await h.runLoad(s.url, h.token, w, 2);
          const cpuBefore = cpuSeconds(s.child.pid!);
          const r = await h.runLoad(s.url, h.token, w, h.duration);
          const cpuUs = ((cpuSeconds(s.child.pid!) - cpuBefore) / r.requests) * 1e6;
          if (r.non2xx > 0 || r.errors > 0) process.stderr.write(`  warning: ${r.non2xx} non-2xx responses, ${r.errors} errors\n`);
          results[s.mode].push({ ...r, cpuUs });
        }
      }
      const summary = (rs: (LoadResult & { cpuUs: number })[]) => ({
        rps: median(rs.map((r) => r.rps)),
        p50: median(rs.map((r) => r.p50)),
        p99: median(rs.map((r) => r.p99)),
        cpuUs: median(rs.map((r) => r.cpuUs)),
      });
      const on = summary(results.on);
      const off = summary(results.off);
      rows.push({ workload: w.name, connections: w.connections, on, off, p50Ratio: on.p50 / off.p50, rpsRatio: on.rps / off.rps, cpuRatio: on.cpuUs / off.cpuUs });
    }
    return rows;
  } finally {
    for (const s of servers) s.child.kill('SIGTERM');
  }
}

export function printOpsOverhead(rows: OpsOverheadRow[]) {
  console.log(`\ncost of the request log and metrics (LOG_LEVEL=info + METRICS=on vs LOG_LEVEL=silent + METRICS=off; medians of ${ROUNDS} interleaved runs):`);
  console.log('\n| workload | clients | p50 ms on | p50 ms off | p50 on/off | req/s on | req/s off | req/s on/off | server CPU us/request on | off | CPU on/off |');
  console.log('|---|---|---|---|---|---|---|---|---|---|---|');
  for (const r of rows) {
    console.log(
      `| ${r.workload} | ${r.connections} | ${r.on.p50} | ${r.off.p50} | ${r.p50Ratio.toFixed(2)} | ${Math.round(r.on.rps)} | ${Math.round(r.off.rps)} | ${r.rpsRatio.toFixed(2)} | ` +
        `${r.on.cpuUs.toFixed(0)} | ${r.off.cpuUs.toFixed(0)} | ${r.cpuRatio.toFixed(2)} |`,
    );
  }
}
