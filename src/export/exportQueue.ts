import type { Queue } from 'bullmq';
import type { Redis } from 'ioredis';
import { RedisClaims } from './accountClaims.js';
import type { ExportScheduler } from './exportJobs.js';
import { ExportChildProcess, type RunnerOptions } from './exportProcess.js';
import type { ExportStore } from './exportStore.js';

/**
 * Exports on the queue (BullMQ on Redis, QUEUE_URL): the server adds a task per export; any
 * number of `make export-worker` processes, on machines that see EXPORT_DIR and DATA_DIR, run
 * them. A worker killed mid-export loses its lease (EXPORT_LOCK_MS); the task is run again from
 * the start by a worker, and fails with its reason after a second loss.
 */
export const EXPORT_QUEUE = 'climate-export';

const connectionOf = (url: string) => ({ url, maxRetriesPerRequest: null });

/**
 * BullMQ and ioredis are loaded when a queue is first used, not with this module: every server
 * imports it, and the two cost 0.4 s of CPU at each start of a process that has no QUEUE_URL.
 */
const bullmq = () => import('bullmq');
const ioredis = () => import('ioredis');

export class QueuedExports implements ExportScheduler {
  private readonly queue: Promise<Queue>;
  private redis?: Promise<Redis>;
  /** The replicas share the queue's Redis, so they count an account's exports under one lock. */
  readonly claims: RedisClaims;

  constructor(url: string) {
    this.queue = bullmq().then(({ Queue }) => new Queue(EXPORT_QUEUE, { connection: connectionOf(url) }));
    this.claims = new RedisClaims(() => (this.redis ??= ioredis().then(({ Redis }) => new Redis(url, { maxRetriesPerRequest: 2 }))));
  }

  async enqueue(id: string): Promise<void> {
    await (await this.queue).add('export', { id }, { jobId: id, attempts: 2, backoff: { type: 'fixed', delay: 1000 }, removeOnComplete: true, removeOnFail: 1000 });
  }

  async close(): Promise<void> {
    await (await this.queue).close();
    (await this.redis)?.disconnect();
  }
}

export interface ExportWorkerOptions {
  queueUrl: string;
  store: ExportStore;
  /** The data build exports read (DATA_DIR). */
  dataDir: string;
  runner: RunnerOptions;
  lockMs: number;
  log: (line: string) => void;
}

/**
 * Works export tasks one at a time until closed, each in the worker's export child
 * (ExportChildProcess): a run whose child stops (out of memory, a crash) fails that attempt, and the
 * queue tries it once more; a worker killed itself loses the task's lease, with the same result.
 */
export async function startExportWorker(opts: ExportWorkerOptions): Promise<{ close(): Promise<void> }> {
  let runner: ExportChildProcess | undefined;
  const { Worker } = await bullmq();
  const worker = new Worker(
    EXPORT_QUEUE,
    async (task) => {
      const id = String((task.data as { id: string }).id);
      opts.log(`[export-worker ${process.pid}] running ${id} (attempt ${task.attemptsStarted})`);
      const result = await (runner ??= new ExportChildProcess(opts.runner)).run(id, opts.dataDir);
      if (result.kind === 'stopped') {
        runner = undefined;
        opts.log(`[export-worker ${process.pid}] ${id}: the runner stopped: ${result.reason}`);
        throw new Error(`the last time ${result.reason}`);
      }
      opts.log(`[export-worker ${process.pid}] ${id}: ${result.outcome}`);
    },
    { connection: connectionOf(opts.queueUrl), concurrency: 1, lockDuration: opts.lockMs, stalledInterval: opts.lockMs, maxStalledCount: 1 },
  );
  // A task lost twice (its workers killed) or failing outright: the job says why.
  worker.on('failed', (task, err) => {
    if (!task) return;
    const id = String((task.data as { id: string }).id);
    const final = task.attemptsMade >= (task.opts.attempts ?? 1) || /stalled/i.test(err.message);
    if (!final) return;
    const failed = opts.store.update(id, () => ({
      status: 'failed',
      files: [],
      error: `The export's worker stopped before it was done, on each of its attempts (${err.message}); nothing was kept. Ask again, for fewer scenarios or a smaller area if it happens again.`,
    }));
    // The files a killed attempt finished are not an export: none may stay under its own name.
    if (failed?.status === 'failed') opts.store.clearFiles(id);
  });
  worker.on('error', (err) => opts.log(`[export-worker ${process.pid}] ${err.message}`));
  // A lease that ran out while its worker still ran the task (a worker starved of CPU for longer
  // than EXPORT_LOCK_MS) also puts the task back: the log says so, since two runs then overlap.
  worker.on('stalled', (jobId) => opts.log(`[export-worker ${process.pid}] ${jobId}: its worker's lease ran out; the queue runs it again`));
  return {
    close: async () => {
      await worker.close();
      await runner?.close();
    },
  };
}
