import { Worker } from 'node:worker_threads';
import type { SummaryRange } from './summaries.js';
import type { SyntheticCell } from './synthetic.js';
import type { CellAnswer, CellRequest } from './cellWorker.js';

/**
 * Builds cells on `threads` worker threads (cellWorker.ts), each cell on the next free thread, and
 * calls `done` for each on this thread as it ends. Since the generator and the summaries in memory
 * run in JavaScript, one event loop would do a third of the build alone: each thread has its own.
 * After an error the threads stop once their current cell is done, and then the first error is
 * thrown, so that nothing is still writing when the caller cleans up.
 *
 * The compiled service runs cellWorker.js beside this module; from the TypeScript sources (tests,
 * tsx scripts) scripts/ts-worker.mjs registers tsx's loader in the thread and imports cellWorker.ts.
 */
export async function forEachCellOnThreads<T>(
  items: readonly T[],
  threads: number,
  cellOf: (item: T) => SyntheticCell,
  ranges: SummaryRange[],
  done: (item: T, rows: number) => Promise<void>,
): Promise<void> {
  let next = 0;
  let failure: { err: unknown } | undefined;
  const thread = async () => {
    const worker = await start();
    try {
      while (!failure && next < items.length) {
        const item = items[next++]!;
        const rows = await ask(worker, { cell: cellOf(item), ranges });
        await done(item, rows);
      }
    } catch (err) {
      failure ??= { err };
    } finally {
      await stop(worker);
    }
  };
  await Promise.all(Array.from({ length: Math.min(threads, items.length) }, thread));
  if (failure) throw failure.err;
}

function start(): Promise<Worker> {
  const fromSources = import.meta.url.endsWith('.ts');
  const worker = fromSources
    ? new Worker(new URL('../../scripts/ts-worker.mjs', import.meta.url), { workerData: { entry: new URL('./cellWorker.ts', import.meta.url).href } })
    : new Worker(new URL('./cellWorker.js', import.meta.url));
  return new Promise((resolve, reject) => {
    worker.once('message', () => {
      worker.off('error', reject);
      resolve(worker);
    });
    worker.once('error', reject);
  });
}

function ask(worker: Worker, req: CellRequest): Promise<number> {
  return new Promise((resolve, reject) => {
    const onExit = (code: number) => reject(new Error(`a build thread ended (status ${code}) in the middle of a cell`));
    const onError = (err: Error) => {
      worker.off('exit', onExit);
      reject(err);
    };
    worker.once('exit', onExit);
    worker.once('error', onError);
    worker.once('message', (a: CellAnswer) => {
      worker.off('exit', onExit);
      worker.off('error', onError);
      if ('rows' in a) resolve(a.rows);
      else reject(new Error('error' in a ? a.error : 'a build thread answered out of turn'));
    });
    worker.postMessage(req);
  });
}

/** Asks the thread to close its database and end; ends it by force if it does not within 10 s. */
async function stop(worker: Worker): Promise<void> {
  const exited = new Promise<void>((resolve) => worker.once('exit', () => resolve()));
  worker.postMessage({ close: true } satisfies CellRequest);
  const timer = setTimeout(() => void worker.terminate(), 10_000);
  await exited;
  clearTimeout(timer);
}
