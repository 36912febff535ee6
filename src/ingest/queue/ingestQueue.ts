import { randomBytes } from 'node:crypto';
import { Queue, type ConnectionOptions, type JobsOptions } from 'bullmq';
import { z } from 'zod';

/**
 * The ingest's tasks on BullMQ (Redis): one job per ingest, a flow whose parent, `publish`, waits
 * for its children. First the `map` tasks, one per input file (read it, stage the target cells'
 * values in one part per range of cells); when they are all done the parent runs, adds one `reduce`
 * task per range (merge the range's parts into its cells' partitions and summaries, in the job's
 * new build) and waits
 * again; when those are done it runs once more and publishes the new build.
 */
export const QUEUE_NAME = 'climate-ingest';

export const connectionOf = (url: string): ConnectionOptions => ({
  url,
  // BullMQ's workers need commands to wait for Redis while it is restarted, not fail.
  maxRetriesPerRequest: null,
});

/** A task that fails 3 times fails its job (failParentOnFailure), with its reason. */
export const TASK_OPTIONS: JobsOptions = { attempts: 3, backoff: { type: 'fixed', delay: 1000 }, failParentOnFailure: true };

export const newJobId = () => `ingest-${Date.now().toString(36)}-${randomBytes(3).toString('hex')}`;
export const mapTaskId = (job: string, n: number) => `${job}.map.${n}`;
export const reduceTaskId = (job: string, n: number) => `${job}.reduce.${n}`;

export const mapData = z.object({ job: z.string(), folder: z.string(), n: z.number().int(), file: z.string() });
/** `n`: the range of cells (cellRanges.ts) the task reduces, from its staged parts. */
export const reduceData = z.object({ job: z.string(), folder: z.string(), n: z.number().int() });
export const publishData = z.object({
  job: z.string(),
  folder: z.string(),
  dataset: z.string(),
  files: z.number().int(),
  /** `reduce`: plan and add the reduce tasks; `publish`: they are done, publish. */
  step: z.enum(['reduce', 'publish']),
  reduces: z.number().int().optional(),
});
export type MapData = z.infer<typeof mapData>;
export type ReduceData = z.infer<typeof reduceData>;
export type PublishData = z.infer<typeof publishData>;

/** What each task returns (kept by BullMQ with the job; make ingest-status reads it). */
export interface MapResult {
  kind: 'map';
  file: string;
  bytes: number;
  /** Bytes of the file's staged parts. */
  stagedBytes: number;
  valuesDecoded: number;
  valuesRead: number;
  /** Cells with values x days. */
  valuesStored: number;
  /** The file was already staged by a run of this task that was killed after staging it. */
  resumed: boolean;
  skipped?: string;
  /** A queued fetch's download of the file: what the build's fetch record keeps. */
  fetched?: { url: string; bytes: number; md5: string; checked: boolean };
}
export interface ReduceResult {
  kind: 'reduce';
  /** Cells of the range with values. */
  cells: number;
  /** The range's staged parts read (one per file), and the bytes read from them. */
  parts: number;
  stagedBytesRead: number;
  withData: number[];
  partitions: number;
  changed: number;
  summaries: number;
  skipped?: string;
}
export interface PublishResult {
  kind: 'publish';
  published: boolean;
  build: string;
  build_id: string;
  previous_build_id: string;
  cellsWithData: number;
  newCells: number;
  partitions: number;
  partitionsChanged: number;
}

export function openQueue(url: string): Queue {
  return new Queue(QUEUE_NAME, { connection: connectionOf(url) });
}
