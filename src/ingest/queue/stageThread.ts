import type { Worker } from 'node:worker_threads';
import { startThread } from '../../threads.js';
import type { StagedResult } from '../netcdf/extract.js';
import { IngestError } from '../netcdf/ingestError.js';

export interface StageRequest {
  folder: string;
  /** The file's number in the job's plan. */
  n: number;
  /** Where the file is on this machine, when not at its key's path (a queued fetch's download). */
  local?: string;
}

/**
 * Reads files of a job's plan into their staged files on a thread of its own, one at a time. A
 * global file is decoded synchronously for seconds (a LOCA2 30-year file for minutes): on the
 * worker's own thread that would stop it renewing the task's lease, and the queue would hand the
 * task to another worker while this one still runs it. The thread is started once and kept.
 */
export class StageThread {
  private worker: Promise<Worker> | undefined;

  async stage(req: StageRequest): Promise<StagedResult> {
    const worker = await (this.worker ??= startThread(import.meta.url, 'stageWorker'));
    return new Promise((resolve, reject) => {
      const onExit = (code: number) => {
        this.worker = undefined;
        reject(new Error(`the thread reading file ${req.n} of ${req.folder} ended (status ${code}) without an answer`));
      };
      worker.once('exit', onExit);
      worker.once('message', (m: { staged?: StagedResult; error?: string; ingestError?: boolean }) => {
        worker.off('exit', onExit);
        if (m.staged) resolve(m.staged);
        else reject(m.ingestError ? new IngestError(m.error!) : new Error(m.error));
      });
      worker.postMessage(req);
    });
  }

  async close() {
    const w = this.worker;
    this.worker = undefined;
    if (w) await (await w).terminate();
  }
}
