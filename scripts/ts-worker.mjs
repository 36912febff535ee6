// A worker thread started from the TypeScript sources (tests, tsx scripts): registers tsx's loader,
// then imports the module workerData.entry names. The compiled server starts its .js workers
// directly and never loads this file (src/threads.ts).
import { workerData } from 'node:worker_threads';
import { register } from 'tsx/esm/api';

register();
await import(workerData.entry);
