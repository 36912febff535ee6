import fs from 'node:fs';
import path from 'node:path';
import { FlowProducer } from 'bullmq';
import { IngestError } from '../netcdf/ingestError.js';
import { openCatalogDb, planIngest, type IngestOptions } from '../netcdf/ingest.js';
import { JobFolder } from './jobFolder.js';
import type { FetchPlan } from './fetchPlan.js';
import type { SourceKey } from '../netcdf/stagedFile.js';
import { rangeCount } from '../netcdf/cellRanges.js';
import { connectionOf, mapTaskId, newJobId, QUEUE_NAME, TASK_OPTIONS, type MapData, type PublishData } from './ingestQueue.js';

/** The single-process ingest's options (the same files, cells and checks), on a queue. */
export interface EnqueueOptions extends Pick<IngestOptions, 'dataset' | 'sources' | 'points' | 'bbox' | 'rangeCells' | 'log'> {
  queueUrl: string;
  /** A symlink to the build being served: the job publishes by repointing it. */
  dataDir: string;
  /** make fetch: the publisher's files instead of `sources` (keys named by URL), and how each map task fetches its own. */
  remoteKeys?: SourceKey[];
  fetch?: FetchPlan;
}

/**
 * Plans an ingest as the single-process one does (the same files, cells and checks), writes the
 * plan into the job's folder and adds the job's flow: one map task per file under its publish
 * task. Returns the job id.
 */
export async function enqueueIngest(opts: EnqueueOptions): Promise<{ job: string; files: number; cells: number; ranges: number; folder: string; next: string }> {
  const log = opts.log ?? (() => {});
  const link = path.resolve(opts.dataDir);
  let isLink = false;
  try {
    isLink = fs.lstatSync(link).isSymbolicLink();
  } catch {
    throw new IngestError(`DATA_DIR ${opts.dataDir} does not exist`);
  }
  if (!isLink) {
    const name = path.basename(link);
    throw new IngestError(
      `DATA_DIR ${opts.dataDir} must be a symlink to a build folder: a queued ingest writes a new build beside it and publishes it by repointing the link. ` +
        `Make it one once (stop the server first): mv ${link} ${link}-1 && ln -s ${name}-1 ${link}`,
    );
  }
  const base = fs.realpathSync(link);
  const job = newJobId();
  const db = await openCatalogDb();
  const conn = await db.connect();
  let plan;
  try {
    plan = await planIngest(conn, { ...opts, dataDir: base, ...(opts.remoteKeys ? { remote: { keys: opts.remoteKeys } } : {}) }, (s) => log(`skipped ${s.file}: ${s.reason}`));
    if (opts.fetch && plan.files.length !== opts.fetch.files.length) {
      throw new IngestError(`the ingest would read ${plan.files.length} of the ${opts.fetch.files.length} files listed (the others are skipped, as said above): a queued fetch takes each file it lists`);
    }
  } finally {
    conn.closeSync();
    await db.close();
  }
  const folder = JobFolder.of(link, job);
  const next = path.join(path.dirname(base), `build-${job}`);
  folder.write({
    job,
    dataset: opts.dataset,
    dataDir: link,
    base,
    next,
    files: plan.keys,
    models: plan.models,
    cellsKey: plan.cellsKey,
    rangeCells: plan.rangeCells,
    cells: plan.cells,
    cityCells: plan.cityCells.length,
    pointCells: plan.pointCells.length,
    boxCells: plan.boxCells.length,
    ...(opts.bbox ? { bbox: opts.bbox } : {}),
    enqueued: new Date().toISOString(),
    // In the plan's file order, which selectFiles may have changed from the listing's.
    ...(opts.fetch ? { fetch: { ...opts.fetch, files: plan.files.map((url) => opts.fetch!.files.find((f) => f.url === url)!) } } : {}),
  });
  const flow = new FlowProducer({ connection: connectionOf(opts.queueUrl) });
  try {
    await flow.add({
      name: 'publish',
      queueName: QUEUE_NAME,
      data: { job, folder: folder.dir, dataset: opts.dataset, files: plan.files.length, step: 'reduce' } satisfies PublishData,
      opts: { jobId: job, attempts: TASK_OPTIONS.attempts!, backoff: TASK_OPTIONS.backoff! },
      children: plan.files.map((file, n) => ({
        name: 'map',
        queueName: QUEUE_NAME,
        data: { job, folder: folder.dir, n, file } satisfies MapData,
        opts: { ...TASK_OPTIONS, jobId: mapTaskId(job, n) },
      })),
    });
  } finally {
    await flow.close();
  }
  return { job, files: plan.files.length, cells: plan.cells.length, ranges: rangeCount(plan.cells.length, plan.rangeCells), folder: folder.dir, next };
}
