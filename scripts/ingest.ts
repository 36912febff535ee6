/**
 * `make ingest DATASET=NEX-GDDP SRC=<file or folder> [POINTS="lat,lon;lat,lon"]`: reads NetCDF files
 * (NetCDF-4 or NetCDF-3) of one dataset into the data build in DATA_DIR (README, "Ingesting NetCDF").
 * Progress goes to stderr. Exit status 0 done, 1 failed (the message names the file), 2 bad arguments.
 */
import path from 'node:path';
import { ROOT } from '../src/config.js';
import { ingestNetcdf, IngestError, parsePoints } from '../src/ingest/netcdf/ingest.js';

const env = (name: string) => (process.env[name] === '' ? undefined : process.env[name]);
const dataDir = path.resolve(env('DATA_DIR') ?? path.join(ROOT, 'data', 'build'));
const dataset = env('DATASET');
const src = env('SRC');
if (!dataset || !src) {
  console.error('Usage: make ingest DATASET=NEX-GDDP|LOCA SRC=<NetCDF file or folder> [POINTS="lat,lon;lat,lon"] [DATA_DIR=data/build]');
  process.exit(2);
}

let points: { lat: number; lon: number }[];
try {
  points = parsePoints(env('POINTS'));
} catch (err) {
  console.error((err as Error).message);
  process.exit(2);
}

for (const signal of ['SIGINT', 'SIGTERM'] as const) {
  process.once(signal, () => {
    console.error(`\nInterrupted (${signal}): every partition holds its previous or its new data; run the same command again to finish.`);
    process.exit(130);
  });
}

ingestNetcdf({ dataDir, dataset, sources: src.split(',').map((s) => s.trim()), points }).then(
  () => process.exit(0),
  (err: unknown) => {
    console.error(`\nThe ingest failed: ${err instanceof Error ? err.message : String(err)}`);
    console.error('No partition is ever half-written: each holds its previous or its new data. Fix the problem and run the same command again; files already read are not read again.');
    if (err instanceof Error && !(err instanceof IngestError) && err.stack) console.error(`\n${err.stack}`);
    process.exit(1);
  },
);
