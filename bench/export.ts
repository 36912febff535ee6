/**
 * `make bench-export`: the export rate (src/export/) for the issue's case: a 1-degree box of
 * NEX-GDDP-CMIP6 (16 cells), 5 models, one scenario (ssp245), 30 years (2041-2070) of tasmax. The
 * data is the scale model of the archive (scripts/archiveModel/, files named and shaped as NASA's,
 * cut to the box) read by `make ingest` into a build of its own, once. The server app runs in this
 * process with its in-process export runner; each run POSTs the export, polls it every 50 ms
 * until done, and times POST to done, wall clock and this process's CPU time (the export runs in
 * it, DuckDB's threads included), which a shared machine's load does not inflate. Prints, per
 * format, the medians (and ranges) of BENCH_EXPORT_RUNS runs (default 3, interleaved by format):
 * seconds, values per second of wall clock and of CPU, file bytes; and the load average.
 *   BENCH_EXPORT_FORMATS=netcdf,parquet,csv
 * Work files go to .tmp/bench-export (the archive and the build are kept for the next run).
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import request from 'supertest';
import { planArchive, writeArchive } from '../scripts/archiveModel/archive.js';
import { createApp } from '../src/app.js';
import { createAuth } from '../src/auth/index.js';
import { hashPassword } from '../src/auth/passwords.js';
import { loadConfig, ROOT } from '../src/config.js';
import { openDuckDB } from '../src/db/duckdb.js';
import { QueryPool } from '../src/db/queryPool.js';
import { sqlFile } from '../src/db/sqlFiles.js';
import { createThrottleStores } from '../src/http/throttleStore.js';
import { buildDataset } from '../src/ingest/build.js';
import { ingestNetcdf } from '../src/ingest/netcdf/ingest.js';
import { createLogger } from '../src/logger.js';
import { loadCatalog } from '../src/reference/catalog.js';

const WORK = path.join(ROOT, '.tmp', 'bench-export');
const RUNS = Number(process.env.BENCH_EXPORT_RUNS ?? 3);
const FORMATS = (process.env.BENCH_EXPORT_FORMATS ?? 'netcdf,parquet,csv').split(',');
const MODELS = ['ACCESS-CM2', 'CanESM5', 'MIROC6', 'MRI-ESM2-0', 'UKESM1-0-LL'];
const YEARS: [number, number] = [2041, 2070];
/** Whole 0.25-degree cells: 4 x 4 of them. */
const BOX: [number, number, number, number] = [-105, 39, -104, 40];

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
const fmt = (xs: number[], scale = 1, digits = 1) => {
  const m = (median(xs) / scale).toFixed(digits);
  return xs.length > 1 ? `${m} (${(Math.min(...xs) / scale).toFixed(digits)}-${(Math.max(...xs) / scale).toFixed(digits)})` : m;
};

async function dataBuild(): Promise<string> {
  const dataDir = path.join(WORK, 'build');
  const done = path.join(WORK, 'build-ingested');
  if (fs.existsSync(done)) return dataDir;
  const catalogDir = path.join(WORK, 'catalog-build');
  if (!fs.existsSync(path.join(catalogDir, 'manifest.json'))) await buildDataset({ outDir: catalogDir, climateCities: 0, seed: 1, log: () => {} });
  const archiveDir = path.join(WORK, 'archive');
  const files = planArchive({ dataset: 'NEX-GDDP-CMIP6', models: MODELS, scenarios: ['ssp245'], years: YEARS, variables: ['tasmax'], bbox: [BOX[0] - 0.5, BOX[1] - 0.5, BOX[2] + 0.5, BOX[3] + 0.5] });
  const t0 = Date.now();
  const { written } = await writeArchive(archiveDir, files);
  console.log(`archive: ${files.length} files (${written.length} written in ${((Date.now() - t0) / 1000).toFixed(0)} s)`);
  fs.rmSync(dataDir, { recursive: true, force: true });
  fs.cpSync(catalogDir, dataDir, { recursive: true });
  const t1 = Date.now();
  await ingestNetcdf({ dataDir, dataset: 'NEX-GDDP-CMIP6', sources: files.map((f) => path.join(archiveDir, f.path)), bbox: BOX, log: () => {} });
  console.log(`ingest of the box: ${((Date.now() - t1) / 1000).toFixed(0)} s`);
  fs.writeFileSync(done, new Date().toISOString());
  return dataDir;
}

async function main() {
  fs.mkdirSync(WORK, { recursive: true });
  const dataDir = await dataBuild();
  const exportDir = path.join(WORK, 'exports');
  fs.rmSync(exportDir, { recursive: true, force: true });
  const config = loadConfig({ ...process.env, LOG_LEVEL: 'silent', DATA_DIR: dataDir, ACCOUNTS_DB: path.join(WORK, 'accounts.duckdb'), EXPORT_DIR: exportDir, QUEUE_URL: '' });
  const db = await openDuckDB({ threads: config.DUCKDB_THREADS, memoryLimit: config.DUCKDB_MEMORY_LIMIT });
  const catalog = await loadCatalog(await db.connect(), dataDir);
  const queries = await QueryPool.open(db, config.QUERY_CONCURRENCY, config.QUERY_TIMEOUT_MS, sqlFile('indicators/macros.sql'));
  const throttleStores = await createThrottleStores(config, createLogger('silent'));
  const auth = await createAuth(config, throttleStores);
  const account = (await auth.accounts.findByEmail('bench@example.com')) ?? (await auth.accounts.create('bench@example.com', await hashPassword('bench-password')));
  const token = await auth.tokens.issue(account.id, account.tokenVersion);
  const app = createApp({ config, catalog, queries, auth, throttleStores });
  const headers = { Authorization: `Token ${token}` };

  const results = new Map<string, { seconds: number; cpu: number; values: number; bytes: number }[]>();
  for (let r = 0; r < RUNS; r++) {
    for (const format of FORMATS) {
      const body = { dataset: 'NEX-GDDP-CMIP6', scenarios: ['ssp245'], models: MODELS, years: `${YEARS[0]}:${YEARS[1]}`, variables: ['tasmax'], area: { bbox: BOX.join(',') }, format };
      const started = performance.now();
      const cpu0 = process.cpuUsage();
      const posted = await request(app).post('/api/export/').set(headers).send(body);
      if (posted.status !== 202) throw new Error(`POST answered ${posted.status}: ${JSON.stringify(posted.body)}`);
      let job;
      for (;;) {
        job = (await request(app).get(posted.body.url).set(headers)).body as { status: string; values: number; files: { bytes: number }[]; error: string | null };
        if (job.status !== 'queued' && job.status !== 'running') break;
        await new Promise((res) => setTimeout(res, 50));
      }
      const seconds = (performance.now() - started) / 1000;
      const used = process.cpuUsage(cpu0);
      const cpu = (used.user + used.system) / 1e6;
      if (job.status !== 'done') throw new Error(`the ${format} export ended ${job.status}: ${job.error}`);
      const bytes = job.files.reduce((n, f) => n + f.bytes, 0);
      (results.get(format) ?? results.set(format, []).get(format)!).push({ seconds, cpu, values: job.values, bytes });
      console.log(`run ${r + 1} ${format}: ${seconds.toFixed(2)} s (CPU ${cpu.toFixed(2)} s), ${job.values.toLocaleString('en-US')} values, ${bytes.toLocaleString('en-US')} bytes`);
      await request(app).delete(posted.body.url).set(headers);
    }
  }
  console.log(`\n1-degree box (16 cells) of NEX-GDDP-CMIP6, ${MODELS.length} models, ssp245, ${YEARS[0]}-${YEARS[1]}, tasmax; ${os.availableParallelism()} cores, load average ${os.loadavg().map((l) => l.toFixed(2)).join(' ')}`);
  console.log('| format | seconds, POST to done | values/s | CPU seconds | values per CPU second | file MB |');
  console.log('|---|---|---|---|---|---|');
  for (const [format, runs] of results) {
    console.log(
      `| ${format} | ${fmt(runs.map((x) => x.seconds), 1, 2)} | ${fmt(runs.map((x) => x.values / x.seconds), 1e6, 2)} M | ${fmt(runs.map((x) => x.cpu), 1, 2)} | ${fmt(runs.map((x) => x.values / x.cpu), 1e6, 2)} M | ${fmt(runs.map((x) => x.bytes), 1e6, 2)} |`,
    );
  }
  process.exit(0);
}

main().catch((err: unknown) => {
  console.error(err);
  process.exit(1);
});
