/**
 * `make ingest-worker QUEUE_URL=redis://... [EXIT_WHEN_IDLE=1]`: works the tasks of queued ingests
 * (src/ingest/queue/worker.ts), one at a time; run as many as there are cores, on any machines that
 * see SRC and DATA_DIR at the same paths. SIGINT/SIGTERM finish the task under way, then end.
 * Exit status 0 (idle with EXIT_WHEN_IDLE=1, or stopped), 2 bad configuration.
 */
import { loadConfig } from '../config.js';
import { runWorker } from '../ingest/queue/worker.js';

let config;
try {
  config = loadConfig();
  if (!config.QUEUE_URL) throw new Error('QUEUE_URL is required: the Redis holding the ingest queue, e.g. QUEUE_URL=redis://127.0.0.1:6379');
} catch (err) {
  console.error(`${(err as Error).message}\nUsage: make ingest-worker QUEUE_URL=redis://host:port [EXIT_WHEN_IDLE=1]`);
  process.exit(2);
}

runWorker({ queueUrl: config.QUEUE_URL, exitWhenIdle: config.EXIT_WHEN_IDLE, lockMs: config.INGEST_LOCK_MS }).then(
  () => process.exit(0),
  (err: unknown) => {
    console.error(`The worker stopped: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}`);
    process.exit(1);
  },
);
