/**
 * `make export-worker QUEUE_URL=redis://...`: runs the export jobs that servers with QUEUE_URL put
 * on the queue (src/export/exportQueue.ts), one at a time; run any number, on machines that see
 * the same EXPORT_DIR and DATA_DIR as the servers. SIGINT/SIGTERM finish the export under way, then
 * end. Exit status 0 when stopped, 1 on a fault, 2 bad configuration.
 */
import { loadConfig, type Config } from '../config.js';
import { runnerOptions } from '../export/exportProcess.js';
import { startExportWorker } from '../export/exportQueue.js';
import { ExportStore } from '../export/exportStore.js';

let config: Config;
try {
  config = loadConfig();
  if (!config.QUEUE_URL) throw new Error('QUEUE_URL is required: the Redis the servers put export jobs on, e.g. QUEUE_URL=redis://127.0.0.1:6379');
} catch (err) {
  console.error(`${(err as Error).message}\nUsage: make export-worker QUEUE_URL=redis://host:port [EXPORT_DIR=...] [DATA_DIR=...]`);
  process.exit(2);
}

async function main(c: Config) {
  const log = (line: string) => process.stderr.write(`${line}\n`);
  const worker = await startExportWorker({
    queueUrl: c.QUEUE_URL!,
    store: new ExportStore(c.EXPORT_DIR),
    dataDir: c.DATA_DIR,
    runner: runnerOptions(c),
    lockMs: c.EXPORT_LOCK_MS,
    log,
  });
  log(`[export-worker ${process.pid}] waiting for exports on ${c.QUEUE_URL} (EXPORT_DIR ${c.EXPORT_DIR})`);
  for (const signal of ['SIGINT', 'SIGTERM'] as const) {
    process.once(signal, () => {
      log(`[export-worker ${process.pid}] ${signal}: finishing the export under way, then ending`);
      void worker.close().then(() => process.exit(0));
    });
  }
}

main(config!).catch((err: unknown) => {
  console.error(`The export worker stopped: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}`);
  process.exit(1);
});
