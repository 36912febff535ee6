/**
 * `make ingest DATASET=NEX-GDDP SRC=<file or folder> [POINTS="lat,lon;lat,lon"] [BBOX=west,south,east,north]`: reads NetCDF files
 * (NetCDF-4 or NetCDF-3) of one dataset into the data build in DATA_DIR (docs/ingest.md).
 * Compiled, without make: node dist/cli/ingest.js --dataset NEX-GDDP --src <file,folder> [--points="lat,lon;..."] [--bbox=w,s,e,n]
 * BBOX: every cell of the box with values in the files is ingested, besides the catalogue's cities' cells.
 * Progress goes to stderr, with the files skipped (older versions of a file also given, LOCA2 monthly /
 * yearly aggregates, variables other than tasmax, tasmin and pr) and the days where tasmin > tasmax.
 * Exit status 0 done, 1 failed (the message names the file), 2 bad arguments.
 */
import { ingestNetcdf, IngestError } from '../ingest/netcdf/ingest.js';
import { readIngestArgs } from './ingestArgs.js';

const USAGE = `Usage: make ingest DATASET=NEX-GDDP|LOCA|NEX-GDDP-CMIP6|LOCA2 SRC=<NetCDF file or folder> [POINTS="lat,lon;lat,lon"] [BBOX=west,south,east,north] [DATA_DIR=data/build]
   or: node dist/cli/ingest.js --dataset NEX-GDDP|LOCA|NEX-GDDP-CMIP6|LOCA2 --src <file or folder>[,<file or folder>] [--points="lat,lon;lat,lon"] [--bbox=west,south,east,north]`;

const { dataset, sources, dataDir, points, bbox, rangeCells } = readIngestArgs(USAGE);

for (const signal of ['SIGINT', 'SIGTERM'] as const) {
  process.once(signal, () => {
    console.error(`\nInterrupted (${signal}): every partition holds its previous or its new data; run the same command again to finish.`);
    process.exit(130);
  });
}

ingestNetcdf({ dataDir, dataset, sources, points, ...(bbox ? { bbox } : {}), ...(rangeCells ? { rangeCells } : {}) }).then(
  () => process.exit(0),
  (err: unknown) => {
    console.error(`\nThe ingest failed: ${err instanceof Error ? err.message : String(err)}`);
    console.error('No partition is ever half-written: each holds its previous or its new data. Fix the problem and run the same command again; files already read are not read again.');
    if (err instanceof Error && !(err instanceof IngestError) && err.stack) console.error(`\n${err.stack}`);
    process.exit(1);
  },
);
