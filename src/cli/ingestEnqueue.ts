/**
 * `make ingest-enqueue DATASET=... SRC=... [BBOX=...] [POINTS=...] QUEUE_URL=redis://...`: plans an
 * ingest into the build DATA_DIR names (a symlink) as tasks on the queue (src/ingest/queue/) and
 * prints the job id on stdout; `make ingest-worker` processes work them, `make ingest-status` follows.
 * Exit status 0 enqueued, 1 refused (the message says why), 2 bad arguments.
 */
import { IngestError } from '../ingest/netcdf/ingest.js';
import { enqueueIngest } from '../ingest/queue/enqueue.js';
import { readIngestArgs } from './ingestArgs.js';

const USAGE = 'Usage: make ingest-enqueue DATASET=NEX-GDDP|LOCA|NEX-GDDP-CMIP6|LOCA2 SRC=<NetCDF file or folder> [BBOX=west,south,east,north] [POINTS="lat,lon;lat,lon"] [RANGE_CELLS=512] QUEUE_URL=redis://host:port [DATA_DIR=<symlink to a build>]';

const { config, dataset, sources, dataDir, points, bbox, rangeCells } = readIngestArgs(USAGE, (c) => {
  if (!c.QUEUE_URL) throw new Error('QUEUE_URL is required: the Redis holding the ingest queue, e.g. QUEUE_URL=redis://127.0.0.1:6379');
});
const queueUrl = config.QUEUE_URL!;

enqueueIngest({ queueUrl, dataDir, dataset, sources, points, ...(bbox ? { bbox } : {}), ...(rangeCells ? { rangeCells } : {}), log: (l) => console.error(l) }).then(
  (r) => {
    console.error(`enqueued ${r.files} map tasks (one per file) for ${r.cells} target cells in ${r.ranges} ranges (one reduce task each); the job's folder is ${r.folder}, its build will be ${r.next}`);
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
