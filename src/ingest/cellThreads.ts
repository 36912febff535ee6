import type { Worker } from 'node:worker_threads';
import { forEachWith } from '../db/workers.js';
import { startThread } from '../threads.js';
import type { SummaryRange } from './summaries.js';
import type { SyntheticCell } from './synthetic.js';
import type { CellAnswer, CellRequest } from './cellWorker.js';

/**
 * Builds cells on `threads` worker threads (cellWorker.ts), each cell on the next free thread, and
 * calls `done` for each on this thread as it ends. Since the generator and the summaries in memory
 * run in JavaScript, one event loop would do a third of the build alone: each thread has its own.
 * After an error the threads stop once their current cell is done (forEachWith).
 */
export async function forEachCellOnThreads<T>(
  items: readonly T[],
  threads: number,
  cellOf: (item: T) => SyntheticCell,
  ranges: SummaryRange[],
  done: (item: T, rows: number) => Promise<void>,
): Promise<void> {
  return forEachWith(items, threads, () => startThread(import.meta.url, 'cellWorker'), stop, async (worker, item) => {
    await done(item, await ask(worker, { cell: cellOf(item), ranges }));
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
  // Already ended (a thread that died in a cell): nothing to wait for.
  if (worker.threadId === -1) return;
  const exited = new Promise<void>((resolve) => worker.once('exit', () => resolve()));
  worker.postMessage({ close: true } satisfies CellRequest);
  const timer = setTimeout(() => void worker.terminate(), 10_000);
  await exited;
  clearTimeout(timer);
}
