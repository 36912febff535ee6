import { parentPort } from 'node:worker_threads';
import type { Grid } from '../reference/grids.js';
import { coverOf } from './cells.js';
import type { MultiPolygon } from './geometry.js';

/** The clipping thread of coverThread.ts: one area at a time, answered with its cover or the clipper's error. */
export interface CoverJob {
  grid: Grid;
  polygons: MultiPolygon;
  /** The grid's cells with data, by increasing id. */
  wanted: Int32Array;
}

/** Loaded: the thread's start (a few hundred ms from the TypeScript sources) is not the area's time. */
parentPort!.postMessage({ ready: true });
parentPort!.on('message', ({ grid, polygons, wanted }: CoverJob) => {
  try {
    parentPort!.postMessage({ cover: coverOf(grid, polygons, wanted) });
  } catch (err) {
    parentPort!.postMessage({ error: err instanceof Error ? err.message : String(err) });
  }
});
