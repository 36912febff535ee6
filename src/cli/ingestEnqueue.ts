/**
 * `make ingest-enqueue DATASET=... SRC=... [BBOX=...] [POINTS=...] QUEUE_URL=redis://...`: plans an
 * ingest into the build DATA_DIR names (a symlink) as tasks on the queue (src/ingest/queue/) and
 * prints the job id on stdout; `make ingest-worker` processes work them, `make ingest-status` follows.
 * Exit status 0 enqueued, 1 refused (the message says why), 2 bad arguments.
 */
import path from 'node:path';
import { parseArgs } from 'node:util';
import { loadConfig } from '../config.js';
import { parseBbox, type Bbox } from '../ingest/netcdf/cellSelection.js';
import { IngestError, parsePoints } from '../ingest/netcdf/ingest.js';
import { enqueueIngest } from '../ingest/queue/enqueue.js';

const USAGE = 'Usage: make ingest-enqueue DATASET=NEX-GDDP|LOCA|NEX-GDDP-CMIP6|LOCA2 SRC=<NetCDF file or folder> [BBOX=west,south,east,north] [POINTS="lat,lon;lat,lon"] QUEUE_URL=redis://host:port [DATA_DIR=<symlink to a build>]';

function usageError(message: string): never {
  console.error(`${message}\n${USAGE}`);
  process.exit(2);
}

let args;
try {
  ({ values: args } = parseArgs({ options: { dataset: { type: 'string' }, src: { type: 'string' }, points: { type: 'string' }, bbox: { type: 'string' } } }));
} catch (err) {
  usageError((err as Error).message);
}
if (!args.dataset || !args.src) usageError('DATASET (--dataset) and SRC (--src) are required.');

let queueUrl: string;
let dataDir: string;
let points: { lat: number; lon: number }[];
let bbox: Bbox | undefined;
try {
  const config = loadConfig();
  if (!config.QUEUE_URL) throw new Error('QUEUE_URL is required: the Redis holding the ingest queue, e.g. QUEUE_URL=redis://127.0.0.1:6379');
  queueUrl = config.QUEUE_URL;
  dataDir = path.resolve(config.DATA_DIR);
  points = parsePoints(args.points);
  bbox = parseBbox(args.bbox);
} catch (err) {
  usageError((err as Error).message);
}

enqueueIngest({ queueUrl, dataDir, dataset: args.dataset, sources: args.src.split(',').map((s) => s.trim()), points, ...(bbox ? { bbox } : {}), log: (l) => console.error(l) }).then(
  (r) => {
    console.error(`enqueued ${r.files} map tasks (one per file) for ${r.cells} target cells; the job's folder is ${r.folder}, its build will be ${r.next}`);
    console.error(`work it with: make ingest-worker QUEUE_URL=${queueUrl} (as many as you like); follow it with: make ingest-status QUEUE_URL=${queueUrl} JOB=${r.job}`);
    console.log(r.job);
    process.exit(0);
  },
  (err: unknown) => {
    console.error(`The ingest was not enqueued: ${err instanceof Error ? err.message : String(err)}`);
    if (err instanceof Error && !(err instanceof IngestError) && err.stack) console.error(`\n${err.stack}`);
    process.exit(1);
  },
);
