import type { Worker } from 'node:worker_threads';
import { startThread } from '../threads.js';
import { badRequest } from '../errors.js';
import type { Grid } from '../reference/grids.js';
import type { AreaCover } from './cells.js';
import type { CoverJob } from './coverWorker.js';
import type { MultiPolygon } from './geometry.js';

/**
 * Clipping an area to the map cells runs on a thread of its own: the largest ecoregions take
 * seconds the first time, and on the event loop every other request would wait for them. One area
 * at a time, in order; an area that takes longer than `timeoutMs` is given up (its thread is ended
 * and the next area gets a new one) and answered 400. The thread is started on first use and does
 * not keep the process alive.
 */
export class CoverThread {
  private worker?: Promise<Worker>;
  private queue: Promise<unknown> = Promise.resolve();

  constructor(private readonly timeoutMs: number) {}

  cover(grid: Grid, polygons: MultiPolygon, wanted: Int32Array): Promise<AreaCover> {
    // A typed array is copied to the thread as one block of memory (a Set of 200,000 cells was not).
    const job: CoverJob = { grid, polygons, wanted };
    const run = this.queue.then(() => this.run(job));
    this.queue = run.catch(() => undefined);
    return run;
  }

  private async run(job: CoverJob): Promise<AreaCover> {
    const worker = await (this.worker ??= startWorker().catch((err: unknown) => {
      this.worker = undefined;
      throw err;
    }));
    return new Promise<AreaCover>((resolve, reject) => {
      const done = () => {
        clearTimeout(timer);
        worker.off('message', onMessage);
        worker.off('error', onError);
      };
      const onMessage = (m: { cover?: AreaCover; error?: string }) => {
        done();
        if (m.cover) resolve(m.cover);
        // polygon-clipping gives up on some degenerate outlines (rings that fold onto themselves
        // within rounding) that pass the checks: the area, not the server, is at fault.
        else reject(badRequest(`The area could not be clipped to the map cells (${m.error}). Simplify or repair the geometry.`));
      };
      const onError = (err: Error) => {
        done();
        this.worker = undefined;
        reject(err);
      };
      const timer = setTimeout(() => {
        done();
        this.worker = undefined;
        void worker.terminate();
        reject(badRequest(`The area took more than ${this.timeoutMs / 1000} s to clip to the map cells; send a simpler outline (fewer vertices) or a smaller area.`));
      }, this.timeoutMs);
      worker.on('message', onMessage);
      worker.on('error', onError);
      worker.postMessage(job);
    });
  }

  close() {
    void this.worker?.then((w) => w.terminate());
    this.worker = undefined;
  }
}

/** The thread does not keep the process alive. */
async function startWorker(): Promise<Worker> {
  const worker = await startThread(import.meta.url, 'coverWorker');
  worker.unref();
  return worker;
}
