/**
 * `make bench-ingest` (also run by `make bench`): where an ingest's seconds go, on files shaped as
 * the publishers' (the scale model, scripts/archiveModel/archive.ts):
 * - nex6: three full-size NEX-GDDP-CMIP6 files (tasmax, tasmin, pr of ACCESS-CM2 ssp245 2050:
 *   1440 x 600 x 365 float32 each, a day per chunk, shuffle + deflate), ingested with a BBOX (default
 *   a 5 x 5 degree box of Colorado and Kansas) besides the catalogue's city cells. A regional read
 *   of a global file with a day per chunk decodes the whole globe.
 * - loca2: one LOCA2 30-year file (tasmax 2015-2044, 10,958 days) of a 6 x 6 degree region (96 x 96
 *   cells, a day per chunk), ingested for a 1 x 1 degree box in it.
 * Each case runs BENCH_INGEST_RUNS times (3) into a fresh copy of a catalog-only build; the table
 * shows medians (and the range): values decoded (whole chunks) and values stored (cells with
 * values x days) per second, of wall time and of this process's CPU time (user + system, DuckDB's
 * and zlib's threads included: other programs share the cores), and each step's wall seconds.
 *   BENCH_INGEST_ONLY=nex6|loca2, BENCH_INGEST_BBOX=west,south,east,north (nex6).
 * Work files go to .tmp/bench-ingest (the archive is kept between runs).
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { planArchive, writeArchive, type ArchiveRequest } from '../scripts/archiveModel/archive.js';
import { ROOT } from '../src/config.js';
import { buildDataset } from '../src/ingest/build.js';
import { parseBbox, type Bbox } from '../src/ingest/netcdf/cellSelection.js';
import { ingestNetcdf, type IngestSummary } from '../src/ingest/netcdf/ingest.js';

const WORK = path.join(ROOT, '.tmp', 'bench-ingest');
const RUNS = Number(process.env.BENCH_INGEST_RUNS ?? 3);
const catalogDir = path.join(WORK, 'catalog-build');
const dataDir = path.join(WORK, 'build');
const archiveRoot = path.join(WORK, 'archive');

interface Case {
  name: string;
  dataset: 'NEX-GDDP-CMIP6' | 'LOCA2';
  archive: ArchiveRequest;
  bbox: Bbox;
}

const LOCA2_BOX: Bbox = [-105.5, 39.5, -104.5, 40.5];
const CASES: Case[] = [
  {
    name: 'nex6',
    dataset: 'NEX-GDDP-CMIP6',
    archive: { dataset: 'NEX-GDDP-CMIP6', models: ['ACCESS-CM2'], scenarios: ['ssp245'], years: [2050, 2050], variables: ['tasmax', 'tasmin', 'pr'] },
    bbox: parseBbox(process.env.BENCH_INGEST_BBOX) ?? [-105, 37, -100, 42],
  },
  {
    name: 'loca2',
    dataset: 'LOCA2',
    archive: { dataset: 'LOCA2', models: ['ACCESS-CM2'], scenarios: ['ssp245'], years: [2015, 2044], variables: ['tasmax'], bbox: [-108, 37, -102, 43] },
    bbox: LOCA2_BOX,
  },
];

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
const fmt = (xs: number[], scale = 1, digits = 1) => {
  const m = (median(xs) / scale).toFixed(digits);
  return xs.length > 1 ? `${m} (${(Math.min(...xs) / scale).toFixed(digits)}-${(Math.max(...xs) / scale).toFixed(digits)})` : m;
};

async function runCase(c: Case) {
  const files = planArchive(c.archive);
  // Files are kept between runs; a folder per request, as a changed box keeps the publisher's names.
  const archiveDir = path.join(archiveRoot, `${c.name}-${c.archive.bbox ? c.archive.bbox.join('_') : 'whole'}`);
  const t0 = Date.now();
  const { written } = await writeArchive(archiveDir, files, (line) => console.log(`  wrote ${line}`));
  if (written.length > 0) console.log(`  wrote ${written.length} files in ${((Date.now() - t0) / 1000).toFixed(0)} s`);
  const paths = files.map((f) => path.join(archiveDir, f.path));
  const bytes = paths.reduce((n, p) => n + fs.statSync(p).size, 0);
  const runs: { s: IngestSummary; cpu: number }[] = [];
  for (let r = 0; r < RUNS; r++) {
    fs.rmSync(dataDir, { recursive: true, force: true });
    fs.cpSync(catalogDir, dataDir, { recursive: true });
    const cpu0 = process.cpuUsage();
    const s = await ingestNetcdf({ dataDir, dataset: c.dataset, sources: paths, bbox: c.bbox, log: () => {} });
    const cpu = process.cpuUsage(cpu0);
    runs.push({ s, cpu: (cpu.user + cpu.system) / 1e6 });
    console.log(`  run ${r + 1}: ${s.seconds.toFixed(1)} s, ${((cpu.user + cpu.system) / 1e6).toFixed(1)} s CPU`);
  }
  const s0 = runs[0]!.s;
  const col = (f: (x: { s: IngestSummary; cpu: number }) => number) => runs.map(f);
  console.log(
    `\n### ${c.name}: ${files.length} ${c.dataset} files, ${(bytes / 1e6).toFixed(0)} MB, BBOX ${c.bbox.join(',')}; ` +
      `${s0.valuesDecoded.toLocaleString('en-US')} values decoded, ${s0.valuesStored.toLocaleString('en-US')} stored ` +
      `(${s0.partitions} partitions: box and city cells with values; ${s0.cellsSkipped} cells without values skipped); ${os.cpus().length} cores\n`,
  );
  console.log('| measure | median (range) |\n|---|---|');
  const rows: [string, string][] = [
    ['read: values decoded / CPU s (M)', fmt(col((x) => x.s.valuesDecoded / x.s.extractCpuSeconds), 1e6)],
    ['read: values decoded / wall s (M)', fmt(col((x) => x.s.valuesDecoded / x.s.extractSeconds), 1e6)],
    ['read: wall s', fmt(col((x) => x.s.extractSeconds))],
    ['read: CPU s', fmt(col((x) => x.s.extractCpuSeconds))],
    ['- metadata (open, names, coordinates, dates) s', fmt(col((x) => x.s.map.metadata), 1, 2)],
    ['- chunk index s', fmt(col((x) => x.s.decode.index), 1, 3)],
    ['- pread s', fmt(col((x) => x.s.decode.read), 1, 2)],
    ['- inflate s', fmt(col((x) => x.s.decode.inflate), 1, 2)],
    ['- unshuffle s', fmt(col((x) => x.s.decode.unshuffle), 1, 2)],
    ['- copy out of chunks s', fmt(col((x) => x.s.decode.copy), 1, 2)],
    ['- into each cell\'s series s', fmt(col((x) => x.s.map.cells), 1, 2)],
    ['- staged file written s', fmt(col((x) => x.s.map.write), 1, 2)],
    ['write: wall s', fmt(col((x) => x.s.reduceSeconds))],
    ['write: CPU s', fmt(col((x) => x.s.reduceCpuSeconds))],
    ['- staged values merged into rows s', fmt(col((x) => x.s.reduce.rows), 1, 2)],
    ['- partitions (Parquet) s', fmt(col((x) => x.s.reduce.partitions), 1, 2)],
    ['- summaries s', fmt(col((x) => x.s.reduce.summaries), 1, 2)],
    ['partitions / wall s', fmt(col((x) => x.s.partitions / x.s.reduceSeconds))],
    ['values stored / wall s, whole ingest (M)', fmt(col((x) => x.s.valuesStored / x.s.seconds), 1e6, 2)],
    ['values stored / CPU s, whole ingest (M)', fmt(col((x) => x.s.valuesStored / x.cpu), 1e6, 2)],
    ['whole ingest: wall s', fmt(col((x) => x.s.seconds))],
    ['whole ingest: CPU s', fmt(col((x) => x.cpu))],
  ];
  for (const [k, v] of rows) console.log(`| ${k} | ${v} |`);
  return { case: c.name, dataset: c.dataset, bbox: c.bbox, files: files.length, bytes, runs: runs.map(({ s, cpu }) => ({ ...s, skipped: s.skipped.length, inverted: s.inverted.length, cpu })) };
}

async function main() {
  if (!fs.existsSync(path.join(catalogDir, 'manifest.json'))) {
    console.log('building a catalog-only data build (no climate data) ...');
    await buildDataset({ outDir: catalogDir, climateCities: 0, seed: 1, log: () => {} });
  }
  const only = process.env.BENCH_INGEST_ONLY;
  const results = [];
  for (const c of CASES) {
    if (only && only !== c.name) continue;
    console.log(`\n${c.name}: ${RUNS} runs`);
    results.push(await runCase(c));
  }
  fs.mkdirSync(path.join(ROOT, 'bench', 'results'), { recursive: true });
  const out = path.join(ROOT, 'bench', 'results', `bench-ingest-${new Date().toISOString().replace(/[:.]/g, '-')}.json`);
  fs.writeFileSync(out, JSON.stringify({ date: new Date().toISOString(), cores: os.cpus().length, load: os.loadavg(), results }, null, 2));
  console.log(`\nresults: ${path.relative(ROOT, out)}`);
}

main().then(
  () => process.exit(0),
  (err: unknown) => {
    console.error(err);
    process.exit(1);
  },
);
