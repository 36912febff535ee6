/**
 * `make bench-ingest` (also run by `make bench`): NetCDF ingest throughput. Writes NEX-GDDP-like
 * NetCDF-4 files over the conterminous US (0.25 degree, 104 x 233 cells, one year, gzip, chunked
 * one day per chunk, values with 2% noise so that they compress about as real output does), builds a catalog-only data build, ingests the files for every city cell they
 * cover, and prints values/s and NetCDF MB/s of the reading phase and the partition rebuild rate.
 *   BENCH_INGEST_FILES  files to write (default 6: 3 variables x 2 models), BENCH_INGEST_CHUNKS
 *   "t,i,j" chunk shape (default 1,104,233: a day per chunk).
 * Work files go to .tmp/bench-ingest (kept between runs; the fixtures are reused).
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { ROOT } from '../src/config.js';
import { buildDataset } from '../src/ingest/build.js';
import { writeFixture, type FixtureSpec } from '../src/archiveModel/fixtureFiles.js';
import { ingestNetcdf } from '../src/ingest/netcdf/ingest.js';

const WORK = path.join(ROOT, '.tmp', 'bench-ingest');
const FILES = Number(process.env.BENCH_INGEST_FILES ?? 6);
const CHUNKS = (process.env.BENCH_INGEST_CHUNKS ?? '1,104,233').split(',').map(Number) as [number, number, number];
const catalogDir = path.join(WORK, 'catalog-build');
const dataDir = path.join(WORK, 'build');
const srcDir = path.join(WORK, `noisy-files-${CHUNKS.join('x')}`);

const specs: FixtureSpec[] = [];
for (const model of ['ACCESS1-0', 'CCSM4', 'MIROC5', 'CNRM-CM5']) {
  for (const variable of ['tasmax', 'tasmin', 'pr'] as const) {
    specs.push({ layout: 'NEX-GDDP', variable, model, scenario: 'RCP85', year: 2052, lat: [24.125, 49.875], lon: [-124.875, -66.875], lon360: true, chunks: CHUNKS, noise: 0.02 });
  }
}

async function main() {
  if (!fs.existsSync(path.join(catalogDir, 'manifest.json'))) {
    console.log('building a catalog-only data build (no climate data) ...');
    await buildDataset({ outDir: catalogDir, climateCities: 0, seed: 1, log: () => {} });
  }
  fs.mkdirSync(srcDir, { recursive: true });
  const wanted = specs.slice(0, FILES);
  const t0 = Date.now();
  for (const s of wanted) {
    if (!fs.existsSync(path.join(srcDir, `${s.variable}_day_BCSD_rcp85_r1i1p1_${s.model}_${s.year}.nc`))) await writeFixture(srcDir, s);
  }
  if (Date.now() - t0 > 1000) console.log(`wrote ${wanted.length} NetCDF-4 files in ${((Date.now() - t0) / 1000).toFixed(1)} s`);
  const files = fs.readdirSync(srcDir).filter((f) => wanted.some((s) => f.startsWith(`${s.variable}_day_BCSD_rcp85_r1i1p1_${s.model}_`)));
  const bytes = files.reduce((n, f) => n + fs.statSync(path.join(srcDir, f)).size, 0);

  fs.rmSync(dataDir, { recursive: true, force: true });
  fs.cpSync(catalogDir, dataDir, { recursive: true });
  const first = await ingestNetcdf({ dataDir, dataset: 'NEX-GDDP', sources: files.map((f) => path.join(srcDir, f)), log: () => {} });
  // Again, now merging into the partitions the first run wrote.
  const again = await ingestNetcdf({ dataDir, dataset: 'NEX-GDDP', sources: files.map((f) => path.join(srcDir, f)), log: () => {} });

  console.log(`\nNetCDF ingest, ${files.length} files (${(bytes / 1e6).toFixed(1)} MB, chunks ${CHUNKS.join('x')}), ${first.partitions} partitions, ${os.cpus().length} cores`);
  console.log('\n| run | read s | values/s | NetCDF MB/s | total s | partitions/s |');
  console.log('|---|---|---|---|---|---|');
  const rows = [];
  for (const [name, s] of [['into empty cells', first], ['again, merging', again]] as const) {
    const row = {
      run: name,
      readSeconds: s.extractSeconds,
      valuesPerSecond: s.values / s.extractSeconds,
      mbPerSecond: s.bytes / 1e6 / s.extractSeconds,
      totalSeconds: s.seconds,
      partitionsPerSecond: s.partitions / (s.seconds - s.extractSeconds),
    };
    rows.push(row);
    console.log(
      `| ${name} | ${row.readSeconds.toFixed(1)} | ${Math.round(row.valuesPerSecond).toLocaleString('en-US')} | ${row.mbPerSecond.toFixed(1)} | ` +
        `${row.totalSeconds.toFixed(1)} | ${row.partitionsPerSecond.toFixed(0)} |`,
    );
  }
  console.log(`\n${first.values.toLocaleString('en-US')} values read per run (cells x days x files)`);
  fs.mkdirSync(path.join(ROOT, 'bench', 'results'), { recursive: true });
  const out = path.join(ROOT, 'bench', 'results', `bench-ingest-${new Date().toISOString().replace(/[:.]/g, '-')}.json`);
  fs.writeFileSync(out, JSON.stringify({ date: new Date().toISOString(), cores: os.cpus().length, files: files.length, bytes, chunks: CHUNKS, rows }, null, 2));
  console.log(`results: ${path.relative(ROOT, out)}`);
}

main().then(
  () => process.exit(0),
  (err: unknown) => {
    console.error(err);
    process.exit(1);
  },
);
