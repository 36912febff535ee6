import path from 'node:path';
import { Worker, type Job } from 'bullmq';
import { connectionOf, openQueue, QUEUE_NAME, type MapResult, type PublishResult, type ReduceResult } from './ingestQueue.js';
import { IngestTasks } from './tasks.js';

export interface WorkerOptions {
  queueUrl: string;
  /** End once no task of any job is waiting, running or planned. */
  exitWhenIdle: boolean;
  /** How long a task stays this worker's without a renewal (BullMQ's lockDuration). */
  lockMs: number;
  log?: (line: string) => void;
}

/** How often an idle worker with exitWhenIdle asks whether anything is left. */
const IDLE_POLL_MS = 1000;

/**
 * Works the ingest queue's tasks one at a time until stopped (or, with exitWhenIdle, until nothing
 * is left). A task of a worker that died (SIGKILL, a lost machine) is noticed by the other workers'
 * stalled-job check once its lock has expired and run again; one found stalled 3 times fails.
 */
export async function runWorker(opts: WorkerOptions): Promise<void> {
  const log = opts.log ?? ((line: string) => process.stderr.write(`${line}\n`));
  const queue = openQueue(opts.queueUrl);
  const tasks = new IngestTasks(queue, log);
  let running = 0;
  const describe = (job: Job) => `${job.name} ${job.id}${job.name === 'map' ? ` ${path.basename(String(job.data.file))}` : ''}${job.name === 'reduce' ? ` (range ${String(job.data.n)})` : ''}`;
  const worker = new Worker(
    QUEUE_NAME,
    async (job, token) => {
      running++;
      const started = Date.now();
      log(`[worker ${process.pid}] started ${describe(job)} (attempt ${job.attemptsStarted})`);
      try {
        const result = await tasks.run(job, token);
        log(`[worker ${process.pid}] done ${describe(job)} in ${((Date.now() - started) / 1000).toFixed(2)} s${summary(result)}`);
        return result;
      } finally {
        running--;
      }
    },
    {
      connection: connectionOf(opts.queueUrl),
      concurrency: 1,
      lockDuration: opts.lockMs,
      stalledInterval: opts.lockMs,
      maxStalledCount: 3,
    },
  );
  worker.on('failed', (job, err) => {
    if (err.name === 'WaitingChildrenError' || !job) return;
    log(`[worker ${process.pid}] failed ${describe(job)} (attempt ${job.attemptsMade} of ${job.opts.attempts ?? 1}): ${err.message}`);
  });
  worker.on('error', (err) => log(`[worker ${process.pid}] ${err.message}`));

  const stop = async () => {
    await worker.close();
    await tasks.close();
    await queue.close();
  };
  for (const signal of ['SIGINT', 'SIGTERM'] as const) {
    process.once(signal, () => {
      log(`[worker ${process.pid}] ${signal}: finishing the task under way, then ending`);
      void stop().then(() => process.exit(0));
    });
  }
  if (!opts.exitWhenIdle) return new Promise(() => {});
  for (;;) {
    await new Promise((r) => setTimeout(r, IDLE_POLL_MS));
    if (running > 0) continue;
    const counts = await queue.getJobCounts('active', 'wait', 'waiting', 'delayed', 'prioritized', 'waiting-children');
    if (Object.values(counts).every((n) => n === 0) && running === 0) break;
  }
  log(`[worker ${process.pid}] nothing left to do: ending (EXIT_WHEN_IDLE=1)`);
  await stop();
}

function summary(result: MapResult | ReduceResult | PublishResult | undefined): string {
  if (!result) return '';
  if (result.kind === 'map') return result.skipped ? ` (skipped: ${result.skipped})` : `: ${result.valuesDecoded.toLocaleString('en-US')} values decoded${result.resumed ? ' (staged by an earlier run)' : ''}`;
  if (result.kind === 'reduce') return result.skipped ? ` (skipped: ${result.skipped})` : `: ${result.cells} cells, ${result.partitions} partitions (${result.changed} changed), ${result.summaries} summaries; read ${result.parts} staged parts, ${result.stagedBytesRead.toLocaleString('en-US')} bytes`;
  return result.published ? `: published build ${result.build_id}` : ': nothing changed';
}
