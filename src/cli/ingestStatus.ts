/**
 * `make ingest-status QUEUE_URL=redis://... JOB=<id> [WAIT=1]`: a queued ingest's progress (tasks
 * done per stage, values decoded and stored per second, the slowest tasks, failures and their
 * reasons). Exit status 0 once the job is published (or found nothing to change), 1 when it failed
 * (saying why and what to do), 3 while it runs; WAIT=1 prints it every 5 s until it ends.
 * 2 bad arguments or no such job.
 */
import { parseArgs } from 'node:util';
import { loadConfig } from '../config.js';
import { openQueue } from '../ingest/queue/ingestQueue.js';
import { formatStatus, jobStatus } from '../ingest/queue/status.js';

const USAGE = 'Usage: make ingest-status QUEUE_URL=redis://host:port JOB=<id printed by make ingest-enqueue> [WAIT=1]';
let config;
let job = '';
let wait = false;
try {
  const { values } = parseArgs({ options: { job: { type: 'string' }, wait: { type: 'string' } } });
  job = values.job ?? '';
  wait = values.wait === '1';
  config = loadConfig();
  if (!config.QUEUE_URL) throw new Error('QUEUE_URL is required');
  if (job === '') throw new Error('JOB is required');
} catch (err) {
  console.error(`${(err as Error).message}\n${USAGE}`);
  process.exit(2);
}
const queue = openQueue(config.QUEUE_URL);

async function main(): Promise<number> {
  for (;;) {
    const s = await jobStatus(queue, job);
    if (!s) {
      console.error(`No ingest job ${job} in the queue at ${config!.QUEUE_URL}.\n${USAGE}`);
      return 2;
    }
    console.log(formatStatus(s));
    const code = s.state === 'published' || s.state === 'unchanged' ? 0 : s.state === 'failed' ? 1 : 3;
    if (code !== 3 || !wait) return code;
    await new Promise((r) => setTimeout(r, 5000));
  }
}

main().then(
  async (code) => {
    await queue.close();
    process.exit(code);
  },
  (err: unknown) => {
    console.error(err instanceof Error ? err.message : String(err));
    process.exit(1);
  },
);
