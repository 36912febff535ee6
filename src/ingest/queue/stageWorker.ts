import { parentPort, workerData } from 'node:worker_threads';
import { stageFile } from '../netcdf/extract.js';
import { IngestError } from '../netcdf/ingestError.js';
import { extractContext } from '../netcdf/ingest.js';
import { JobFolder } from './jobFolder.js';
import type { StageRequest } from './stageThread.js';

/** The thread of stageThread.ts: reads one file of a job's plan into its staged file, answers its description or the error. */
const { folder, n } = workerData as StageRequest;
const jobFolder = new JobFolder(folder);
const plan = jobFolder.read();
const key = plan.files[n]!;
stageFile(key.path, key, jobFolder.stagedPath(n), extractContext(plan)).then(
  (staged) => parentPort!.postMessage({ staged }),
  (err: unknown) => parentPort!.postMessage({ error: err instanceof Error ? err.message : String(err), ingestError: err instanceof IngestError }),
);
