import { parentPort } from 'node:worker_threads';
import { stageFile } from '../netcdf/extract.js';
import { extractContext } from '../netcdf/extractContext.js';
import { IngestError } from '../netcdf/ingestError.js';
import { JobFolder } from './jobFolder.js';
import type { StageRequest } from './stageThread.js';

/** The thread of stageThread.ts: reads a file of a job's plan into its staged file per request, answers its description or the error. */
parentPort!.postMessage({ ready: true });
parentPort!.on('message', ({ folder, n, local }: StageRequest) => {
  const jobFolder = new JobFolder(folder);
  void (async () => {
    const plan = jobFolder.read();
    const key = plan.files[n]!;
    return stageFile(local ?? key.path, key, jobFolder.partPath(n), extractContext(plan));
  })().then(
    (staged) => parentPort!.postMessage({ staged }),
    (err: unknown) => parentPort!.postMessage({ error: err instanceof Error ? err.message : String(err), ingestError: err instanceof IngestError }),
  );
});
