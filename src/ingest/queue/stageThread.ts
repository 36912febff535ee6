import { Worker } from 'node:worker_threads';
import { IngestError } from '../netcdf/ingestError.js';
import type { StagedResult } from '../netcdf/extract.js';

export interface StageRequest {
  folder: string;
  /** The file's number in the job's plan. */
  n: number;
}

/**
 * Reads a file of a job's plan into its staged file on a thread of its own. A global file is
 * decoded synchronously for seconds (a LOCA2 30-year file for minutes): on the worker's own thread
 * that would stop it renewing the task's lease, and the queue would hand the task to another
 * worker while this one still runs it.
 *
 * The compiled service runs stageWorker.js beside this module; from the TypeScript sources (tests,
 * tsx scripts) scripts/ts-worker.mjs registers tsx's loader in the thread and imports stageWorker.ts.
 */
export function stageOnThread(req: StageRequest): Promise<StagedResult> {
  const fromSources = import.meta.url.endsWith('.ts');
  const worker = fromSources
    ? new Worker(new URL('../../../scripts/ts-worker.mjs', import.meta.url), { workerData: { entry: new URL('./stageWorker.ts', import.meta.url).href, ...req } })
    : new Worker(new URL('./stageWorker.js', import.meta.url), { workerData: req });
  return new Promise((resolve, reject) => {
    worker.once('message', (m: { staged?: StagedResult; error?: string; ingestError?: boolean }) => {
      void worker.terminate();
      if (m.staged) resolve(m.staged);
      else reject(m.ingestError ? new IngestError(m.error!) : new Error(m.error));
    });
    worker.once('error', reject);
    worker.once('exit', (code) => reject(new Error(`the thread reading file ${req.n} of ${req.folder} ended (status ${code}) without an answer`)));
  });
}
