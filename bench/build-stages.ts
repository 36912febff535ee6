/**
 * `make bench-build`: where the default build's CPU time goes. Builds one cell of each dataset
 * (New York City's, every model, scenario and year the default build gives it) on one
 * single-threaded connection, as a build worker does, and times every statement by the SQL file
 * it runs (writing the generated days, monthly, ensemble, ensemble JSON), and the JavaScript beside
 * them (generating the days, their monthly summaries and ensemble statistics): CPU seconds (user + sys, less sensitive
 * than wall time to other work on the machine) and microseconds per daily row. The last table
 * weighs each dataset by its cells in the default build (116 CMIP5 and 26 CMIP6 cells), which is
 * the build's CPU time less the catalog. BENCH_BUILD_RUNS (default 3) repeats it and reports medians.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { DuckDBConnection } from '@duckdb/node-api';
import { ROOT } from '../src/config.js';
import { openDuckDB } from '../src/db/duckdb.js';
import { modelsWith, scenariosOf } from '../src/ingest/buildOptions.js';
import { loadSummaryMacros } from '../src/ingest/summaries.js';
import { cellClimate, writeSyntheticCellWithSummaries } from '../src/ingest/synthetic.js';
import { DATASETS, HISTORIC_RANGES } from '../src/reference/fixtures.js';

const RUNS = Number(process.env.BENCH_BUILD_RUNS ?? 3);
/** Cells per dataset in the default build (docs/data.md, "The default build"). */
const DEFAULT_CELLS: Record<string, number> = { 'NEX-GDDP': 66, LOCA: 50, 'NEX-GDDP-CMIP6': 16, LOCA2: 10 };
const NYC = { lat: 40.625, lon: -74.125, coastKm: 5 };

/** The SQL files of sql/build/, by the text a statement starts with. */
const sqlDir = path.join(ROOT, 'sql', 'build');
const stageOf = (sql: string) => {
  for (const f of fs.readdirSync(sqlDir)) if (sql.includes(fs.readFileSync(path.join(sqlDir, f), 'utf8').split('\n')[0]!)) return f.replace(/\.sql$/, '');
  return 'other';
};

/** A connection whose statements (run, runAndReadAll) add their CPU time to `cpu`, by stage. */
function timed(conn: DuckDBConnection, cpu: Map<string, number>): DuckDBConnection {
  return new Proxy(conn, {
    get(target, prop, receiver) {
      const value = Reflect.get(target, prop, receiver);
      if ((prop !== 'run' && prop !== 'runAndReadAll') || typeof value !== 'function') return typeof value === 'function' ? value.bind(target) : value;
      return async (sql: string, ...rest: unknown[]) => {
        const t0 = process.cpuUsage();
        try {
          return await (value as (...a: unknown[]) => Promise<unknown>).call(target, sql, ...rest);
        } finally {
          const t = process.cpuUsage(t0);
          const stage = stageOf(sql);
          cpu.set(stage, (cpu.get(stage) ?? 0) + (t.user + t.system) / 1e6);
        }
      };
    },
  });
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;

async function oneRun(dir: string) {
  fs.rmSync(dir, { recursive: true, force: true });
  const db = await openDuckDB({ threads: 1, memoryLimit: '2GB' });
  const raw = await db.connect();
  await loadSummaryMacros(raw);
  const out: Record<string, { rows: number; cpu: Map<string, number> }> = {};
  try {
    for (const d of DATASETS) {
      const cpu = new Map<string, number>();
      const conn = timed(raw, cpu);
      const t0 = process.cpuUsage();
      const scenarios = scenariosOf(d, d.models).map((s) => ({ scenario: s, years: d.years[s]!, models: modelsWith(d, d.models, s) }));
      const rows = await writeSyntheticCellWithSummaries(conn, { dataDir: dir, seed: 1, dataset: d.name, cellId: 1, climate: cellClimate(NYC.lat, NYC.lon, NYC.coastKm), scenarios }, HISTORIC_RANGES);
      // What ran outside the statements: generating the days and their monthly digits in JavaScript.
      const t = process.cpuUsage(t0);
      cpu.set('javascript', (t.user + t.system) / 1e6 - [...cpu.values()].reduce((a, b) => a + b, 0));
      out[d.name] = { rows, cpu };
    }
  } finally {
    raw.closeSync();
    await db.close();
    fs.rmSync(dir, { recursive: true, force: true });
  }
  return out;
}

const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'bench-build-'));
const runs = [];
for (let i = 0; i < RUNS; i++) {
  console.log(`run ${i + 1}/${RUNS} (load average ${os.loadavg().map((l) => l.toFixed(1)).join(' ')})`);
  runs.push(await oneRun(path.join(dir, 'build')));
}
fs.rmSync(dir, { recursive: true, force: true });
const stages = [...new Set(runs.flatMap((r) => Object.values(r).flatMap((d) => [...d.cpu.keys()])))];
console.log(`\nCPU seconds of one cell, median of ${RUNS} (us per daily row in brackets):`);
console.log(['dataset', 'rows', ...stages, 'total'].join(' | '));
const weighted = new Map<string, number>();
for (const d of DATASETS) {
  const rows = runs[0]![d.name]!.rows;
  const cells: string[] = [];
  let total = 0;
  for (const s of stages) {
    const cpu = median(runs.map((r) => r[d.name]!.cpu.get(s) ?? 0));
    total += cpu;
    weighted.set(s, (weighted.get(s) ?? 0) + cpu * DEFAULT_CELLS[d.name]!);
    cells.push(`${cpu.toFixed(2)} (${((cpu / rows) * 1e6).toFixed(2)})`);
  }
  console.log([d.name, `${(rows / 1e6).toFixed(2)}M`, ...cells, total.toFixed(2)].join(' | '));
}
const all = [...weighted.values()].reduce((a, b) => a + b, 0);
console.log(`\nThe default build's cells (${Object.entries(DEFAULT_CELLS).map(([k, v]) => `${v} ${k}`).join(', ')}), CPU seconds:`);
console.log(stages.map((s) => `${s} ${weighted.get(s)!.toFixed(0)} (${Math.round((weighted.get(s)! / all) * 100)}%)`).join(', ') + `; total ${all.toFixed(0)}`);
