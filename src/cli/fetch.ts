/**
 * `make fetch DATASET=NEX-GDDP-CMIP6|NEX-GDDP|LOCA|LOCA2 BBOX=west,south,east,north|POINTS="lat,lon;..." [SCENARIOS=...] [MODELS=...]
 * [VARIABLES=...] [YEARS=1950:2100] [VIA=s3|ncss] [DRY_RUN=1] [FORCE=1] [QUEUE_URL=redis://...]`: lists the publisher's files of the selection from
 * its own index, downloads them a few at a time (resumed, checked, retried) and ingests them into
 * DATA_DIR as make ingest does, deleting each download once staged (src/ingest/fetchRegion.ts);
 * with QUEUE_URL, enqueues the ingest instead, each map task downloading its own file, and prints
 * the job id on stdout (make ingest-worker works it).
 * Progress on stderr. Exit status 0 done, 1 failed (the message names the URL or file), 2 bad arguments.
 */
import path from 'node:path';
import { parseArgs } from 'node:util';
import { loadConfig } from '../config.js';
import { FetchError } from '../ingest/archive/fetchError.js';
import { parseBbox } from '../ingest/netcdf/cellSelection.js';
import { IngestError, parsePoints } from '../ingest/netcdf/ingest.js';
import { fetchRegion } from '../ingest/fetchRegion.js';
import { usageError } from './ingestArgs.js';

const USAGE = `Usage: make fetch DATASET=NEX-GDDP-CMIP6|NEX-GDDP|LOCA|LOCA2 BBOX=west,south,east,north|POINTS="lat,lon;lat,lon" [SCENARIOS=historical,ssp245] [MODELS=ACCESS-CM2,MIROC6] [VARIABLES=tasmax,tasmin,pr] [YEARS=1950:2100] [VIA=s3|ncss (NEX-GDDP-CMIP6)] [DRY_RUN=1] [FORCE=1] [QUEUE_URL=redis://...] [DATA_DIR=data/build]`;

let args;
try {
  ({ values: args } = parseArgs({
    options: Object.fromEntries(['dataset', 'bbox', 'points', 'scenarios', 'models', 'variables', 'years', 'dry-run', 'via', 'range-cells', 'force'].map((k) => [k, { type: 'string' as const }])),
  }));
} catch (err) {
  usageError((err as Error).message, USAGE);
}
const list = (text: string | undefined) => (text && text.trim() !== '' ? text.split(',').map((s) => s.trim()).filter((s) => s !== '') : undefined);

function parseYears(text: string | undefined): [number, number] | undefined {
  if (!text || text.trim() === '') return undefined;
  const m = /^\s*(\d{4})\s*(?:[:-]\s*(\d{4}))?\s*$/.exec(text);
  if (!m || Number(m[2] ?? m[1]) < Number(m[1])) throw new Error(`YEARS takes first:last (1950:2100) or one year (2050); got '${text}'`);
  return [Number(m[1]), Number(m[2] ?? m[1])];
}

let opts;
try {
  if (!args.dataset) throw new Error('DATASET (--dataset) is required.');
  if (args.via && !['', 's3', 'ncss'].includes(args.via)) {
    throw new Error(`VIA takes s3 (whole files from the bucket, the default) or ncss (NEX-GDDP-CMIP6 subsets of the box from NASA's THREDDS NCSS); got '${args.via}'`);
  }
  const config = loadConfig();
  const dataDir = path.resolve(config.DATA_DIR);
  const bbox = parseBbox(args.bbox);
  const rangeCells = args['range-cells'] && args['range-cells'] !== '' ? Number(args['range-cells']) : undefined;
  if (rangeCells !== undefined && !(Number.isInteger(rangeCells) && rangeCells > 0)) throw new Error(`RANGE_CELLS takes a whole number of cells, 1 or more; got '${args['range-cells']}'`);
  const [models, scenarios, variables, years] = [list(args.models), list(args.scenarios), list(args.variables), parseYears(args.years)];
  opts = {
    dataDir,
    dataset: args.dataset,
    ...(bbox ? { bbox } : {}),
    points: parsePoints(args.points),
    ...(models ? { models } : {}),
    ...(scenarios ? { scenarios } : {}),
    ...(variables ? { variables } : {}),
    ...(years ? { years } : {}),
    ...(rangeCells ? { rangeCells } : {}),
    dryRun: args['dry-run'] === '1',
    force: args.force === '1',
    archiveUrls: {
      'NEX-GDDP-CMIP6': config.ARCHIVE_URL_NEX_GDDP_CMIP6,
      'NEX-GDDP': config.ARCHIVE_URL_NEX_GDDP,
      LOCA: config.ARCHIVE_URL_LOCA,
      LOCA2: config.ARCHIVE_URL_LOCA2,
    },
    via: args.via === 'ncss' ? ('ncss' as const) : ('s3' as const),
    ncssUrl: config.NCSS_URL_NEX_GDDP_CMIP6,
    concurrency: config.FETCH_CONCURRENCY,
    keepDownloads: config.KEEP_DOWNLOADS,
    downloadDir: path.resolve(config.DOWNLOAD_DIR ?? path.join(path.dirname(dataDir), 'downloads')),
    statedRateMbps: config.FETCH_RATE_MBPS,
    ...(config.QUEUE_URL ? { queueUrl: config.QUEUE_URL } : {}),
  };
} catch (err) {
  usageError((err as Error).message, USAGE);
}

for (const signal of ['SIGINT', 'SIGTERM'] as const) {
  process.once(signal, () => {
    console.error(`\nInterrupted (${signal}): every partition holds its previous or its new data; run the same command again: files staged are not downloaded again, partial downloads resume.`);
    process.exit(130);
  });
}

fetchRegion(opts).then(
  (r) => {
    // With QUEUE_URL: the job id on stdout, as make ingest-enqueue prints it.
    if (r.job) console.log(r.job);
    process.exit(0);
  },
  (err: unknown) => {
    console.error(`\nThe fetch failed: ${err instanceof Error ? err.message : String(err)}`);
    console.error('No partition is ever half-written: each holds its previous or its new data (a failed download stops the run before any is written). Run the same command again once the cause is fixed: files already staged are not downloaded again, partial downloads resume.');
    if (err instanceof Error && !(err instanceof IngestError) && !(err instanceof FetchError) && err.stack) console.error(`\n${err.stack}`);
    process.exit(1);
  },
);
