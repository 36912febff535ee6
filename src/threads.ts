import { Worker } from 'node:worker_threads';

/**
 * Starts the worker thread of the module `name` beside the caller's (`from`: its import.meta.url)
 * and resolves once the thread posts its first message, that it is ready. The compiled service runs
 * `name.js`; from the TypeScript sources (tests, tsx scripts) scripts/ts-worker.mjs registers tsx's
 * loader in the thread and imports `name.ts`.
 */
export function startThread(from: string, name: string): Promise<Worker> {
  const worker = from.endsWith('.ts')
    ? new Worker(new URL('../scripts/ts-worker.mjs', import.meta.url), { workerData: { entry: new URL(`./${name}.ts`, from).href } })
    : new Worker(new URL(`./${name}.js`, from));
  return new Promise((resolve, reject) => {
    worker.once('message', () => {
      worker.off('error', reject);
      resolve(worker);
    });
    worker.once('error', reject);
  });
}
