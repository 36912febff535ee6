/**
 * The century request of every indicator (issue 37): New York City, RCP85, every model, 2006-2100,
 * with its defaults and with the parameters users change most, each as a ratio to frost_days in the
 * same run. One client, `Accept-Encoding: gzip, deflate, br`, from a load generator in its own
 * process (bench/latencyLoad.ts); BENCH_CENTURY_ROUNDS rounds (default 7), each asking every request
 * once, in a shuffled order of its own, its years written another way (2006:2100, 2006:2050,2051:2100,
 * ...: the same 95 years on a distinct path); medians over the rounds. Then relative_to=1971 and
 * warming_level=2.0 on the slowest request, against it, in as many rounds, each asking the three
 * 10 times (EXTRA_REPEATS), every path distinct.
 *
 * BENCH_BASELINE=<folder of another checkout> starts that checkout's compiled server on its own
 * data as well (BENCH_BASELINE_DATA_DIR, default its `data/build`; build both first: make setup
 * build), and runs every round on both servers, which one first alternating by round: old and new
 * in one run; BENCH_CENTURY_INDICATORS=name,... for a few of them. Alone: BENCH_ONLY='every indicator' (make bench runs bench/ingest.ts after it; bench/run.ts alone does not).
 */
import { execFile, execFileSync, spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { ROOT } from '../src/config.js';

export const CENTURY_BENCH = 'every indicator: the century, New York City, RCP85, all models, 2006-2100, ratio to frost_days';
const ACCEPT_ENCODING = 'gzip, deflate, br';
const NYC = 5128581;
const ROUNDS = Number(process.env.BENCH_CENTURY_ROUNDS ?? 7);
/**
 * How many times a round asks the slowest request and its relative_to and warming-level forms, each
 * time with years written another way: after the warm-up's and the rounds' ways (yearsOf), up to
 * 10 a round while the 94 ways last.
 */
const EXTRA_FIRST = ROUNDS + 2;
const EXTRA_REPEATS = Math.max(1, Math.min(10, Math.floor((94 - EXTRA_FIRST) / ROUNDS)));

/**
 * The requests: each indicator with its defaults (the threshold indicators need one: a hot day, a
 * freezing night, a wet day), then the parameters users change most.
 */
export const CENTURY_REQUESTS: [name: string, query: string][] = [
  ['frost_days', ''],
  ['max_high_temperature', ''],
  ['min_low_temperature', ''],
  ['average_high_temperature', ''],
  ['average_low_temperature', ''],
  ['diurnal_temperature_range', ''],
  ['total_precipitation', ''],
  ['max_1day_precipitation', ''],
  ['max_nday_precipitation', ''],
  ['max_nday_precipitation', 'n=3'],
  ['accumulated_freezing_degree_days', ''],
  ['cooling_degree_days', ''],
  ['cooling_degree_days', 'basetemp=70'],
  ['heating_degree_days', ''],
  ['heating_degree_days', 'basetemp=18&basetemp_units=C'],
  ['max_temperature_threshold', 'threshold=90&threshold_comparator=gt&threshold_units=F'],
  ['max_temperature_threshold', 'threshold=35&threshold_comparator=gte&threshold_units=C'],
  ['min_temperature_threshold', 'threshold=32&threshold_comparator=lte&threshold_units=F'],
  ['precipitation_threshold', 'threshold=1&threshold_comparator=gt&threshold_units=mm/day'],
  ['percentile_high_temperature', ''],
  ['percentile_high_temperature', 'percentile=90'],
  ['percentile_low_temperature', ''],
  ['percentile_precipitation', ''],
  ['extreme_heat_events', ''],
  ['extreme_heat_events', 'percentile=95&historic_range=1961'],
  ['extreme_cold_events', ''],
  ['extreme_precipitation_events', ''],
  ['heat_wave_incidents', ''],
  ['heat_wave_incidents', 'historic_range=1961'],
  ['heat_wave_duration_index', ''],
  ['dry_spells', ''],
  ['max_consecutive_dry_days', ''],
];

/**
 * BENCH_CENTURY_INDICATORS (comma-separated indicator names): only their requests, with frost_days's,
 * which the ratios are to: a quick old-against-new check of a few.
 */
const ONLY_INDICATORS = process.env.BENCH_CENTURY_INDICATORS?.split(',').filter(Boolean);
const REQUESTS = ONLY_INDICATORS ? CENTURY_REQUESTS.filter(([name]) => name === 'frost_days' || ONLY_INDICATORS.includes(name)) : CENTURY_REQUESTS;

/** Round r's way of writing 2006-2100: whole, or split after 2006 + r years. */
// The split year steps by 11 modulo 94 (coprime): distinct for up to 94 rounds, and always inside 2006-2100.
const yearsOf = (round: number) => (round === 0 ? '2006:2100' : `2006:${2006 + ((round * 11) % 94)},${2007 + ((round * 11) % 94)}:2100`);
const label = ([name, query]: [string, string]) => (query ? `${name} ${query}` : name);
/** A warming level takes no years: its paths are made distinct by how the level is written (2.0, 2.00, ...). */
const pathOf = ([name, query]: [string, string], round: number) =>
  query.startsWith('warming_level=')
    ? `/api/climate-data/${NYC}/RCP85/indicator/${name}/?${query}${'0'.repeat(round)}`
    : `/api/climate-data/${NYC}/RCP85/indicator/${name}/?years=${yearsOf(round)}${query ? `&${query}` : ''}`;

/** Deterministic shuffle (a round's order). */
function shuffled<T>(items: T[], seed: number): T[] {
  let s = seed >>> 0;
  const next = () => ((s = (Math.imul(s ^ (s >>> 15), 0x2c1b3c6d) + 0x9e3779b9) >>> 0) / 2 ** 32);
  const out = [...items];
  for (let i = out.length - 1; i > 0; i--) {
    const j = Math.floor(next() * (i + 1));
    [out[i], out[j]] = [out[j]!, out[i]!];
  }
  return out;
}

export interface Server {
  name: string;
  url: string;
  token: string;
}

/** Each path once, in order, one client, from bench/latencyLoad.ts in its own process: each request's ms. */
async function timeInOrder(server: Server, paths: string[]): Promise<number[]> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'bench-century-'));
  const spec = path.join(dir, 'spec.json');
  fs.writeFileSync(spec, JSON.stringify({ url: server.url, token: server.token, paths, connections: 1, acceptEncoding: ACCEPT_ENCODING }));
  try {
    const { stdout } = await promisify(execFile)(process.execPath, ['--import', 'tsx', path.join(ROOT, 'bench', 'latencyLoad.ts'), spec], { cwd: ROOT, encoding: 'utf8', maxBuffer: 1 << 24 });
    const r = JSON.parse(stdout.trim().split('\n').pop()!) as { inOrder: number[]; non2xx: number; errors: number; firstFailures: string[] };
    if (r.non2xx > 0 || r.errors > 0) throw new Error(`${server.name}: ${r.firstFailures.join('; ')}`);
    return r.inOrder;
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

/** Per server, per request label, the ms of each round. */
type Times = Map<string, Map<string, number[]>>;

/**
 * ROUNDS rounds, each asking every request `repeats` times (each time with its own way of writing the
 * years, so every path is distinct) in a shuffled order, from one load generator per server.
 */
async function rounds(servers: Server[], requests: [string, string][], times: Times, seed: number, repeats = 1, first = 0) {
  for (let r = 0; r < ROUNDS; r++) {
    const order = shuffled(
      requests.flatMap((q) => Array.from({ length: repeats }, (_, k) => [q, first + r * repeats + k] as const)),
      seed + r,
    );
    const paths = order.map(([q, n]) => pathOf(q, n));
    for (const server of r % 2 === 0 ? servers : [...servers].reverse()) {
      const ms = await timeInOrder(server, paths);
      const own = times.get(server.name)!;
      order.forEach(([q], i) => {
        const key = label(q);
        if (!own.has(key)) own.set(key, []);
        own.get(key)!.push(ms[i]!);
      });
    }
  }
}

const median = (xs: number[]) => {
  const s = [...xs].sort((a, b) => a - b);
  const m = s.length >> 1;
  return s.length % 2 ? s[m]! : (s[m - 1]! + s[m]!) / 2;
};

export interface CenturyResult {
  rounds: number;
  servers: string[];
  /** Per server: request label -> median ms. */
  medians: Record<string, Record<string, number>>;
  slowest: string;
}

export async function centuryBench(servers: Server[]): Promise<CenturyResult> {
  const times: Times = new Map(servers.map((s) => [s.name, new Map()]));
  process.stderr.write(`bench: ${CENTURY_BENCH}: ${REQUESTS.length} requests x ${ROUNDS} rounds on ${servers.map((s) => s.name).join(' and ')}...\n`);
  // Warm-up: every request once, on a way of writing the years the rounds do not use.
  for (const server of servers) await timeInOrder(server, REQUESTS.map((q) => pathOf(q, ROUNDS + 1)));
  await rounds(servers, REQUESTS, times, 1);
  // The slowest plain request of the server measured last (this checkout's), then its change and warming-level forms.
  const own = times.get(servers.at(-1)!.name)!;
  const slowest = REQUESTS.filter(([, query]) => query === '').sort((a, b) => median(own.get(label(b))!) - median(own.get(label(a))!))[0]!;
  const extra: [string, string][] = [slowest, [slowest[0], 'relative_to=1971'], [slowest[0], 'warming_level=2.0']];
  process.stderr.write(`bench: ${slowest[0]}, its relative_to=1971 and warming_level=2.0, ${ROUNDS} rounds...\n`);
  const extraTimes: Times = new Map(servers.map((s) => [s.name, new Map()]));
  // Each asked EXTRA_REPEATS times a round: in a load generator's run of only these three requests,
  // the first ones ran on a server and a host just back from idle, and were a third of the samples.
  await rounds(servers, extra, extraTimes, 101, EXTRA_REPEATS, EXTRA_FIRST);
  const medians: CenturyResult['medians'] = {};
  for (const s of servers) {
    medians[s.name] = Object.fromEntries([...times.get(s.name)!].map(([k, v]) => [k, median(v)]));
    for (const [k, v] of extraTimes.get(s.name)!) medians[s.name]![`${k}${k === label(slowest) ? ' (again)' : ''}`] = median(v);
  }
  return { rounds: ROUNDS, servers: servers.map((s) => s.name), medians, slowest: label(slowest) };
}

export function printCentury(r: CenturyResult) {
  const frost = (server: string) => r.medians[server]!['frost_days']!;
  console.log(`\n${CENTURY_BENCH}: 1 client, compressed (${ACCEPT_ENCODING}), medians of ${r.rounds} rounds, every path distinct`);
  console.log(`\n| request | ${r.servers.map((s) => `${s} ms | ${s} x frost_days`).join(' | ')} |`);
  console.log(`|---|${r.servers.map(() => '---|---').join('|')}|`);
  for (const key of Object.keys(r.medians[r.servers[0]!]!)) {
    const cells = r.servers.map((s) => `${r.medians[s]![key]!.toFixed(1)} | ${(r.medians[s]![key]! / frost(s)).toFixed(2)}`);
    console.log(`| ${key} | ${cells.join(' | ')} |`);
  }
  for (const s of r.servers) {
    const m = r.medians[s]!;
    const plain = m[`${r.slowest} (again)`]!;
    const worst = Math.max(...REQUESTS.map((q) => m[label(q)]! / frost(s)));
    console.log(
      `${s}: the largest ratio to frost_days ${worst.toFixed(2)} (target <= 2); on the slowest, ${r.slowest}: relative_to=1971 ${(m[`${r.slowest.split(' ')[0]} relative_to=1971`]! / plain).toFixed(2)}x, warming_level=2.0 ${(m[`${r.slowest.split(' ')[0]} warming_level=2.0`]! / plain).toFixed(2)}x its plain request (target <= 1.5)`,
    );
  }
}

/**
 * Another checkout's compiled server on its own default data (BENCH_BASELINE), with an account of its
 * own; stop() ends it.
 */
export async function baselineServer(
  dir: string,
  env: NodeJS.ProcessEnv,
  freePort: () => Promise<number>,
  waitReady: (url: string, token: string) => Promise<void>,
): Promise<Server & { stop: () => void }> {
  const root = path.resolve(dir);
  const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'bench-baseline-'));
  const own = { ...env, DATA_DIR: path.resolve(process.env.BENCH_BASELINE_DATA_DIR ?? path.join(root, 'data', 'build')), ACCOUNTS_DB: path.join(tmp, 'accounts.duckdb') };
  const created = execFileSync(path.join(root, 'node_modules', '.bin', 'tsx'), ['src/cli/user.ts', '--email', 'bench@example.com', '--password', 'bench-password'], { cwd: root, env: own, encoding: 'utf8' });
  const token = created.trim().split('\n').pop()!;
  const port = await freePort();
  const nodeOptions = (process.env.SERVER_NODE_OPTIONS ?? '').split(' ').filter(Boolean);
  const child: ChildProcess = spawn(process.execPath, [...nodeOptions, path.join(root, 'dist', 'server.js')], {
    cwd: root,
    env: { ...own, PORT: String(port), HOST: '127.0.0.1' },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  child.stdout!.on('data', () => {});
  const url = `http://127.0.0.1:${port}`;
  await waitReady(url, token);
  return {
    name: 'baseline',
    url,
    token,
    stop: () => {
      child.kill('SIGTERM');
      fs.rmSync(tmp, { recursive: true, force: true });
    },
  };
}
