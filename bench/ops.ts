/**
 * The cost of the request log and the metrics, for `make bench` (called from bench/run.ts): two
 * servers on the same data, one as deployed (LOG_LEVEL=info, METRICS=on; the log goes to a pipe
 * that the bench drains) and one with both off (LOG_LEVEL=silent, METRICS=off), driven in turn
 * with the same reference workloads, `ROUNDS` times each, interleaved so that the machine's drift
 * hits both alike. Reports medians of p50 and requests/s and their ratios (on / off).
 * What stays on in both: request ids, compression negotiation and ETags (not part of this cost).
 */
import type { ChildProcess } from 'node:child_process';
import type { Catalog } from '../src/reference/catalog.js';
import { referenceWorkloads, type Workload } from './workloads.js';

export interface LoadResult {
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
  runLoad(url: string, token: string, w: Workload, duration: number): LoadResult;
}

export interface OpsOverheadRow {
  workload: string;
  connections: number;
  on: { rps: number; p50: number; p99: number };
  off: { rps: number; p50: number; p99: number };
  /** p50 on / p50 off: above 1 is the cost. */
  p50Ratio: number;
  /** req/s on / req/s off: below 1 is the cost. */
  rpsRatio: number;
}

const ROUNDS = 3;
const MODES = {
  on: { LOG_LEVEL: 'info', METRICS: 'on' },
  off: { LOG_LEVEL: 'silent', METRICS: 'off' },
} as const;

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;

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
      const results = { on: [] as LoadResult[], off: [] as LoadResult[] };
      for (let round = 0; round < ROUNDS; round++) {
        for (const s of round % 2 === 0 ? servers : [...servers].reverse()) {
          process.stderr.write(`bench ops: ${w.name}, logging+metrics ${s.mode}, round ${round + 1}/${ROUNDS} (warm-up 2 s, ${h.duration} s)...\n`);
          h.runLoad(s.url, h.token, w, 2);
          const r = h.runLoad(s.url, h.token, w, h.duration);
          if (r.non2xx > 0 || r.errors > 0) process.stderr.write(`  warning: ${r.non2xx} non-2xx responses, ${r.errors} errors\n`);
          results[s.mode].push(r);
        }
      }
      const summary = (rs: LoadResult[]) => ({ rps: median(rs.map((r) => r.rps)), p50: median(rs.map((r) => r.p50)), p99: median(rs.map((r) => r.p99)) });
      const on = summary(results.on);
      const off = summary(results.off);
      rows.push({ workload: w.name, connections: w.connections, on, off, p50Ratio: on.p50 / off.p50, rpsRatio: on.rps / off.rps });
    }
    return rows;
  } finally {
    for (const s of servers) s.child.kill('SIGTERM');
  }
}

export function printOpsOverhead(rows: OpsOverheadRow[]) {
  console.log(`\ncost of the request log and metrics (LOG_LEVEL=info + METRICS=on vs LOG_LEVEL=silent + METRICS=off; medians of ${ROUNDS} interleaved runs):`);
  console.log('\n| workload | clients | req/s on | req/s off | req/s on/off | p50 ms on | p50 ms off | p50 on/off |');
  console.log('|---|---|---|---|---|---|---|---|');
  for (const r of rows) {
    console.log(
      `| ${r.workload} | ${r.connections} | ${Math.round(r.on.rps)} | ${Math.round(r.off.rps)} | ${r.rpsRatio.toFixed(2)} | ${r.on.p50} | ${r.off.p50} | ${r.p50Ratio.toFixed(2)} |`,
    );
  }
}
